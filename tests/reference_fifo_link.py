"""A drop-tail FIFO queue in front of a link, for frames of any sizes: the reference model.

The simulator's FIFOs (``vsim.net.uniform_fifo`` for one frame size, the
uplink schedulers' packet queues, pfifo) are tested against it frame by frame.

Packets are offered in batches of non-decreasing arrival times and the whole
batch is resolved at once, without per-packet events. Each packet is served in
arrival order for its serialization time on the wire (framing overhead
included), so its transmission ends at ``D_i = max(A_i, D_{i-1}) + S_i``
(Lindley's recursion). A packet is dropped when the buffer already holds
``buffer_packets`` packets waiting behind the one in transmission.

Resolution is exact. The recursion is solved with cumulative sums and a running
maximum as if nothing dropped, and the buffer occupancy each packet would see is
counted with a binary search; the vectorised result stands up to the first
packet that would find the buffer full. From there a per-packet loop takes over
(dropping whole runs of arrivals that meet a full buffer at once) until a packet
arrives to an empty queue well after the last drop, where the vectorised path
resumes on windows that start small and double, so that frequent overflow costs
time linear in the batch.

Only the newest ``buffer_packets + 1`` accepted packets matter to the drop test.
For the counters over time the link keeps, batch by batch, the packets that had
not reached the far end at the latest offered arrival, so its memory is bounded
by the buffer plus what is propagating, not by the history.
"""

import collections
import math

import numpy as np

from vsim.net.frames import serialization_time
from vsim.net.uniform_fifo import DRAINED


