"""Per-stream RTP statistics of a capture, with the conventions of Wireshark's RTP stream analysis.

A stream is one (source address and port, destination address and port,
SSRC). For each, the same quantities as ``tshark -z rtp,streams``:

* packets received, and lost = expected - received, where expected runs from
  the first packet's sequence number to the LAST packet's, extended by the
  sequence-number cycles counted on the way (so duplicates or a late last
  packet can make it negative, as in tshark);
* max delta: the largest gap between a packet's arrival and that of the last
  in-time packet before it, in ms;
* jitter per RFC 3550 section 6.4.1, in ms, at every in-time packet after
  the first: D = (R_i - R_j) - (S_i - S_j) with j the last in-time packet
  before i, S in RTP timestamp units over the payload type's clock rate, and
  J += (|D| - J) / 16 (``vsim.metrics.jitter.running_jitter``);
* max jitter and mean jitter over the "regular" packets: in time, not the
  first, no marker bit, not comfort noise (payload types 13 and 19) nor
  right after it. The mean is Wireshark's running average
  m = (m (n - 1) + J) / n with n the packet's index in the stream (from 0),
  which equals the plain mean of J over packets 1..N-1 when every packet is
  regular.

A packet is "in time" when its RTP timestamp is not behind the stream's
first one (less than 2^31 units ahead of it, modulo 2^32): a late or
duplicated packet still updates the jitter against its predecessor, as in
Wireshark 4.0 (the version the test suite checks against; Wireshark 4.2
changed the reference to the last packet whose timestamp was not behind).

The clock rate is that of the static payload type, converted to units per ms
by integer division as Wireshark does (44.1 kHz counts as 44 per ms). A
dynamic payload type (96-127) has no known clock rate without the session's
SDP, so its jitter is not computed (None), as Wireshark shows 0 for it.

Everything is vectorised with NumPy, so a capture of a million packets takes
well under a second here.
"""

from dataclasses import dataclass

import numpy as np

from vsim.metrics.jitter import running_jitter
from vsim.traces.pcap_rtp import RtpPackets
from vsim.traces.wraparound import RTP_SEQ_MODULO, RTP_TIMESTAMP_MODULO

CLOCK_RATES = {0: 8000, 1: 8000, 2: 8000, 3: 8000, 4: 8000, 5: 8000, 6: 16000, 7: 8000, 8: 8000, 9: 8000,
               10: 44100, 11: 44100, 12: 8000, 13: 8000, 14: 90000, 15: 8000, 16: 11025, 17: 22050,
               18: 8000, 19: 8000, 25: 90000, 26: 90000, 28: 90000, 31: 90000, 32: 90000, 33: 90000,
               34: 90000}
PAYLOAD_NAMES = {0: "g711U", 3: "GSM", 4: "G723", 8: "g711A", 9: "g722", 13: "CN", 18: "g729",
                 19: "CN_old", 26: "JPEG", 31: "H261", 34: "H263"}
COMFORT_NOISE = (13, 19)


@dataclass(frozen=True)
class StreamStats:
    """One RTP stream's statistics (times in ms; jitter None when the clock rate is unknown)."""

    src: str
    src_port: int
    dst: str
    dst_port: int
    ssrc: int
    payload_types: tuple
    packets: int
    expected: int
    lost: int
    start_s: float
    end_s: float
    max_delta_ms: float
    max_jitter_ms: float | None
    mean_jitter_ms: float | None

    @property
    def lost_pct(self):
        return 100.0 * self.lost / self.expected if self.expected else 0.0

    @property
    def payload(self):
        return ",".join(PAYLOAD_NAMES.get(pt, f"PT{pt}") for pt in self.payload_types)


def _clock_per_ms(payload_type):
    table = np.zeros(128, dtype=np.int64)
    for pt, rate in CLOCK_RATES.items():
        table[pt] = rate // 1000
    return table[payload_type]


def _previous_in_order(in_order):
    """For each packet, the index of the last in-order packet before it (packet 0 is in order)."""
    marks = np.where(in_order, np.arange(in_order.size), -1)
    last = np.maximum.accumulate(marks)
    return np.concatenate(([0], last[:-1]))


def _sequence_cycles(seq, in_order):
    """How often the sequence number wrapped, counted as Wireshark counts it.

    An in-order packet below the first sequence number (or a 0 right after a
    65535) starts a new cycle unless one is already under way; one above the
    first sequence number ends it.
    """
    start = seq[0]
    previous = np.concatenate(([seq[0]], seq[:-1]))
    low = in_order & ((seq < start) | ((seq == 0) & (previous == RTP_SEQ_MODULO - 1)))
    high = in_order & (seq > start)
    low[0] = high[0] = False
    events = low[low | high]
    before = np.concatenate(([False], events[:-1]))
    return int(np.count_nonzero(events & ~before))


