"""One entry point for every trace format vsim reads: ``read_any(path, fmt=None)``.

The format is recognised from the file's content, never from its name:
capture files by their magic number, text formats by their first line (or,
for tshark's table, its banner). A file whose content contradicts what it
is said to be, by ``fmt`` or by a capture extension (``.pcap``, ``.pcapng``,
``.cap``) on a text file or a text extension (``.csv``, ``.txt``) on a
capture, is refused with its own error naming both, since reading it as
either would be a guess.
"""

from pathlib import Path

from vsim.core.errors import InputError
from vsim.traces.capture_file import PCAP_MAGICS, PCAPNG_MAGIC
from vsim.traces.esxtop import FORMAT_PREFIX, read_esxtop
from vsim.traces.file_head import describe_head, refuse_compressed, refuse_pipe
from vsim.traces.pcap_rtp import read_rtp
from vsim.traces.sipp_rtt import HEADER as RTT_HEADER, read_sipp_rtt
from vsim.traces.sipp_stat import HEADER_START as STAT_HEADER, read_sipp_stat
from vsim.traces.tshark_streams import BANNER, read_tshark_streams
from vsim.traces.vsim_trace import VERSION_PREFIX, read_trace

FORMATS = {
    "pcap": ("a pcap capture", read_rtp),
    "pcapng": ("a pcapng capture", read_rtp),
    "tshark": ("tshark -z rtp,streams output", read_tshark_streams),
    "esxtop": ("esxtop batch-mode CSV", read_esxtop),
    "sipp-stat": ("a SIPp -trace_stat CSV", read_sipp_stat),
    "sipp-rtt": ("a SIPp -trace_rtt CSV", read_sipp_rtt),
    "vsim": ("a vsim trace", read_trace),
}
_EXTENSIONS = {".pcap": ("pcap", "pcapng"), ".cap": ("pcap", "pcapng"), ".pcapng": ("pcapng", "pcap"),
               ".csv": ("esxtop", "sipp-stat", "sipp-rtt", "vsim"), ".txt": ("tshark", "vsim", "sipp-stat",
                                                                           "sipp-rtt", "esxtop")}
_HEAD_BYTES = 65536


def describe_format(fmt):
    """A format's name as a phrase ('a pcap capture'), or 'an unknown format' for None."""
    return FORMATS[fmt][0] if fmt in FORMATS else "an unknown format"


def sniff(head):
    """The format of a file whose first bytes are ``head``, or None when it is none of ``FORMATS``."""
    if head[:4] in PCAP_MAGICS:
        return "pcap"
    if head[:4] == PCAPNG_MAGIC:
        return "pcapng"
    text = head.decode("utf-8-sig", errors="replace")
    first = text.lstrip().split("\n", 1)[0].strip()
    if first.startswith(VERSION_PREFIX):  # any version: the reader names one it cannot read
        return "vsim"
    if first.lstrip('"').startswith(FORMAT_PREFIX):
        return "esxtop"
    if first.startswith(STAT_HEADER):
        return "sipp-stat"
    if tuple(cell.strip() for cell in first.rstrip(";").split(";")) == RTT_HEADER:
        return "sipp-rtt"
    if any(BANNER in line and line.lstrip().startswith("=") for line in text.splitlines()[:50]):
        return "tshark"
    return None


def _is_text(head):
    try:
        head.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return b"\0" not in head


def _head(path):
    refuse_pipe(path)
    try:
        with open(path, "rb") as handle:
            return handle.read(_HEAD_BYTES)
    except OSError as exc:
        raise InputError(path, None, f"cannot read ({exc.strerror or exc})") from None


def detect_format(path, fmt=None, by_name=True, accepted=None):
    """The format of ``path`` from its content, checked against ``fmt`` and, with ``by_name``,
    its extension; ``accepted`` (format names) are those a caller takes, named in the errors
    (``vsim jitter`` takes captures only)."""
    if fmt is not None and fmt not in FORMATS:
        raise InputError(path, "fmt", f"expected one of {', '.join(FORMATS)}, got {fmt!r}")
    head = _head(path)
    expected = describe_format(fmt) if fmt else "a trace (" + ", ".join(FORMATS) + ")"
    if accepted is not None:
        expected = " or ".join(describe_format(name) for name in accepted)
    if not head:
        raise InputError(path, None, f"empty file; expected {expected}")
    refuse_compressed(path, head, expected)
    found = sniff(head)
    if accepted is not None and found not in accepted:
        raise InputError(path, None, f"expected {expected}, found "
                                     + (describe_format(found) if found else describe_head(head)))
    if fmt is not None:
        if found is None and fmt in ("pcap", "pcapng") and _is_text(head):
            raise InputError(path, "fmt", f"format {fmt} given, but the file holds text; "
                                               f"expected {describe_format(fmt)}")
        if found is not None and found != fmt and {found, fmt} != {"pcap", "pcapng"}:
            raise InputError(path, "fmt", f"format {fmt} given, but the file holds "
                                               f"{describe_format(found)}; expected {describe_format(fmt)}")
        return fmt
    if found is None:
        raise InputError(path, "line 1", "expected one of: " + "; ".join(
            description for description, _ in FORMATS.values()) + f" (recognised by content), found "
            f"{describe_head(head)}")
    suffix = Path(path).suffix.lower()
    if by_name and suffix in _EXTENSIONS and found not in _EXTENSIONS[suffix]:
        raise InputError(path, "file name", f"named {suffix} but holds {describe_format(found)}; expected "
                                            f"{describe_format(_EXTENSIONS[suffix][0])} (rename the file "
                                            "to match what it holds)")
    return found


def read_any(path, fmt=None, by_name=True, accepted=None):
    """Read a trace of any format vsim knows: returns ``(format, trace)``.

    ``fmt`` (one of ``FORMATS``) says what the file must be; without it the
    format comes from the content, which must agree with the file's extension unless
    ``by_name`` is False. The trace is the reader's own object:
    ``RtpPackets`` for captures, a list of ``TsharkStream`` for tshark's
    table, ``EsxtopTrace``, ``SippStats``, ``SippRtt`` or a vsim ``Trace``.
    """
    fmt = detect_format(path, fmt, by_name, accepted)
    return fmt, FORMATS[fmt][1](path)
