"""The text table of ``tshark -q -z rtp,streams``: one row per RTP stream.

tshark prints a banner line, a header line naming the columns, one line per
stream and a closing line of '=' signs::

    ========================= RTP Streams ========================
       Start time      End time     Src IP addr  Port    Dest IP addr  Port       SSRC          Payload  Pkts         Lost   Min Delta(ms)  Mean Delta(ms)   Max Delta(ms)  Min Jitter(ms) Mean Jitter(ms)  Max Jitter(ms) Problems?
         0.000000      9.980000        10.0.0.1 40010        10.0.0.2 40012 0x00000007            g711U   500     0 (0.0%)           5.000          20.000          35.000           0.000           0.480           3.430
    ==============================================================

Wireshark 3.x prints no start/end time and no min/mean delta or min jitter
columns; the header line says which columns are there, and every "(ms)"
column it names is read. The payload column may hold several names
separated by commas and spaces. Anything else (other taps' output, lines
tshark writes around the table) is ignored.
"""

import re
from dataclasses import dataclass, field

from vsim.core.errors import InputError
from vsim.traces.text_file import read_text

BANNER = "RTP Streams"
_LOST = r"(?P<lost>-?\d+) \((?P<lost_pct>-?[\d.]+|nan|-?inf)%\)"
_ADDR = r"(?P<src>\S+)\s+(?P<src_port>\d+)\s+(?P<dst>\S+)\s+(?P<dst_port>\d+)\s+(?P<ssrc>0x[0-9A-Fa-f]+)"
_NUMBER = r"(-?[\d.]+|nan|-?inf)"


@dataclass(frozen=True)
class TsharkStream:
    """One row of the table; ``values`` maps each "(ms)" column (e.g. 'Max Jitter(ms)') to its number."""

    src: str
    src_port: int
    dst: str
    dst_port: int
    ssrc: int
    payload: str
    packets: int
    lost: int
    lost_pct: float
    values: dict = field(default_factory=dict)
    problems: bool = False
    start_s: float | None = None
    end_s: float | None = None

    @property
    def key(self):
        return (self.src, self.src_port, self.dst, self.dst_port, self.ssrc)


def _row_pattern(header):
    times = header.lstrip().startswith("Start time")
    ms_columns = re.findall(r"((?:Min|Mean|Max) (?:Delta|Jitter)\(ms\))", header)
    prefix = r"^\s*(?P<start>-?[\d.]+)\s+(?P<end>-?[\d.]+)\s+" if times else r"^\s*"
    numbers = r"\s+".join([_NUMBER] * len(ms_columns))
    pattern = (prefix + _ADDR + r"\s+(?P<payload>.*?)\s+(?P<packets>\d+)\s+" + _LOST + r"\s+" + numbers
               + r"\s*(?P<problems>X?)\s*$")
    return re.compile(pattern), ms_columns, times


def parse_tshark_streams(text, path="<tshark>"):
    """The streams of a ``-z rtp,streams`` table; ``InputError`` naming the line on a defect."""
    lines = text.splitlines()
    if not any(line.strip() for line in lines):
        raise InputError(path, None, "empty file; expected the output of tshark -q -z rtp,streams")
    banner = next((number for number, line in enumerate(lines) if BANNER in line and line.lstrip().startswith("=")),
                  None)
    if banner is None:
        raise InputError(path, "line 1", f"expected a '=== {BANNER} ===' banner from tshark -z rtp,streams "
                                         "(not the output of tshark -z rtp,streams)")
    if banner + 1 >= len(lines) or "SSRC" not in lines[banner + 1]:
        raise InputError(path, f"line {banner + 2}", "expected the column header line (Src IP addr ... SSRC "
                                                    "...) after the banner; the file ends (truncated?)")
    pattern, ms_columns, times = _row_pattern(lines[banner + 1])
    streams = []
    for number in range(banner + 2, len(lines)):
        line = lines[number]
        if line.lstrip().startswith("="):
            return streams
        if not line.strip():
            continue
        match = pattern.match(line)
        if match is None:
            raise InputError(path, f"line {number + 1}",
                             f"expected a stream row: addresses, ports, 0x SSRC, payload, packets, "
                             f"'lost (pct%)' and {len(ms_columns)} numbers, got {line.strip()[:60]!r}")
        values = [float(v) for v in match.groups()[-1 - len(ms_columns):-1]]
        streams.append(TsharkStream(
            src=match["src"], src_port=int(match["src_port"]), dst=match["dst"], dst_port=int(match["dst_port"]),
            ssrc=int(match["ssrc"], 16), payload=match["payload"], packets=int(match["packets"]),
            lost=int(match["lost"]), lost_pct=float(match["lost_pct"]), values=dict(zip(ms_columns, values)),
            problems=match["problems"] == "X",
            start_s=float(match["start"]) if times else None, end_s=float(match["end"]) if times else None))
    raise InputError(path, f"line {len(lines)}", "expected a closing '====' line after the stream rows; "
                                                 "the file ends (truncated?)")


def read_tshark_streams(path):
    """Read a saved ``tshark -q -z rtp,streams`` output file (see ``parse_tshark_streams``)."""
    return parse_tshark_streams(read_text(path, "the text output of tshark -z rtp,streams"), path)