def _running_mean(values, index):
    """Final value of m <- (m (n - 1) + v) / n over the given (value, n) pairs, n >= 1, in order."""
    if values.size == 0:
        return 0.0
    n = index.astype(float)
    log_keep = np.zeros(n.size)
    above = n > 1
    log_keep[above] = np.log1p(-1.0 / n[above])
    log_keep[~above] = -np.inf
    # weight of value k = product over later regular packets l of (n_l - 1) / n_l
    later = np.concatenate((np.cumsum(log_keep[::-1])[::-1][1:], [0.0]))
    return float(np.sum(values / n * np.exp(later)))


def stream_stats(packets, ms_from):
    """Statistics of one stream's packets (an ``RtpPackets`` in capture order).

    ``ms_from`` is the capture's first timestamp in ns, the origin of times.
    """
    t = (packets.time_ns - ms_from) / 1e6
    seq = packets.seq.astype(np.int64)
    pt = packets.payload_type.astype(np.int64)
    count = t.size
    since_first = (packets.rtp_timestamp.astype(np.int64) - int(packets.rtp_timestamp[0])) % RTP_TIMESTAMP_MODULO
    in_order = since_first < RTP_TIMESTAMP_MODULO // 2
    per_ms = _clock_per_ms(pt)
    timed = in_order & (per_ms > 0)
    nominal = since_first / np.where(per_ms > 0, per_ms, 1)

    time_ref = _previous_in_order(in_order)
    nominal_ref = _previous_in_order(timed | (np.arange(count) == 0))
    delta = t - t[time_ref]
    transit_difference = t - (t[time_ref] + nominal - nominal[nominal_ref])
    timed[0] = False
    jitter = np.zeros(count)
    if timed.any():
        jitter[timed] = running_jitter(transit_difference[timed])
        carried = np.maximum.accumulate(np.where(timed, np.arange(count), 0))
        jitter = jitter[carried]

    previous_pt = np.concatenate(([pt[0]], pt[:-1]))
    regular = in_order & ~packets.marker & ~np.isin(pt, COMFORT_NOISE) & ~np.isin(previous_pt, COMFORT_NOISE)
    regular[0] = False
    max_delta = float(max(0.0, delta[regular].max(initial=0.0)))
    rated = regular & timed
    any_rate = bool((per_ms > 0).any())
    max_jitter = float(max(0.0, jitter[rated].max(initial=0.0))) if any_rate else None
    mean_jitter = _running_mean(jitter[rated], np.flatnonzero(rated)) if any_rate else None

    cycles = _sequence_cycles(seq, in_order)
    expected = int(seq[-1] + cycles * RTP_SEQ_MODULO - seq[0] + 1)
    return StreamStats(
        src=RtpPackets.address(packets.src[0], packets.ip_version[0]), src_port=int(packets.src_port[0]),
        dst=RtpPackets.address(packets.dst[0], packets.ip_version[0]), dst_port=int(packets.dst_port[0]),
        ssrc=int(packets.ssrc[0]), payload_types=tuple(int(p) for p in dict.fromkeys(pt.tolist())),
        packets=count, expected=expected, lost=expected - count,
        start_s=float(t[0] / 1e3), end_s=float(t[-1] / 1e3),
        max_delta_ms=max_delta, max_jitter_ms=max_jitter, mean_jitter_ms=mean_jitter)


def split_streams(packets):
    """Index arrays of each stream's packets in capture order, streams in order of first packet."""
    if len(packets) == 0:
        return []
    words = [packets.ssrc.astype(np.uint64), packets.src_port.astype(np.uint64),
             packets.dst_port.astype(np.uint64)]
    for address in (packets.src, packets.dst):
        halves = np.ascontiguousarray(address).view(">u8")
        words += [halves[:, 0], halves[:, 1]]
    order = np.lexsort(words[::-1])
    keys = np.stack([word[order] for word in words], axis=1)
    boundary = np.concatenate(([True], np.any(keys[1:] != keys[:-1], axis=1)))
    bounds = np.concatenate((np.flatnonzero(boundary), [order.size]))
    streams = [np.sort(order[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]
    return sorted(streams, key=lambda index: index[0])


def capture_streams(packets):
    """``StreamStats`` of every stream in an ``RtpPackets``, in order of each stream's first packet."""
    return [stream_stats(packets.take(index), packets.first_time_ns) for index in split_streams(packets)]
