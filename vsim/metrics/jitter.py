"""RFC 3550 interarrival jitter, as an RTP receiver computes it.

RFC 3550 section 6.4.1 defines the jitter of one RTP stream as a running,
exponentially smoothed mean of the transit-time differences of consecutive
packets:

    D_i = (R_i - R_{i-1}) - (S_i - S_{i-1})
    J_i = J_{i-1} + (|D_i| - J_{i-1}) / 16,   J = 0 at the first packet

where S is the send time and R the receive time. The recursion is a
first-order IIR filter on |D|, evaluated as ``scipy.signal.lfilter`` would,
bit for bit, by ``vsim.metrics.first_order`` (without importing scipy); the
streams of ``stream_jitter_samples`` are stepped together, one numpy operation
per packet index across all of them. Times are in seconds and
the jitter comes out in the same unit.

``running_jitter`` is that recursion alone, for callers that define D their
own way (a capture reader measures it against the last in-time packet, with
S from RTP timestamps); it is the one place the project evaluates it, so the
simulation, the probes and the capture readers agree to the last bit.
"""

import numpy as np

from vsim.metrics.first_order import first_order_filter, first_order_filter_rows

_GAIN = 1.0 / 16.0
_STEPPED_TOGETHER = 32  # streams from which stepping them together beats one at a time


def _as_1d(name, values):
    array = np.asarray(values, dtype=float)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {array.shape}")
    return array


def running_jitter(transit_differences):
    """RFC 3550's running jitter after each transit difference D, from J = 0 before the first.

    ``transit_differences`` are the D values of one stream in the order the
    receiver got the packets (signed or not: the recursion takes |D|). The
    result has one J per D; empty input gives an empty result.
    """
    magnitude = np.abs(_as_1d("transit_differences", transit_differences))
    return first_order_filter(magnitude, _GAIN, _GAIN - 1.0)


def rfc3550_jitter(send_times, recv_times):
    """Jitter of one stream after each received packet (RFC 3550 section 6.4.1).

    ``send_times`` and ``recv_times`` hold the packets of ONE stream in the
    order the receiver got them. The result has one sample per received
    packet, the jitter value the receiver holds after that packet; element 0
    is 0.0 because the first packet has no predecessor. Empty or single-packet
    input gives zeros of that length.

    Raises ValueError if the two arrays differ in length or are not 1-D.
    """
    send = _as_1d("send_times", send_times)
    recv = _as_1d("recv_times", recv_times)
    if send.shape != recv.shape:
        raise ValueError(
            f"send_times and recv_times differ in length: {send.size} != {recv.size}"
        )
    jitter = np.zeros(send.size)
    if send.size < 2:
        return jitter
    jitter[1:] = running_jitter(np.diff(recv) - np.diff(send))
    return jitter


def stream_jitter_samples(send_times, recv_times, stream_ids, warmup=0.0):
    """Pooled RFC 3550 jitter samples of several streams, after a warm-up.

    The three arrays describe packets of several streams mixed together;
    within each stream the packets must be in arrival order. Each stream's
    jitter series is computed on its own (see ``rfc3550_jitter``), so there
    is one sample per received packet, the jitter value the receiver holds
    after that packet. Samples of packets sent at or after ``warmup`` are
    kept; earlier packets still feed the receiver's running estimate, as they
    would in a real receiver. The result concatenates the streams in
    ascending stream-id order, so it is deterministic for a given input.

    Raises ValueError if the arrays differ in length or are not 1-D.
    """
    send = _as_1d("send_times", send_times)
    recv = _as_1d("recv_times", recv_times)
    ids = np.asarray(stream_ids)
    if ids.ndim != 1:
        raise ValueError(f"stream_ids must be one-dimensional, got shape {ids.shape}")
    if not send.size == recv.size == ids.size:
        raise ValueError(
            "send_times, recv_times and stream_ids differ in length: "
            f"{send.size}, {recv.size}, {ids.size}"
        )
    order = np.argsort(ids, kind="stable")
    send, recv, ids = send[order], recv[order], ids[order]
    starts = np.flatnonzero(ids[1:] != ids[:-1]) + 1
    bounds = np.concatenate(([0], starts, [ids.size]))
    jitter = np.zeros(ids.size)
    if ids.size:
        jitter[1:] = np.abs(np.diff(recv) - np.diff(send))  # D of each packet after the first
        jitter[bounds[:-1]] = 0.0  # a stream's first packet has no predecessor: J = 0
        _filter_streams(jitter, bounds)
    return jitter[send >= warmup]


def _filter_streams(magnitude, bounds):
    """Replace the |D| of each stream (``magnitude[begin + 1:end]``) with its running jitter.

    The streams are stepped together through a (stream, packet index) table padded with
    zeros, when there are enough of them to outweigh numpy's cost per call (a step costs about
    as much as 25 samples of the loop over one stream) and the table is at most a few times
    the packets (streams of similar lengths, as simulated ones are); otherwise one stream at a
    time. Both give the same bits.
    """
    lengths = np.diff(bounds) - 1
    streams = lengths.size
    longest = int(lengths.max())
    if longest == 0:
        return
    if streams < _STEPPED_TOGETHER or longest * streams > 4 * magnitude.size + 1024:
        for begin, end in zip(bounds[:-1], bounds[1:]):
            magnitude[begin + 1:end] = running_jitter(magnitude[begin + 1:end])
        return
    stream = np.repeat(np.arange(streams), lengths)
    index = np.arange(stream.size) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    cell = stream * longest + index  # each packet's place in the (stream, packet index) table
    after_first = np.ones(magnitude.size, dtype=bool)
    after_first[bounds[:-1]] = False
    packets = np.flatnonzero(after_first)
    table = np.zeros((streams, longest))
    table.ravel()[cell] = magnitude[packets]
    first_order_filter_rows(table, _GAIN, _GAIN - 1.0)
    magnitude[packets] = table.ravel()[cell]
