"""From the senders' logs and the receiver's capture to a ``packets`` trace and its loss and jitter summary.

Every packet a sender logged becomes one trace row; its arrival is the
capture time of the packet with the same stream and sequence number, or
empty when it never arrived. Times are seconds from ``time_zero_ns``
(CLOCK_REALTIME, the clock of both the payload timestamps and the capture).

The summary's jitter is RFC 3550's running estimate as it stands after a
stream's last packet ("jitter at end"); a class's is the mean of its
streams' values. A delay needs one arrival and a jitter two; without them
the summary says "n/a".
"""

from dataclasses import dataclass

import numpy as np

from vsim.probe import rtp
from vsim.probe.stats import jitter_at_end

NS = 1e9


def _ms(value, width):
    """``value`` (ms) right-aligned in ``width`` with 3 decimals, or 'n/a' when it is not finite."""
    return f"{value:{width}.3f}" if np.isfinite(value) else f"{'n/a':>{width}}"


@dataclass(frozen=True)
class StreamSummary:
    """One stream's (or one class's, its name in brackets) counts, one-way delay and RFC 3550 jitter at end."""

    stream: str
    klass: str
    sent: int
    received: int
    delay_mean_ms: float
    delay_p99_ms: float
    jitter_ms: float

    @property
    def loss_pct(self):
        return 100.0 * (self.sent - self.received) / self.sent if self.sent else 0.0

    def line(self):
        jitter = "mean jitter at end" if self.stream.startswith("[") else "jitter at end"
        return (f"{self.stream:<10} {self.klass:<6} sent {self.sent:>6} received {self.received:>6} "
                f"loss {self.loss_pct:6.2f}%  delay mean {_ms(self.delay_mean_ms, 8)} ms "
                f"p99 {_ms(self.delay_p99_ms, 8)} ms  {jitter} {_ms(self.jitter_ms, 7)} ms")


def stream_name(index):
    """A voice stream's name: its SSRC in hex; -1 is the flood."""
    return "flood" if index < 0 else f"{rtp.SSRC_BASE + index:08x}"


def arrivals(frames, voice_ports, flood_port):
    """{(stream index, seq): (arrival ns, wire bytes)} of the captured voice and flood packets."""
    seen = {}
    for frame in frames:
        if frame.dst_port == flood_port:
            parsed = rtp.parse_flood(frame.payload)
            key = None if parsed is None else (-1, parsed[0])
        elif frame.dst_port in voice_ports:
            parsed = rtp.parse_voice(frame.payload)
            key = None if parsed is None else (parsed[0] - rtp.SSRC_BASE, parsed[1])
        else:
            key = None
        if key is not None and key not in seen:
            seen[key] = (frame.time_ns, frame.wire_bytes)
    return seen


def packet_columns(log, seen, time_zero_ns, voice_bytes, flood_bytes):
    """The ``packets`` trace columns for the sender ``log`` rows (stream, seq, rtp_ts, send_ns)."""
    log = log[np.argsort(log[:, 3], kind="stable")]
    columns = {name: [] for name in ("stream", "class", "seq", "rtp_timestamp", "send_s", "arrival_s",
                                     "size_bytes")}
    for index, seq, rtp_timestamp, send_ns in log.tolist():
        arrival = seen.get((index, seq & 0xFFFF if index >= 0 else seq))
        columns["stream"].append(stream_name(index))
        columns["class"].append("flood" if index < 0 else "voice")
        columns["seq"].append(seq)
        columns["rtp_timestamp"].append(rtp_timestamp)
        columns["send_s"].append((send_ns - time_zero_ns) / NS)
        columns["arrival_s"].append(np.nan if arrival is None else (arrival[0] - time_zero_ns) / NS)
        columns["size_bytes"].append(arrival[1] if arrival else (flood_bytes if index < 0 else voice_bytes))
    return columns


def _jitter(klass, send, arrival, rtp_timestamps):
    """A stream's RFC 3550 jitter at end (s): by RTP timestamps for voice, by send times for the flood;
    NaN when fewer than two packets arrived."""
    if np.isfinite(arrival).sum() < 2:
        return float("nan")
    if klass == "voice":
        return jitter_at_end(None, arrival, rtp.CLOCK_HZ, rtp_timestamps)
    return jitter_at_end(send, arrival)


def summarize(columns):
    """One ``StreamSummary`` per stream, then one per class ("[voice]": jitter the mean of its streams' that
    have one)."""
    streams = np.asarray(columns["stream"])
    classes = np.asarray(columns["class"])
    send = np.asarray(columns["send_s"], dtype=float)
    arrival = np.asarray(columns["arrival_s"], dtype=float)
    rtp_ts = np.asarray(columns["rtp_timestamp"], dtype=float)
    result = []
    groups = [(name, streams == name) for name in dict.fromkeys(columns["stream"])]
    groups += [(f"[{name}]", classes == name) for name in dict.fromkeys(columns["class"])]
    for name, rows in groups:
        klass = classes[rows][0]
        arrived = rows & np.isfinite(arrival)
        delay = arrival[arrived] - send[arrived]
        members = dict.fromkeys(streams[rows]) if name.startswith("[") else [name]
        jitters = [_jitter(klass, send[streams == s], arrival[streams == s], rtp_ts[streams == s])
                   for s in members]
        known = [value for value in jitters if np.isfinite(value)]
        jitter = sum(known) / len(known) if known else float("nan")
        result.append(StreamSummary(
            name, klass, int(rows.sum()), int(arrived.sum()),
            1e3 * float(delay.mean()) if delay.size else float("nan"),
            1e3 * float(np.percentile(delay, 99)) if delay.size else float("nan"), 1e3 * jitter))
    return result
