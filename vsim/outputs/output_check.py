"""Check output paths before any work is done, so a run never fails at its very end.

Every output option of the command line (``--json PATH``, ``--out DIR``,
``--figures DIR``) is checked before simulating: an existing read-only file is
refused rather than silently replaced (an atomic write would replace it, since
replacing needs only the directory's permission), a missing directory is
refused rather than silently created (only the leaf ``DIR`` of a directory
option is created, inside a parent that exists), and the directory written
into must accept a new file, which is tried for real by creating and removing
an empty temporary file there (the permission bits do not tell for root or for
special file systems). An existing device or FIFO (``/dev/null``, a named pipe)
is written into rather than replaced, so it only has to be writable. An output
that is a symbolic link is refused (``refuse_link``), whether it leads to a
file (which writing would replace: a link planted in an output folder could
aim it at any file the user may write) or nowhere (whose missing folders
writing would create); only a link to a device or FIFO is written into, as the
device is. A directory named on the command line may be a link to a directory,
but nothing inside it that is written may be a link. No output
may be an input of the same command (``--json`` onto its config would destroy
it) or another of its outputs (``check_apart``), and none may lie in a folder
whose files the program itself reads (``check_outside``: its package, its
models and scenarios), where a new file or a replaced one would change every
later run. Each failure is one ``InputError`` naming the path and the option.
"""

import errno
import os
import stat
from pathlib import Path

from vsim.core.errors import InputError, excerpt

NAME_MAX = 255  # bytes of one file name, on Linux's file systems (limits.h)
PATH_MAX = 4096  # bytes of a whole path


def refuse_long_name(path, option):
    """Refuse a path the file system would refuse to create (``File name too long``): one of its
    names over ``NAME_MAX`` bytes or the whole over ``PATH_MAX``; the path is shown cut short."""
    encoded = os.fsencode(os.fspath(path))
    longest = max((len(part) for part in encoded.split(b"/")), default=0)
    if longest > NAME_MAX or len(encoded) > PATH_MAX:
        raise InputError(excerpt(path, 80), option, f"expected file names of at most {NAME_MAX} bytes and a "
                                                    f"path of at most {PATH_MAX}; got a name of {longest} "
                                                    f"bytes in a path of {len(encoded)}")


def check_output_file(path, option, created=None):
    """Refuse ``path`` (an output file; ``-`` is stdout) unless it can be written. ``created`` is
    a directory the command creates before writing ``path`` (its ``--out``, already checked):
    a file directly inside it may name it before it exists."""
    if path == "-":
        return
    refuse_long_name(path, option)
    path = Path(path)
    refuse_link(path, option)
    if created is not None and not path.parent.exists() and same_file(path.parent, created):
        return
    if path.is_dir():
        raise InputError(path, option, "expected a file to write, found a directory")
    if path.exists() and not path.is_file():  # a device or FIFO: written into, not replaced
        if not os.access(path, os.W_OK):
            raise InputError(path, option, "expected a writable file, device or FIFO; it is not writable")
        return
    parent = path.parent
    if parent.exists() and not parent.is_dir():
        raise InputError(path, option, f"expected a directory to write into; {parent} is not a directory")
    if not parent.is_dir():
        raise InputError(path, option, f"expected an existing directory to write into; "
                         f"{_shown(parent)} does not exist (it is not created)")
    _refuse_read_only(path, option)
    _try_writing_into(parent, path, option)


def check_output_dir(path, option, files=(), owned=()):
    """Refuse the output directory ``path`` unless it exists or can be created in an
    existing parent, and can be written into.

    ``files`` are the names of files to be written directly in ``path``;
    ``owned`` are subdirectories whose files are all outputs. An existing one
    of either that is read-only is refused.
    """
    for name in (".", *files, *owned):
        refuse_long_name(Path(path) / name, option)
    path = Path(path)
    if path.is_symlink() and not path.exists():
        raise InputError(path, option, f"expected a directory or a new name, found {_link_to(path)}")
    if not path.exists():
        parent = path.parent
        if parent.exists() and not parent.is_dir():
            raise InputError(path, option, f"expected a directory whose parent is a directory; "
                             f"{parent} is a file")
        if not parent.is_dir():
            raise InputError(path, option, f"expected a directory whose parent exists; "
                             f"{_shown(parent)} does not (only {path.name}/ itself is created)")
        _try_writing_into(parent, path, option)
        return
    if not path.is_dir():
        raise InputError(path, option, "expected a directory, found a file")
    _try_writing_into(path, path, option)
    for name in files:
        target = path / name
        refuse_link(target, option)
        if target.is_dir():
            raise InputError(target, option, "expected a file to write, found a directory")
        _refuse_read_only(target, option)
    for name in owned:
        sub = path / name
        if sub.is_symlink():
            raise InputError(sub, option, f"expected a directory for the outputs, found {_link_to(sub)}")
        if not sub.exists():
            continue
        if not sub.is_dir():
            raise InputError(sub, option, "expected a directory for the outputs, found a file")
        _try_writing_into(sub, sub, option)
        for entry in sorted(sub.iterdir()):
            refuse_link(entry, option)
            if entry.is_file():
                _refuse_read_only(entry, option)


