"""Reading a text trace file whole, with the one-line errors every text reader gives."""

from vsim.core.errors import InputError
from vsim.core.input_files import TRACE_LIMIT, check_input_file
from vsim.traces.file_head import GZIP_MAGIC, refuse_compressed


def read_text(path, what, encoding="utf-8"):
    """The text of ``path``; ``InputError`` when it cannot be read, is no regular file or one
    larger than ``TRACE_LIMIT`` (checked before it is read), or holds binary data.

    ``what`` names the format expected (``"SIPp -trace_rtt text"``), so the
    error for a binary file says what should have been there (and, for a
    gzip-compressed one, to decompress it).
    """
    check_input_file(path, TRACE_LIMIT, what)
    try:
        with open(path, encoding=encoding) as stream:
            return stream.read()
    except OSError as exc:
        raise InputError(path, None, f"cannot read ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        pass
    with open(path, "rb") as stream:
        refuse_compressed(path, stream.read(len(GZIP_MAGIC)), what)
    raise InputError(path, None, f"expected {what}, found binary data")
