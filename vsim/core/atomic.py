"""Atomic output: a file is either complete or absent, never half-written.

A regular file (or a new name) is written as a temporary file beside it and
renamed into place; a symbolic link to one has its target replaced, so the
link stays a link. A target that exists but is not a regular file (a
character device such as ``/dev/null``, a FIFO, a socket) cannot be replaced
without destroying it and has no "half-written" state worth guarding, so the
output is written into it directly. A directory is refused. Any failure to
write the output (``ENOSPC`` on ``/dev/full``, a closed pipe, a read-only
directory) is an ``InputError`` naming the path, as for any bad output path.
"""

import os
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path

from vsim.core.errors import InputError


def _umask():
    """The process umask (reading it means setting it, so set it back at once)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _existing_mode(path):
    """The mode of what ``path`` names, following links (None: nothing there)."""
    try:
        return os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None


def _cannot_write(path, exc):
    return InputError(path, None, f"cannot write ({exc.strerror or exc})")


@contextmanager
def atomic_path(path):
    """Yield a temporary path to write the output ``path`` into; on success put it in place:
    renamed over a regular file (or new name), copied into a device or FIFO."""
    path = Path(path)
    mode = _existing_mode(path)
    if mode is not None and stat.S_ISDIR(mode):
        raise InputError(path, None, "expected a file to write, found a directory")
    special = mode is not None and not stat.S_ISREG(mode)
    if path.is_symlink() and not special:
        path = Path(os.path.realpath(path))
    try:
        if not special:
            path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=path.suffix,
                                   dir=None if special else path.parent)
    except OSError as exc:
        raise _cannot_write(path, exc) from None
    os.close(fd)
    os.chmod(tmp, 0o666 & ~_umask())
    try:
        yield Path(tmp)
        if special:
            _copy_into(tmp, path)
        else:
            os.replace(tmp, path)
    except OSError as exc:
        raise _cannot_write(path, exc) from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _copy_into(source, target):
    """Write the bytes of file ``source`` into the existing non-regular file ``target``."""
    data = Path(source).read_bytes()
    fd = os.open(target, os.O_WRONLY)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def write_text(path, text):
    """Write ``text`` to ``path`` atomically (directly into a device or FIFO)."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