def _link_to(path):
    return f"a symbolic link to {os.readlink(path)} (an output is not written through a link)"


def refuse_link(path, option):
    """Refuse an output ``path`` that is a symbolic link, unless it leads to a device or FIFO
    (written into, as the device itself is); ``InputError`` naming ``path`` and ``option``."""
    if not os.path.islink(path):
        return
    try:
        mode = os.stat(path).st_mode
    except OSError:  # leads nowhere (or into a loop)
        mode = None
    if mode is not None and not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        return
    raise InputError(path, option, f"expected a file or a new name, found {_link_to(path)}")


def _shown(directory):
    return f"{directory}/" if str(directory) != "/" else "/"


def _refuse_read_only(path, option):
    """An existing file without write permission (for anyone, root included) is refused."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return
    if not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) or not os.access(path, os.W_OK):
        raise InputError(path, option, "the file is read-only; expected a writable file or a new name "
                         "(it is not replaced)")


def _try_writing_into(directory, named, option):
    """Create and remove an empty file in ``directory``: the one sure test that it takes new files."""
    import tempfile  # here: ``vsim --help`` and ``--version`` check no output
    try:
        fd, probe = tempfile.mkstemp(prefix=".vsim-check-", dir=directory)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        if exc.errno == errno.ENOENT and Path(directory).is_dir():  # /proc, /sys: no new files
            reason = "it takes no new files"
        raise InputError(named, option, f"cannot write into {_shown(directory)} ({reason})") from None
    os.close(fd)
    os.unlink(probe)


def same_file(a, b):
    """Whether paths ``a`` and ``b`` name one file (through links, or as one path not yet made)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return Path(a).resolve() == Path(b).resolve()


def _regular(path):
    """Whether ``path`` is a file an output would replace (not stdout, a device or a FIFO)."""
    return path != "-" and (not Path(path).exists() or Path(path).is_file())


def check_apart(outputs, inputs):
    """Refuse an output file that is one of the command's ``inputs`` or another of its ``outputs``.

    ``outputs`` are (option, path) pairs, ``inputs`` (what, path) pairs; a path of None is left
    out, as are stdout (``-``) and devices or FIFOs, which are written into, not replaced.
    """
    outputs = [(option, str(path)) for option, path in outputs if path is not None and _regular(str(path))]
    for index, (option, path) in enumerate(outputs):
        for what, source in inputs:
            if source is not None and Path(source).exists() and same_file(path, source):
                raise InputError(path, option, f"expected an output apart from the inputs; it is {what}, "
                                               "which writing it would destroy")
        for other, other_path in outputs[:index]:
            if same_file(path, other_path):
                raise InputError(path, option, f"expected a file apart from {other} ({other_path}); "
                                               "both would be written there")


def _inside(path, folder):
    """Whether ``path`` (made or not yet) is ``folder`` or lies in it, links resolved."""
    return Path(os.path.realpath(path)).is_relative_to(os.path.realpath(folder))


def check_outside(outputs, folders):
    """Refuse an output (a file or a directory) that lies in one of ``folders``.

    ``outputs`` are (option, path) pairs (None and stdout, ``-``, are left out); ``folders`` are
    (what, directory) pairs of the folders whose files the program reads.
    """
    for option, path in outputs:
        if path is None or str(path) == "-":
            continue
        for what, folder in folders:
            if _inside(path, folder):
                raise InputError(path, option, f"expected an output outside {_shown(Path(folder))} ({what}): "
                                               "vsim reads the files there, and writing one would change them")
