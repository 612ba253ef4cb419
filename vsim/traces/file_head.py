"""The first bytes of a file, described for an error message a person reads.

A file of another kind than the one expected may be anyone's (``/etc/shadow`` given as a
trace), so nothing of it is quoted: ``describe_head`` says whether it holds text or binary
data. A gzip-compressed file is named as such, with what to do about it.
"""

import os
import stat

from vsim.core.errors import InputError

GZIP_MAGIC = b"\x1f\x8b"

_TRAILING_PARTIAL = 3  # a UTF-8 character cut by the length of the head has at most 3 of its bytes kept


def describe_head(raw):
    """``text of another kind`` when ``raw``, a file's first bytes, is printable UTF-8 text (a
    character cut at its end allowed), else ``binary data of another kind``; nothing of it quoted."""
    for cut in range(_TRAILING_PARTIAL + 1):
        try:
            text = raw[:len(raw) - cut].decode("utf-8")
        except UnicodeDecodeError:
            continue
        if text and all(char.isprintable() or char in "\t\r\n" for char in text):
            return "text of another kind"
        break
    return "binary data of another kind"


def refuse_compressed(path, raw, expected):
    """``InputError`` when ``raw``, the first bytes of ``path``, start a gzip file: vsim reads traces
    uncompressed, and the error says to decompress it rather than that it is some other format."""
    if raw[:len(GZIP_MAGIC)] == GZIP_MAGIC:
        raise InputError(path, None, f"expected {expected}, found a gzip-compressed file; decompress it "
                                     "into a file first (gunzip -k FILE)")


def refuse_pipe(path):
    """A pipe (a shell's ``<(...)``, a named FIFO) refused before its first bytes are taken: a
    trace's format is told from its head and the file then read from its start, and a pipe gives
    its bytes once."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return  # the read that follows names what is wrong
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode):
        raise InputError(path, None, "expected a file (its format is read from its first bytes, "
                                     "then the file from its start); a pipe or <(...) gives its "
                                     "bytes once: write them to a file first")
