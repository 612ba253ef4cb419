"""``vsim jitter``: per-stream RTP loss and jitter of a capture, as a table or as JSON.

The numbers are those of ``vsim.traces.rtp_streams`` (tshark's
``-z rtp,streams`` conventions); the table prints them with tshark's three
decimals so the two can be compared by eye.
"""

import json

from vsim.core.errors import InputError
from vsim.traces.detect import read_any
from vsim.traces.rtp_streams import capture_streams

_COLUMNS = ("Src IP addr", "Port", "Dest IP addr", "Port", "SSRC", "Payload", "Pkts", "Lost",
            "Max Delta(ms)", "Max Jitter(ms)", "Mean Jitter(ms)")
_WIDTHS = (15, 5, 15, 5, 10, 8, 7, 14, 13, 14, 15)


def capture_stream_stats(path):
    """The ``StreamStats`` of every RTP stream in the pcap/pcapng file ``path``."""
    _, trace = read_any(path, by_name=False, accepted=("pcap", "pcapng"))  # refused for what it holds
    if len(trace) == 0:
        raise InputError(path, None, "expected RTP packets over UDP (version 2 headers), found none")
    return capture_streams(trace)


def _ms(value):
    return "n/a" if value is None else f"{value:.3f}"


def report_text(path, streams):
    """A table of the streams, one line each, under a title naming the capture."""
    rows = [_COLUMNS] + [(s.src, str(s.src_port), s.dst, str(s.dst_port), f"0x{s.ssrc:08X}", s.payload,
                          str(s.packets), f"{s.lost} ({s.lost_pct:.1f}%)", f"{s.max_delta_ms:.3f}",
                          _ms(s.max_jitter_ms), _ms(s.mean_jitter_ms)) for s in streams]
    lines = [f"{path}: {len(streams)} RTP stream{'s' if len(streams) != 1 else ''} "
             "(RFC 3550 jitter, tshark -z rtp,streams conventions)"]
    lines += ["  ".join(cell.rjust(width) for cell, width in zip(row, _WIDTHS)) for row in rows]
    return "\n".join(lines) + "\n"


def report_json(path, streams):
    """The streams as a JSON document (times in ms, jitter null when the clock rate is unknown)."""
    doc = {"capture": str(path), "streams": [{
        "src": s.src, "src_port": s.src_port, "dst": s.dst, "dst_port": s.dst_port, "ssrc": f"0x{s.ssrc:08X}",
        "payload_types": list(s.payload_types), "packets": s.packets, "expected": s.expected, "lost": s.lost,
        "start_s": s.start_s, "end_s": s.end_s, "max_delta_ms": s.max_delta_ms,
        "max_jitter_ms": s.max_jitter_ms, "mean_jitter_ms": s.mean_jitter_ms} for s in streams]}
    return json.dumps(doc, indent=2, sort_keys=True) + "\n"
