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

So in that regime the flood's packets are drawn one by one, each flow's as
its source declares (``vsim.net.fluid.arrivals``: evenly paced with a random
phase, or Poisson), and every packet, flood or frame, goes through an
exact drop-tail FIFO: admitted if what is in the system (less the packet in
service, with ``excludes_in_service``) plus its size fits the limit, served
in arrival order. The same FIFO takes a flood of evenly paced flows that
overloads the queue on its own, whose few free places the pinned regime's
Poisson arrivals would overstate. The cost is one loop step per packet (about
a microsecond of CPU each), so a paced flood that overloads its queue costs
about a second of CPU per million of its packets.

A batched flow whose sender's socket holds a bounded number of packets
(``WakeupBatches.send_buffer``, its send buffer over each packet's truesize)
is written one packet at a time among the others: a write that finds that
many of its packets still waiting in the queue blocks, as a Linux socket's
send does while its unsent bytes reach its buffer, and goes on once fewer
than half are left (the kernel wakes a writer then, ``sock_writeable``), its
batch following from there. A packet stops counting when the qdisc hands it on
and it is freed: when its service starts, or ``early_work`` of link work before
that under a token bucket that lets packets through ahead of this queue's
service (``vsim.net.uplink.htb``), but not before it arrived; or when it is
dropped. Its packets
among a fluid backlog the queue starts from are not known, so they do not
count.
"""

import math
from collections import deque

import numpy as np

from vsim.net.fluid.arrivals import BatchedArrivals, first_paced, paced_times, poisson_times

TOLERANCE = 1e-9
"""Relative slack in the limit test, as in ``vsim.net.fluid.queue``."""

SLICE_PACKETS = 1 << 20
"""About the most flood packets drawn at once: a flood fast enough to offer more over one
call is realized slice by slice, so memory stays bounded whatever its rate (the time taken,
one loop step per packet, does not)."""


def resumed(phases, key, pps):
    """What ``phases`` kept for flow ``key`` if it ran at ``pps`` (a paced flow's next arrival, a
    batched flow's ``BatchedArrivals``), else None."""
    earlier = phases.get(key)
    return earlier[1] if earlier is not None and earlier[0] == pps else None


class RealizedFlood:
    """Packets in the system of one FIFO of ``limit`` units, the flood's drawn one by one."""

    def __init__(self, limit, excludes_in_service, rng, early_work=0.0):
        self.limit = float(limit)
        self.early_work = float(early_work)
        self.excludes_in_service = excludes_in_service
        self.rng = rng
        self.t = 0.0
        self.rate = 1.0
        self.free_at = 0.0
        self.flood = None
        self.flood_work = 0.0
        self.flood_units = 0.0
        self.flood_offered = 0
        self.flood_accepted = 0
        self.flood_offered_work = 0.0
        self.flood_accepted_work = 0.0
        self._next_at = np.empty(0)  # each paced flow's next arrival
        self._batched = {}  # flow index -> BatchedArrivals of a flow written on wake-ups
        self._writers = {}  # ... of those whose socket blocks: flow index -> BatchedArrivals
        self._waiting = {}  # ... -> when each of its packets in the queue is handed on, in order
        self._resume = {}  # ... -> when a blocked send may go on
        self._system = deque()  # (departure, service start, units) in departure order
        self._occupied = 0.0

    def begin(self, t, rate, flood, backlog_work, discrete, phases=None):
        """Start at ``t`` from a fluid state: ``backlog_work`` of link work queued in all,
        ``discrete`` = (departures, works, units) of the frames among it; the rest is the
        flood's, cut into packets of its mean size placed in the service gaps the frames leave.
        From ``t`` the queue serves at ``rate`` and the flood's flows (``FloodPackets``) offer
        their packets; a paced flow whose key ``phases`` holds (from ``phases()`` of an earlier
        realization) at the same rate keeps its spacing, any other gets a random phase."""
        self.t, self.rate = float(t), float(rate)
        self.flood = flood
        total = float(flood.pps.sum())
        self.flood_work = float(flood.pps @ flood.work) / total if total > 0 else 0.0
        self.flood_units = float(flood.pps @ flood.units) / total if total > 0 else 0.0
        phases = phases or {}
        self._next_at = np.array([
            first_paced(self.rng, t, 1.0 / pps, resumed(phases, key, pps)) if paced else np.nan
            for pps, paced, key in zip(flood.pps.tolist(), flood.paced.tolist(), flood.keys)])
        self._batched = {}
        for i, (pps, key) in enumerate(zip(flood.pps.tolist(), flood.keys)):
            batches = flood.batches_of(i)
            if batches is not None:
                kept = resumed(phases, key, pps)
                self._batched[i] = kept if isinstance(kept, BatchedArrivals) else \
                    BatchedArrivals(self.rng, pps, batches, t)
        self._writers = {i: arrivals for i, arrivals in self._batched.items()
                         if flood.batches_of(i).send_buffer > 0}
        self._waiting = {i: deque() for i in self._writers}
        self._resume = dict.fromkeys(self._writers, -math.inf)
        self.free_at = t + backlog_work / rate
        dep, dwork, dunits = (np.asarray(a, dtype=float) for a in discrete)
        keep = dep > t
        dep, dwork, dunits = dep[keep], dwork[keep], dunits[keep]
        flood_dep = self._flood_in_gaps(t, dep, dwork / rate)
        starts = np.concatenate((dep - dwork / rate, flood_dep - self.flood_work / rate))
        units = np.concatenate((dunits, np.full(flood_dep.size, self.flood_units)))
        entries = sorted(zip(np.concatenate((dep, flood_dep)).tolist(), starts.tolist(),
                             units.tolist()))
        self._system = deque(entries)
        self._occupied = float(sum(entry[2] for entry in entries))

    def phases(self):
        """Key -> (packets/s, next arrival) of the paced flows and (packets/s, their
        ``BatchedArrivals``) of the batched ones, for a later realization."""
        kept = {key: (pps, float(next_at)) for key, pps, paced, next_at in
                zip(self.flood.keys, self.flood.pps.tolist(), self.flood.paced.tolist(),
                    self._next_at) if paced}
        for i, arrivals in self._batched.items():
            kept[self.flood.keys[i]] = (float(self.flood.pps[i]), arrivals)
        return kept

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

    def advance(self, t):
        """Let the flood's packets arrive up to ``t``."""
        self._run(t, np.empty(0), np.empty(0), np.empty(0))

    def offer(self, times, work, units):
        """Frames arriving at ``times`` (sorted, not before ``t``) with their link work and
        units, among the flood's packets up to the last of them: departures, NaN if dropped."""
        return self._run(float(times[-1]), times, work, units)

    def _flood_arrivals(self, until):
        """The flood's packets from ``t`` to ``until``, sorted: (times, link work, units)."""
        flood = self.flood
        times, work, units = [], [], []
        for i in range(len(flood)):
            if i in self._writers:  # written one at a time in the loop (``_write``)
                continue
            if flood.paced[i]:
                arrived, self._next_at[i] = paced_times(self._next_at[i], 1.0 / flood.pps[i], until)
            elif i in self._batched:
                arrived = self._batched[i].times(until)
            else:
                arrived = poisson_times(self.rng, flood.pps[i], self.t, until)
            times.append(arrived)
            work.append(np.full(arrived.size, flood.work[i]))
            units.append(np.full(arrived.size, flood.units[i]))
        if len(times) <= 1:
            return (times[0], work[0], units[0]) if times else (np.empty(0),) * 3
        times, work, units = (np.concatenate(x) for x in (times, work, units))
        order = np.argsort(times, kind="stable")
        return times[order], work[order], units[order]

    def _run(self, until, times, work, units):
        """The flood's packets and the frames up to ``until``, in slices of time holding about
        ``SLICE_PACKETS`` of the flood's packets each: the frames' departures, NaN if dropped."""
        if until < self.t:
            raise ValueError(f"time {until!r} precedes the queue's time {self.t!r}")
        total = float(self.flood.pps.sum())
        step = SLICE_PACKETS / total if total > 0 else math.inf
        times = np.asarray(times, dtype=float)
        work = np.broadcast_to(np.asarray(work, dtype=float), times.shape)
        units = np.broadcast_to(np.asarray(units, dtype=float), times.shape)
        departures = []
        while until - self.t > step:
            end = self.t + step
            cut = int(np.searchsorted(times, end, side="left"))  # a frame at ``end`` goes on
            departures.append(self._slice(end, times[:cut], work[:cut], units[:cut]))
            times, work, units = times[cut:], work[cut:], units[cut:]
        departures.append(self._slice(until, times, work, units))
        return np.concatenate(departures)

    def _slice(self, until, times, work, units):
        """The flood's packets from ``t`` to ``until`` and the frames at ``times`` among them."""
        flood, flood_work, flood_units = self._flood_arrivals(until)
        count = flood.size
        self.flood_offered += count
        self.flood_offered_work += float(flood_work.sum())
        at = np.concatenate((flood, times))
        order = np.argsort(at, kind="stable")  # at equal times the flood's packet first
        service = np.concatenate((flood_work, np.asarray(work, dtype=float))) / self.rate
        size = np.concatenate((flood_units, np.asarray(units, dtype=float)))
        departures = np.full(at.size, np.nan)
        limit = self.limit * (1 + TOLERANCE)
        drawn = order.tolist()
        ahead = 0
        while True:
            if self._writers:  # a blocking sender's next write, if it comes first
                flow, when = self._next_write()
                if when < until and (ahead == len(drawn) or when <= at[drawn[ahead]]):
                    self._write(flow, when, limit)
                    continue
            if ahead == len(drawn):
                break
            i = drawn[ahead]
            ahead += 1
            if self._admit(float(at[i]), float(service[i]), float(size[i]), limit) is not None:
                departures[i] = self.free_at
        accepted = ~np.isnan(departures[:count])
        self.flood_accepted += int(np.count_nonzero(accepted))
        self.flood_accepted_work += float(flood_work[accepted].sum())
        self.t = until
        self._leave(until)
        return departures[count:]

    def _next_write(self):
        """(flow, time) of the earliest next write of the senders whose socket blocks."""
        return min(((flow, max(writer.peek(), self._resume[flow])) for flow, writer in self._writers.items()),
                   key=lambda pair: (pair[1], pair[0]))

    def _write(self, flow, when, limit):
        """Flow ``flow``'s sender writes its next packet at ``when``, or finds its socket full
        and blocks until fewer than half of ``send_buffer`` of its packets are left waiting."""
        waiting = self._waiting[flow]
        while waiting and waiting[0] <= when:
            waiting.popleft()
        send_buffer = self.flood.batches[flow].send_buffer
        if len(waiting) >= send_buffer:  # the send may go on once fewer than half are held
            kept = math.ceil(send_buffer / 2) - 1
            self._resume[flow] = waiting[len(waiting) - kept - 1]
            return
        self._writers[flow].wrote(when)
        work, units = float(self.flood.work[flow]), float(self.flood.units[flow])
        self.flood_offered += 1
        self.flood_offered_work += work
        start = self._admit(when, work / self.rate, units, limit)
        if start is None:
            return
        waiting.append(max(when, start - self.early_work / self.rate))
        self.flood_accepted += 1
        self.flood_accepted_work += work

    def _admit(self, arrival, service, units, limit):
        """A packet of ``units`` needing ``service`` s arrives: its service start, the server
        busy until it is done (``free_at``), or None when the FIFO has no room for it."""
        self._leave(arrival)
        occupied = self._occupied
        system = self._system
        if self.excludes_in_service and system and system[0][1] <= arrival:
            occupied -= system[0][2]
        if occupied + units > limit:
            return None
        start = max(arrival, self.free_at)
        self.free_at = start + service
        system.append((self.free_at, start, units))
        self._occupied += units
        return start

    def _leave(self, t):
        """Take out of the system what has departed by ``t``."""
        system = self._system
        while system and system[0][0] <= t:
            self._occupied -= system.popleft()[2]
        if not system:
            self._occupied = 0.0
