"""A capture's RTP streams as a vsim ``packets`` trace, so a measured capture is reduced to metrics
by the same code as a simulation (``vsim.traces.trace_metrics``).

Streams are split as ``vsim.traces.rtp_streams`` splits them (addresses,
ports, SSRC). A packet's send time is what its RTP timestamp says: the
stream's first arrival plus the timestamp's advance since the stream's first
packet (unwrapped modulo 2^32, in capture order) over the payload type's
clock rate; its arrival time is its capture time from the capture's earliest
RTP packet (the smallest timestamp, not the first record: a merged capture's
first record need not be its earliest, and tcpdump's timestamps can step
back a little). With those, RFC 3550 jitter from the trace equals the jitter
tshark reports for an in-order stream. Sequence numbers are unwrapped modulo
2^16 the same way, so loss counts the numbers missing between a stream's
first and last packet. Every RTP stream is in class ``voice``, the class of media
streams in simulated and probed traces, so a scenario's
``validate.traffic_class = "voice"`` keeps a capture's media streams as it
keeps theirs (a flood is not RTP and never enters a capture's trace); the
payload types are named in the trace's ``# payload:`` line. Streams whose
payload type has no static clock rate (dynamic types 96-127: the rate is in
the session's SDP) have no send times and are left out, with an ``InputNote``
saying how many.
"""

import warnings

import numpy as np

from vsim.core.errors import InputError, InputNote
from vsim.traces.rtp_streams import CLOCK_RATES, PAYLOAD_NAMES, split_streams
from vsim.traces.wraparound import RTP_SEQ_MODULO, RTP_TIMESTAMP_MODULO, unwrap
from vsim.traces.vsim_trace import Trace

MEDIA_CLASS = "voice"


def _payload_name(payload_type):
    return PAYLOAD_NAMES.get(payload_type, f"PT{payload_type}")


def _stream_name(packets, index, clash):
    first = index[0]
    name = f"0x{int(packets.ssrc[first]):08X}"
    if not clash:
        return name
    src = packets.address(packets.src[first], packets.ip_version[first])
    dst = packets.address(packets.dst[first], packets.ip_version[first])
    return f"{name} {src}:{int(packets.src_port[first])}>{dst}:{int(packets.dst_port[first])}"


def capture_trace(packets):
    """The ``packets`` trace of the RTP streams in an ``RtpPackets`` (capture order within each stream)."""
    every = split_streams(packets)
    streams = [index for index in every if CLOCK_RATES.get(int(packets.payload_type[index[0]]))]
    if not streams:
        raise InputError(packets.path, None, "expected RTP streams with a static payload type (a known "
                                             "clock rate), found none")
    if len(streams) < len(every):
        dynamic = sorted({_payload_name(int(packets.payload_type[index[0]])) for index in every
                          if not CLOCK_RATES.get(int(packets.payload_type[index[0]]))})
        warnings.warn(InputNote(f"{packets.path}: {len(every) - len(streams)} of {len(every)} RTP "
                                f"streams left out: payload type {', '.join(dynamic)} has no static "
                                f"clock rate (it is in the session's SDP), so their send times are "
                                f"unknown"))
    ssrcs = [int(packets.ssrc[index[0]]) for index in streams]
    columns = {"stream": [], "class": [], "seq": [], "rtp_timestamp": [], "send_s": [], "arrival_s": [],
               "size_bytes": []}
    origin = int(packets.time_ns.min())
    for index, ssrc in zip(streams, ssrcs):
        payload_type = int(packets.payload_type[index[0]])
        arrival = (packets.time_ns[index] - origin) / 1e9
        advance = unwrap(packets.rtp_timestamp[index], RTP_TIMESTAMP_MODULO)
        send = arrival[0] + (advance - advance[0]) / CLOCK_RATES[payload_type]
        name = _stream_name(packets, index, ssrcs.count(ssrc) > 1)
        columns["stream"] += [name] * index.size
        columns["class"] += [MEDIA_CLASS] * index.size
        columns["seq"].append(unwrap(packets.seq[index], RTP_SEQ_MODULO))
        columns["rtp_timestamp"].append(packets.rtp_timestamp[index].astype(np.int64))
        columns["send_s"].append(send)
        columns["arrival_s"].append(arrival)
        columns["size_bytes"].append(packets.frame_bytes[index].astype(np.int64))
    for name in ("seq", "rtp_timestamp", "send_s", "arrival_s", "size_bytes"):
        columns[name] = np.concatenate(columns[name])
    payloads = sorted({_payload_name(int(packets.payload_type[index[0]])) for index in streams})
    return Trace("packets", {"source": f"RTP streams of {packets.path}", "payload": ", ".join(payloads)},
                 columns)
