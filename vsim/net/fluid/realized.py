"""A drop-tail FIFO whose fluid is realized packet by packet: the jointly overloaded queue.

When a flood offers less than the queue serves but the flood and the
discrete frames together offer more, the queue fills to its limit and the
excess is dropped from both: under drop-tail a flood packet that arrives
while the queue is full is lost like any frame. What decides who loses is
the order of single packets at the limit: a departure opens one place, the
next arrival takes it, a tight burst of frames needs many places at once
and finds those its own earlier departures and the flood's gaps left. A
fluid, whose backlog below its own capacity only ever drains, would never
be dropped there and would push the whole excess onto the frames.

So in that regime the flood's packets are drawn one by one (Poisson at the
fluid's packet rate, as the free-place law of ``free_slots`` assumes for
the overloaded flood) and every packet, flood or frame, goes through an
exact drop-tail FIFO: admitted if what is in the system (less the packet in
service, with ``excludes_in_service``) plus its size fits the limit, served
in arrival order. The cost is one loop step per packet, so it is meant for
the regime it is used in, where the flood is light enough not to overload
the queue on its own.
"""

from collections import deque

import numpy as np

TOLERANCE = 1e-9
"""Relative slack in the limit test, as in ``vsim.net.fluid.queue``."""


class RealizedFlood:
    """Packets in the system of one FIFO of ``limit`` units, the flood's drawn one by one."""

    def __init__(self, limit, excludes_in_service, rng):
        self.limit = float(limit)
        self.excludes_in_service = excludes_in_service
        self.rng = rng
        self.t = 0.0
        self.rate = 1.0
        self.free_at = 0.0
        self.flood_pps = 0.0
        self.flood_work = 0.0
        self.flood_units = 0.0
        self.flood_offered = 0
        self.flood_accepted = 0
        self._system = deque()  # (departure, service start, units) in departure order
        self._occupied = 0.0

    def begin(self, t, rate, flood_pps, flood_work, flood_units, backlog_work, discrete):
        """Start at ``t`` from a fluid state: ``backlog_work`` of link work queued in all,
        ``discrete`` = (departures, works, units) of the frames among it; the rest is the
        flood's, cut into packets of ``flood_work`` placed in the service gaps the frames leave.
        From ``t`` the queue serves at ``rate`` and the flood offers ``flood_pps`` packets/s of
        ``flood_work`` link work and ``flood_units`` limit units each."""
        self.t, self.rate = float(t), float(rate)
        self.flood_pps, self.flood_work, self.flood_units = flood_pps, flood_work, flood_units
        self.free_at = t + backlog_work / rate
        dep, dwork, dunits = (np.asarray(a, dtype=float) for a in discrete)
        keep = dep > t
        dep, dwork, dunits = dep[keep], dwork[keep], dunits[keep]
        flood_dep = self._flood_in_gaps(t, dep, dwork / rate)
        starts = np.concatenate((dep - dwork / rate, flood_dep - flood_work / rate))
        entries = sorted(zip(np.concatenate((dep, flood_dep)).tolist(), starts.tolist(),
                             np.concatenate((dunits, np.full(flood_dep.size, flood_units))).tolist()))
        self._system = deque(entries)
        self._occupied = float(sum(entry[2] for entry in entries))

    def _flood_in_gaps(self, t, dep, service):
        """Departures of the flood's whole packets in the busy time from ``t`` to ``free_at``
        that the frames (departing at ``dep`` after ``service``) do not take."""
        starts = np.maximum(dep - service, t)
        gap_starts = np.concatenate(([t], dep))
        gap_ends = np.concatenate((starts, [self.free_at]))
        gaps = np.maximum(gap_ends - gap_starts, 0.0)
        served = np.concatenate(([0.0], np.cumsum(gaps)))
        per_packet = self.flood_work / self.rate
        count = int(round(served[-1] / per_packet)) if per_packet > 0 else 0
        if count <= 0:
            return np.empty(0)
        ends = served[-1] - per_packet * np.arange(count - 1, -1, -1)
        ends = ends[ends > 0]
        # fluid service time -> clock time: inside gap i, clock = gap_start + (served - served_i)
        # (a packet ending on a gap's end belongs to that gap, whatever the rounding of the sums)
        gap = np.clip(np.searchsorted(served, ends - TOLERANCE * per_packet, side="left") - 1,
                      0, gaps.size - 1)
        return gap_starts[gap] + ends - served[gap]

    def backlog_work(self, t):
        """Link work queued or in service at ``t`` (the server is busy until ``free_at``)."""
        return max(0.0, self.free_at - t) * self.rate

    def in_system_units(self, t):
        """Units of everything in the system at ``t``."""
        self._leave(t)
        return self._occupied

    def advance(self, t):
        """Let the flood's packets arrive up to ``t``."""
        self._run(t, np.empty(0), np.empty(0), np.empty(0))

    def offer(self, times, work, units):
        """Frames arriving at ``times`` (sorted, not before ``t``) with their link work and
        units, among the flood's packets up to the last of them: departures, NaN if dropped."""
        return self._run(float(times[-1]), times, work, units)

    def _run(self, until, times, work, units):
        span = until - self.t
        if span < 0:
            raise ValueError(f"time {until!r} precedes the queue's time {self.t!r}")
        count = self.rng.poisson(self.flood_pps * span) if span > 0 and self.flood_pps > 0 else 0
        flood = np.sort(self.rng.uniform(self.t, until, count)) if count else np.empty(0)
        self.flood_offered += count
        at = np.concatenate((flood, times))
        is_frame = np.concatenate((np.zeros(count, bool), np.ones(times.size, bool)))
        order = np.argsort(at, kind="stable")  # at equal times the flood's packet first
        service = np.concatenate((np.full(count, self.flood_work / self.rate),
                                  np.asarray(work, dtype=float) / self.rate))
        size = np.concatenate((np.full(count, self.flood_units), np.asarray(units, dtype=float)))
        departures = np.full(at.size, np.nan)
        limit = self.limit * (1 + TOLERANCE)
        system = self._system
        for i in order.tolist():
            arrival = float(at[i])
            self._leave(arrival)
            occupied = self._occupied
            if self.excludes_in_service and system and system[0][1] <= arrival:
                occupied -= system[0][2]
            if occupied + size[i] > limit:
                continue
            start = max(arrival, self.free_at)
            done = start + float(service[i])
            self.free_at = done
            system.append((done, start, float(size[i])))
            self._occupied += float(size[i])
            departures[i] = done
        self.flood_accepted += int(np.count_nonzero(~np.isnan(departures[:count])))
        self.t = until
        self._leave(until)
        return departures[count:]

    def _leave(self, t):
        """Take out of the system what has departed by ``t``."""
        system = self._system
        while system and system[0][0] <= t:
            self._occupied -= system.popleft()[2]
        if not system:
            self._occupied = 0.0