class FifoLink:
    """Drop-tail FIFO of ``buffer_packets`` waiting places before a ``rate_bps`` link.

    ``buffer_packets`` may be ``math.inf`` for an unbounded queue. ``latency``
    is a fixed propagation delay added after transmission. Counters:
    ``offered``, ``sent`` (accepted packets), ``dropped`` and ``busy_time``
    (seconds of transmission accepted so far).
    """

    _RESTART_WINDOW = 64
    """Packets in the first vectorised window after an overflow episode."""

    def __init__(self, rate_bps, buffer_packets, latency=0.0):
        if not rate_bps > 0:
            raise ValueError(f"rate_bps must be positive, got {rate_bps!r}")
        if buffer_packets != math.inf and (
                int(buffer_packets) != buffer_packets or buffer_packets < 0):
            raise ValueError(
                f"buffer_packets must be a non-negative integer or math.inf, got {buffer_packets!r}")
        if not latency >= 0:
            raise ValueError(f"latency must be non-negative, got {latency!r}")
        self.rate_bps = float(rate_bps)
        self.buffer_packets = buffer_packets if buffer_packets == math.inf else int(buffer_packets)
        self.latency = float(latency)
        self.offered = 0
        self.sent = 0
        self.dropped = 0
        self.busy_time = 0.0
        self._tail_length = 1 if buffer_packets == math.inf else self.buffer_packets + 1
        self._tail = np.empty(0)
        self._horizon = -math.inf
        self._record: collections.deque[tuple] = collections.deque()
        self._departed_before_horizon = 0

    def offer(self, times, ip_bytes):
        """Queue a batch; return (far-end arrival times, dropped mask).

        ``times`` is a non-decreasing array of arrival times, none earlier than
        an arrival already offered. ``ip_bytes`` is an array of IP packet sizes
        or one size for all. A returned time is the end of transmission plus
        ``latency``; it is NaN for a dropped packet.
        """
        times = np.asarray(times, dtype=float)
        if times.ndim != 1:
            raise ValueError("times must be a one-dimensional array")
        if times.size and not (times[0] >= self._horizon and np.all(np.diff(times) >= 0)):
            raise ValueError("arrival times must be non-decreasing and not earlier than those already offered")
        service = np.broadcast_to(serialization_time(np.asarray(ip_bytes), self.rate_bps),
                                  times.shape).astype(float)
        ends = np.full(times.size, np.nan)
        dropped = np.zeros(times.size, dtype=bool)
        i, window = 0, times.size
        while i < times.size:
            i = self._serve_vectorised(times, service, ends, i, window)
            if i < times.size:
                i = self._serve_overflow(times, service, ends, dropped, i)
                window = self._RESTART_WINDOW
        self.offered += times.size
        self.dropped += int(np.count_nonzero(dropped))
        if times.size:
            self._record.append((ends[~dropped], service[~dropped]))
            self._forget_before(times[-1])
        return ends + self.latency, dropped

    def departed(self, t):
        """Accepted packets that have reached the far end by time ``t``.

        ``t`` may not precede the latest offered arrival: earlier history is
        summarised into a count.
        """
        self._check_not_forgotten(t)
        return self._departed_before_horizon + sum(
            int(np.searchsorted(chunk_ends + self.latency, t, side="right"))
            for chunk_ends, _ in self._record)

    def in_flight(self, t):
        """Accepted packets queued, in transmission or propagating at time ``t``."""
        return self.sent - self.departed(t)

    def utilisation(self, t_end):
        """Fraction of ``[0, t_end]`` during which the link was transmitting."""
        self._check_not_forgotten(t_end)
        if not t_end > 0:
            raise ValueError(f"t_end must be positive, got {t_end!r}")
        after = sum(float(np.clip(chunk_ends - t_end, 0.0, chunk_service).sum())
                    for chunk_ends, chunk_service in self._record)
        return (self.busy_time - after) / t_end

    def _serve_vectorised(self, times, service, ends, start, window):
        """Accept packets from ``start`` until one would meet a full buffer; return its index.

        The packets are resolved in windows, starting with ``window`` packets
        and doubling while no packet meets a full buffer, so that a batch whose
        buffer overflows often does not pay for its whole remainder each time.
        """
        while start < times.size:
            stop = min(times.size, start + window)
            arrivals = times[start:stop]
            work = service[start:stop]
            done = np.cumsum(work)
            done_before = np.concatenate(([0.0], done[:-1]))
            last_end = self._tail[-1] if self._tail.size else -math.inf
            candidate = done + np.maximum(last_end, np.maximum.accumulate(arrivals - done_before))
            accepted = candidate.size
            if self.buffer_packets != math.inf:
                earlier = np.concatenate((self._tail, candidate))
                behind = self._tail.size + np.arange(candidate.size)
                in_system = behind - np.searchsorted(earlier, arrivals + DRAINED * work,
                                                     side="right")
                full = np.flatnonzero(in_system > self.buffer_packets)
                if full.size:
                    accepted = int(full[0])
            ends[start:start + accepted] = candidate[:accepted]
            self._accept(candidate[:accepted], work[:accepted])
            start += accepted
            if accepted < candidate.size:
                break
            window *= 2
        return start

    def _serve_overflow(self, times, service, ends, dropped, start):
        """Resolve packets one by one from ``start``; return the index where the loop hands back.

        The loop hands back to the vectorised path at a packet that finds the
        queue empty, once ``_RESTART_WINDOW`` packets have passed without a
        drop: while drops are frequent, the loop is the cheaper of the two.
        """
        capacity = self.buffer_packets + 1
        in_system = collections.deque(
            self._tail[self._tail > times[start] + DRAINED * service[start]].tolist())
        last_end = float(self._tail[-1])
        busy = 0.0
        last_drop = start
        i = start
        while i < times.size:
            arrival = float(times[i])
            while in_system and in_system[0] <= arrival + DRAINED * float(service[i]):
                in_system.popleft()
            if not in_system and i - last_drop >= self._RESTART_WINDOW:
                break
            if len(in_system) >= capacity:
                stop = int(np.searchsorted(times, in_system[0] - DRAINED * float(service[i]),
                                           side="left"))
                dropped[i:stop] = True
                i = last_drop = stop
                continue
            last_end = max(arrival, last_end) + float(service[i])
            in_system.append(last_end)
            ends[i] = last_end
            busy += float(service[i])
            self.sent += 1
            i += 1
        self.busy_time += busy
        self._tail = np.array(in_system)
        return i

    def _accept(self, new_ends, new_service):
        """Count packets accepted by the vectorised path and remember the newest for the buffer check."""
        self._tail = np.concatenate((self._tail, new_ends))[-self._tail_length:]
        self.sent += new_ends.size
        self.busy_time += float(new_service.sum())

    def _forget_before(self, t):
        """Drop the records of packets that reached the far end by ``t``, keeping their count."""
        while self._record:
            chunk_ends, chunk_service = self._record[0]
            gone = int(np.searchsorted(chunk_ends + self.latency, t, side="right"))
            self._departed_before_horizon += gone
            if gone < chunk_ends.size:
                self._record[0] = (chunk_ends[gone:], chunk_service[gone:])
                break
            self._record.popleft()
        self._horizon = float(t)

    def _check_not_forgotten(self, t):
        if t < self._horizon:
            raise ValueError(
                f"time {t!r} precedes the latest offered arrival {self._horizon!r}; "
                "the link no longer holds that history")
