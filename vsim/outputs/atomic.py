"""Atomic output: a file is either complete or absent, never half-written.

A regular file (or a new name) is written as a temporary file beside it and
renamed into place. A symbolic link is not written through: the rename would
replace the link itself, and following it would write wherever it leads (a
link planted in an output folder, a dangling one whose missing folders would
be made), so it is an ``InputError`` (``refuse_link``); the command-line
checks refuse it before any work. A target that exists but is not a regular file (a
character device such as ``/dev/null``, a FIFO, a socket) cannot be replaced
without destroying it and has no "half-written" state worth guarding, so the
output is written into it directly. A directory is refused. Any failure to
write the output (``ENOSPC`` on ``/dev/full``, a closed pipe, a read-only
directory) is an ``InputError`` naming the path, as for any bad output path.

Outputs that belong together (a report and its figures) are written inside
``output_set()``: each file is still written to a temporary file beside its
target, but none is put in place until the whole set is written, and then
all are renamed in one quick pass with Ctrl-C and SIGTERM held back. A run
interrupted or failing (a full disk) while writing them leaves the earlier
set as it was, not a mix of old and new files; work to do once the set is
in place (removing an earlier run's files it did not write again) is handed
to ``after_commit``.

A worker process that renders outputs its parent writes (``vsim reproduce``
drawing studies side by side) runs inside ``captured_outputs()``: what
``write_bytes`` and ``write_text`` are given is kept in memory for the parent,
and nothing is written, so a worker ended at any moment leaves no file.
"""

import os
import stat
from contextlib import contextmanager
from pathlib import Path

from vsim.core.errors import InputError
from vsim.core.interrupts import interrupts_held
from vsim.outputs.output_check import refuse_link


_open_sets: list["_PendingSet"] = []
"""The pending sets of ``output_set`` blocks being run, innermost last."""

_captures: list[dict] = []
"""The {target path: bytes} of ``captured_outputs`` blocks being run, innermost last."""


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
    renamed over a regular file (or new name), copied into a device or FIFO (or a link to one;
    any other link is refused). The temporary
    file is made with Ctrl-C and SIGTERM held back, so that one arriving as it is made cannot
    leave it behind: it is removed on the way out whatever stops the block."""
    path = Path(path)
    mode = _existing_mode(path)
    if mode is not None and stat.S_ISDIR(mode):
        raise InputError(path, None, "expected a file to write, found a directory")
    special = mode is not None and not stat.S_ISREG(mode)
    refuse_link(path, None)
    tmp: str | None = None  # None once handed to the pending set
    try:
        with interrupts_held():
            tmp = _temporary_beside(path, special)
        pending = _open_sets[-1] if _open_sets else None
        yield Path(tmp)
        if pending is not None:
            pending.files.append((tmp, path, special))
            tmp = None
        else:
            _put_in_place(tmp, path, special)
    except OSError as exc:
        raise _cannot_write(path, exc) from None
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)


def _temporary_beside(path, special):
    """A new empty file beside ``path`` (in the temporary directory for a device or FIFO), with the
    mode a new file gets; its name."""
    import tempfile  # here: ``vsim --help`` and ``--version`` write no output
    try:
        if not special:
            path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=path.suffix,
                                   dir=None if special else path.parent)
    except OSError as exc:
        raise _cannot_write(path, exc) from None
    os.close(fd)
    os.chmod(tmp, 0o666 & ~_umask())
    return tmp


def _put_in_place(tmp, path, special):
    """Rename the written temporary file ``tmp`` over ``path`` (or copy it into a device or FIFO)."""
    if special:
        _copy_into(tmp, path)
    else:
        os.replace(tmp, path)


class _PendingSet:
    """Files written for one ``output_set`` and not yet in place, and what to do once they are."""

    def __init__(self):
        self.files = []
        self.callbacks = []

    def discard(self):
        """Remove every temporary file: the targets keep what they held."""
        for tmp, _path, _special in self.files:
            if os.path.exists(tmp):
                os.unlink(tmp)
        self.files = []

    def commit(self):
        """Put every file in place, Ctrl-C and SIGTERM held back meanwhile (delivered after);
        temporary files left over (copied into a device, or after a failure) are removed."""
        with interrupts_held():
            try:
                for tmp, path, special in self.files:
                    try:
                        _put_in_place(tmp, path, special)
                    except OSError as exc:
                        raise _cannot_write(path, exc) from None
            finally:
                self.discard()


@contextmanager
def output_set():
    """Write the files of the block as one set: all are put in place when the block ends
    normally, none when it raises (nor when Ctrl-C stops it). Nested sets join the outer one."""
    if _open_sets:
        yield
        return
    pending = _PendingSet()
    _open_sets.append(pending)
    try:
        yield
        pending.commit()  # inside the try: an interruption just before it still discards the set
    except BaseException:
        pending.discard()
        raise
    finally:
        _open_sets.remove(pending)
    for callback in pending.callbacks:
        callback()


def after_commit(callback):
    """Call ``callback()`` once the open output set is in place, or now when none is open."""
    if _open_sets:
        _open_sets[-1].callbacks.append(callback)
    else:
        callback()


def content_of(path):
    """The file holding what was last written to ``path``: the temporary file waiting in the
    open output set for it, or ``path`` itself once it is in place."""
    path = Path(path)
    for pending in reversed(_open_sets):
        for tmp, target, _special in reversed(pending.files):
            if target == path:
                return Path(tmp)
    return path


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


def write_bytes(path, data):
    """Write ``data`` to ``path`` atomically (directly into a device or FIFO); inside
    ``captured_outputs``, keep it for the parent instead."""
    if _captures:
        _captures[-1][Path(path)] = bytes(data)
        return
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)


def write_text(path, text):
    """Write ``text`` to ``path`` atomically, UTF-8 (directly into a device or FIFO)."""
    write_bytes(path, text.encode("utf-8"))


@contextmanager
def captured_outputs():
    """Yield a dict that collects {target path: bytes} of what the block writes with
    ``write_bytes`` and ``write_text``, written nowhere: a worker renders, its parent writes
    them (``write_bytes``) in its own output set. A block that raises hands nothing back."""
    captured: dict = {}
    _captures.append(captured)
    try:
        yield captured
    finally:
        _captures.remove(captured)


def capturing():
    """Whether writes are being captured (``captured_outputs``) rather than written."""
    return bool(_captures)


def output_bytes(path):
    """The bytes last written to ``path``: captured, waiting in the open output set, or in place."""
    path = Path(path)
    for captured in reversed(_captures):
        if path in captured:
            return captured[path]
    return content_of(path).read_bytes()
