"""Input files checked before a byte of them is read: a regular file, of a bounded size.

A config or trace from someone else may name a device (``/dev/zero`` reads without end), a
directory, or a file far larger than any real one; read whole, it takes memory until Python
fails. ``check_input_file`` refuses each in one line naming it, before it is opened. A
config is small (``CONFIG_LIMIT``); a measured trace may hold millions of packets
(``TRACE_LIMIT``).
"""

import os
import stat

from vsim.core.errors import InputError

CONFIG_LIMIT = 1 << 20  # bytes: a scenario or model file is a few kilobytes
TRACE_LIMIT = 1 << 31  # bytes: a capture or text trace of hours of packets


def check_input_file(path: str | os.PathLike, limit: int, what: str = "a file") -> None:
    """``InputError`` unless ``path`` is a regular file of at most ``limit`` bytes (``what`` names
    the kind expected, for the error); a path that cannot be looked at is left to the read."""
    try:
        info = os.stat(path)
    except OSError:
        return  # missing, a name too long, no permission: the reader's open says so, in its words
    if stat.S_ISDIR(info.st_mode):
        raise InputError(path, None, f"cannot read file (a directory; expected {what})")
    if not stat.S_ISREG(info.st_mode):
        raise InputError(path, None, f"cannot read file (a device, pipe or socket, not a regular file; "
                                     f"expected {what})")
    if info.st_size > limit:
        raise InputError(path, None, f"expected {what} of at most {_size_text(limit)}, this one is "
                                     f"larger than that ({_size_text(info.st_size)})")


def _size_text(size: int) -> str:
    """A byte count as a person reads it: ``1 MiB``, ``2.5 GiB``."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:.3g} {unit}"
    return f"{size} bytes"
