"""One drop-tail FIFO queue carrying fluid bulk traffic and discrete packets.

Bulk traffic (floods, TCP streams, NFS, vMotion) enters as a *fluid*: an
offered work rate (seconds of the link per second), piecewise constant,
changed with ``set_fluid``. Voice and request/response packets enter with
``offer`` as arrays of arrival times, each with its work (service time at
the full link rate) and its size in the queue's limit unit (1 per packet,
or its frame bytes). The queue is served at ``rate`` (a fraction of the
link; 1 for a plain FIFO, the allocated share for a class queue of a
share-based scheduler).

State between events is the total backlog ``work`` (seconds of link time
queued, fluid and packets together) and the discrete packets still in the
system (their departure times). The limit counts what the real queue counts:
in packets the fluid backlog is its work divided by the fluid's work per
packet, in bytes by its work per byte; the packets count as themselves.

A packet sees one of three regimes:

- *open*: the fluid does not hold the queue at its limit. The backlog
  evolves deterministically (fluid in at its rate, out at ``rate``), each
  packet waits for the work ahead of it (Lindley's recursion, vectorised
  over a burst with cumulative sums and a running maximum) and is dropped if
  its size does not fit under the limit. Packets alone are an exact
  drop-tail FIFO queue. A fluid below the queue's rate never queues on its
  own, but its packets hold the server ``fluid_work / rate`` of the time: a
  packet arriving then waits out the rest of the fluid packet in service
  (``wire_rest``), unless more work than that is ahead of it anyway.
- *pinned*: the fluid offers more than ``rate`` and has filled the queue,
  its packets arriving as a Poisson stream (a flood whose flows are all
  declared ``"poisson"``). The free places come from the fluid's discreteness
  (``vsim.net.fluid.free_slots``): a burst finds the free places of a
  random instant, then places open at the departure rate and the fluid's
  packets (Poisson, drawn only for the burst's span) take them; the burst's
  packets take what is free when they arrive, in order, so the first
  packets of a burst fit more often than the last. A packet that fits waits
  for the full queue less its free places. Packets more than
  ``MIXING_SERVICES`` fluid service times apart see independent instants.
- *joint*: the fluid offers less than ``rate`` on its own, but with the
  discrete traffic declared to the queue (``set_fluid``'s ``discrete_work``,
  the mean work rate of the frames that will be offered) more. The queue
  then fills to its limit and the excess must be dropped from the flood as
  well as from the frames, which the fluid (whose backlog below its own
  capacity only drains) cannot be; the flood's packets are realized one by
  one, each flow's as its source declares (``set_fluid``'s ``packets``:
  paced or Poisson, ``vsim.net.fluid.arrivals``), and the queue is an exact
  per-packet drop-tail FIFO (``vsim.net.fluid.realized``) for as long as the
  regime holds. A flood with evenly paced flows that overloads the queue on
  its own is realized the same way: the free places of the pinned regime
  come from Poisson arrivals, and paced packets leave far fewer (at the
  voip-vsphere5 Fig 6 load a tick's voice frames lose 30 % of themselves to
  a paced flood, 12 % to a Poisson one), so that regime would not be the
  same queue as the one the flood meets when it fits alone.

Fluid accounting is exact bookkeeping on the backlog: accepted fluid work =
backlog change + work served - packet work added, so offered = accepted +
dropped holds by construction and, under persistent overload, the long-run
fluid loss is (offered - served) / offered.
"""

import math
from bisect import bisect_left

import numpy as np

from vsim.net.fluid.arrivals import FloodPackets
from vsim.net.fluid.burst import fifo_departures, merge_events, open_burst, pinned_walk
from vsim.net.fluid.free_slots import draw_free_slots
from vsim.net.fluid.in_system import InSystem, numpy_sum
from vsim.net.fluid.realized import RealizedFlood

MAX_TAKEN_MEAN = 1e15
"""Cap on the mean number of fluid packets drawn for one gap of a pinned run: far above any
number of places a run can open, so the capped draw takes every free place as the uncapped
one would, and numpy's Poisson sampler stays within its range however long a gap (one
service time of a very slow link)."""

MIXING_SERVICES = 200
"""Gap, in fluid service times, past which a packet sees the free places of
an independent random instant instead of following the walk from the packet
before. The walk of free places relaxes geometrically (ratio ``s`` of
``vsim.net.fluid.free_slots``, 0.87 at offered/served = 1.07); 200 services
is many relaxation times for any overload above about 1.05, and shorter
gaps are followed event by event."""

TOLERANCE = 1e-9
"""Relative slack in the limit test, so rounding in sums never drops a packet that fits."""


class FluidPacketQueue:
    """A drop-tail queue of ``limit`` places in ``unit`` ("packets" or "bytes").

    By default the limit counts every packet in the system, the one in
    service included. With ``excludes_in_service`` it counts only those
    waiting behind it, as Linux's pfifo and bfifo do once the driver has
    taken the packet (a fluid packet in service frees its share likewise).
    """

    def __init__(self, limit, unit, rng, excludes_in_service=False):
        if unit not in ("packets", "bytes"):
            raise ValueError(f"unit must be 'packets' or 'bytes', got {unit!r}")
        if not limit > 0:
            raise ValueError(f"limit must be positive, got {limit!r}")
        self.limit = float(limit)
        self.unit = unit
        self.excludes_in_service = excludes_in_service
        self.rng = rng
        self.rate = 1.0
        self.t = 0.0
        self.work = 0.0
        self.fluid_work = 0.0
        self.fluid_pps = 0.0
        self.fluid_units = 0.0
        self.discrete_work = 0.0
        self.flood_packets = None
        self.realized = None
        self.early_work = 0.0  # link work by which the qdisc hands a packet on before its service here
        self._phases = {}
        self.run_start_work = 0.0
        self.units_per_work = None
        self.work_per_packet = None
        self.fluid_offered_work = 0.0
        self.fluid_accepted_work = 0.0
        self.packets_offered = 0
        self.packets_dropped = 0
        self.packets_accepted = 0
        self._held = InSystem()

    # ------------------------------------------------------------ configuration
    def set_rate(self, t, rate):
        """From ``t`` the queue is served at ``rate`` (fraction of the link, > 0)."""
        if not rate > 0:
            raise ValueError(f"rate must be positive, got {rate!r}")
        self.advance(t)
        self._end_joint()
        self.rate = float(rate)
        self._begin_joint()

    def set_limit(self, t, limit):
        """From ``t`` the queue holds ``limit`` units (> 0). Packets already in it stay; a fluid
        backlog above the new limit is dropped, counted as fluid refused."""
        if not limit > 0:
            raise ValueError(f"limit must be positive, got {limit!r}")
        if limit == self.limit:
            return
        self.advance(t)
        self._end_joint()
        self.limit = float(limit)
        cap = self._work_cap(self.t)
        if self.work > cap and self.fluid_work > 0:
            self.fluid_accepted_work -= self.work - cap
            self.work = cap
        self._begin_joint()

    def set_early(self, t, work):
        """From ``t`` the qdisc hands each packet on ``work`` link-seconds before its service
        starts here (a token bucket's depth ahead of the queue; 0: at its start), which is when
        a sender's socket stops holding it (``vsim.net.fluid.realized``). Only such a
        sender's writes read it, so nothing else changes."""
        self.advance(t)
        self.early_work = float(work)
        if self.realized is not None:
            self.realized.early_work = self.early_work

    def set_fluid(self, t, work_rate, packet_rate, unit_rate, discrete_work=0.0, packets=None):
        """From ``t`` the fluid offers ``work_rate`` link-seconds/s in ``packet_rate``
        packets/s totalling ``unit_rate`` limit units/s, beside discrete packets expected to
        bring ``discrete_work`` link-seconds/s (their declared mean: it decides whether the
        two together overload the queue, the joint regime). ``packets`` (``FloodPackets``,
        the same totals) says the fluid's flows and how each one's packets arrive, for the
        joint regime; without it the fluid is one Poisson flow."""
        if work_rate < 0 or packet_rate < 0 or unit_rate < 0 or discrete_work < 0:
            raise ValueError("fluid rates must be non-negative")
        if (work_rate > 0) != (packet_rate > 0):
            raise ValueError("a fluid with work must have packets, and the reverse")
        self.advance(t)
        self._end_joint()
        self.fluid_work = float(work_rate)
        self.fluid_pps = float(packet_rate)
        self.fluid_units = float(unit_rate)
        self.discrete_work = float(discrete_work)
        if work_rate > 0:
            self.units_per_work = unit_rate / work_rate
            self.work_per_packet = work_rate / packet_rate
            self.flood_packets = packets if packets is not None else FloodPackets.poisson(
                packet_rate, self.work_per_packet, unit_rate / packet_rate)
        else:
            self.flood_packets = None
        self._begin_joint()

    # ------------------------------------------------------------ joint regime
    def jointly_overloaded(self):
        """Whether the fluid alone fits the queue's rate but fluid and declared packets do not,
        by more than rounding: elastic flows (TCP) take exactly what the declared packets leave
        of the rate, a sum that may pass it in its last bit."""
        return (0 < self.fluid_work <= self.rate
                and self.rate * (1 + TOLERANCE) < self.fluid_work + self.discrete_work)

    def overloaded_by_paced_flood(self):
        """Whether the fluid alone offers more than the queue's rate and some of its flows
        are evenly paced, which the pinned regime's Poisson free places do not describe."""
        return (self.fluid_work > self.rate and self.flood_packets is not None
                and self.flood_packets.any_regular())

    def _begin_joint(self):
        """Realize the fluid packet by packet if the queue is now jointly overloaded, or
        overloaded by a paced flood."""
        if self.realized is not None or not (self.jointly_overloaded()
                                             or self.overloaded_by_paced_flood()):
            return
        self.realized = RealizedFlood(self.limit, self.excludes_in_service, self.rng, self.early_work)
        self.realized.begin(self.t, self.rate, self.flood_packets, self.work,
                            (np.array(self._held.departures), np.array(self._held.work),
                             np.array(self._held.units)), self._phases)

    def _end_joint(self):
        """Back to the fluid: the realized queue's backlog becomes the fluid state's."""
        if self.realized is None:
            return
        self.work = self.realized.backlog_work(self.t)
        self._phases.update(self.realized.phases())
        self.realized = None

    def _realized_counts(self, before_offered, before_accepted):
        """Add the flood's work realized since it was ``before_*`` to the fluid's."""
        self.fluid_offered_work += self.realized.flood_offered_work - before_offered
        self.fluid_accepted_work += self.realized.flood_accepted_work - before_accepted

    # ------------------------------------------------------------ time
    def advance(self, t):
        """Move the fluid forward to ``t`` (no packets arrive in between)."""
        dt = t - self.t
        if dt < 0:
            raise ValueError(f"time {t!r} precedes the queue's time {self.t!r}")
        if dt == 0:
            return
        if self.realized is not None:
            counts = self.realized.flood_offered_work, self.realized.flood_accepted_work
            self.realized.advance(t)
            self._realized_counts(*counts)
            self.work = self.realized.backlog_work(t)
            self.t = float(t)
            self._forget(t)
            return
        w0 = self.work
        net = self.fluid_work - self.rate
        if net > 0:
            cap = self._work_cap(t)
            w1 = w0 + net * dt if w0 + net * dt <= cap else max(cap, w0 - self.rate * dt)
            served = self.rate * dt
        else:
            w1 = max(0.0, w0 + net * dt)
            served = self.rate * dt if w1 > 0 else w0 + self.fluid_work * dt
        self.fluid_offered_work += self.fluid_work * dt
        self.fluid_accepted_work += w1 - w0 + served
        self.work = w1
        self.t = float(t)
        self._forget(t)

    # ------------------------------------------------------------ packets
    def offer(self, times, work, units, rests=None):
        """Packets arrive at ``times`` (sorted, not before the queue's time); return departures.

        ``work`` is each packet's service time at the full link rate,
        ``units`` its size in the limit's unit (arrays, or one float for every packet). A
        dropped packet's departure
        is NaN. A departure assumes the queue's rates hold until it leaves.
        ``rests``: each packet's wait for the fluid's packet in service, already drawn
        (``wire_rest``; in the open regime only), instead of drawing them here.
        """
        times = np.asarray(times, dtype=float)
        n = times.size
        out = np.full(n, np.nan)
        if n == 0:
            return out
        self.packets_offered += n
        if type(work) is float and type(units) is float and self.realized is None:
            lists = (times.tolist(), [work] * n, [units] * n)  # one size: no arrays of costs
            units = None  # made from the list only where a drop needs it
        else:
            work = np.asarray(work, dtype=float)
            if work.shape != times.shape:
                work = np.broadcast_to(work, times.shape)
            units = np.asarray(units, dtype=float)
            if units.shape != times.shape:
                units = np.broadcast_to(units, times.shape)
            if self.realized is not None:
                return self._offer_realized(times, work, units)
            lists = (times.tolist(), work.tolist(), units.tolist())
        rest_list = None if rests is None else np.asarray(rests, dtype=float).tolist()
        i = 0
        while i < n:
            self.advance(lists[0][i])
            if self._pinned():
                i = self._offer_pinned(lists, out, i)
            else:
                i = self._offer_open(times, units, lists, out, i, rest_list)
        return out

    def in_system(self, t):
        """Packets (offered with ``offer``) queued or in transmission at ``t``."""
        return self._held.count_after(t)

    def fluid_backlog_work(self):
        """Fluid work queued at the queue's current time."""
        return max(0.0, self.work - self._discrete_at(self.t)[0])

    # ------------------------------------------------------------ internals
    def _offer_realized(self, times, work, units):
        """Packets through the per-packet FIFO of the joint regime."""
        counts = self.realized.flood_offered_work, self.realized.flood_accepted_work
        out = self.realized.offer(times, work, units)
        self._realized_counts(*counts)
        last = float(times[-1])
        self.t = last
        self._forget(last)
        kept = np.flatnonzero(~np.isnan(out))
        self._admit(work[kept].tolist(), units[kept].tolist(), out[kept].tolist())
        self._drop(int(times.size - kept.size))
        self.work = self.realized.backlog_work(last)
        return out

    def _pinned(self):
        return (self.fluid_work > self.rate
                and self.work >= self._work_cap(self.t) * (1 - TOLERANCE))

    def _discrete_at(self, t):
        """Work and units of the packets in the system at ``t``."""
        return self._held.totals_after(t)

    def _work_cap(self, t):
        """Backlog at which the fluid fills the queue to its limit at ``t``."""
        return sum(self._room(t))

    def _room(self, t):
        """(work of the packets in the system, work of fluid the rest of the limit holds) at ``t``."""
        if self.units_per_work is None:
            return 0.0, math.inf
        dwork, dunits = self._discrete_at(t)
        room = self.limit - dunits
        if self.excludes_in_service:
            room += self.fluid_units / self.fluid_pps if self.fluid_pps else 0.0
        return dwork, max(0.0, room) / self.units_per_work

    def _forget(self, t):
        self._held.forget(t)

    def _admit(self, work, units, departures):
        """Add accepted packets (lists) to those in the system (the caller sets the backlog)."""
        self.packets_accepted += len(departures)
        self._held.admit(work, units, departures)

    def _drop(self, count):
        self.packets_dropped += count

    def wire_busy(self):
        """Share of the time a fluid flowing in below the queue's rate holds its server with one
        of its packets (it never queues on its own); 0 without such a fluid."""
        if 0 < self.fluid_work < self.rate and self.fluid_pps > 0:
            return self.fluid_work / self.rate
        return 0.0

    def wire_rest_scale(self):
        """Time the fluid's packet takes in service (its whole rest), where ``wire_busy``."""
        return self.fluid_work / self.fluid_pps / self.rate

    def wire_rest(self, draws):
        """Time each packet waits for the fluid's packet in service, from the two rows of
        uniforms ``draws`` (whether one is in service, how much of it is left), where
        ``wire_busy``."""
        hit, part = draws
        return np.where(hit < self.wire_busy(), part * self.wire_rest_scale(), 0.0)

    def _offer_open(self, times, units, lists, out, start, rests=None):
        """Packets from ``start`` while the fluid does not hold the queue full; return next index.

        ``lists`` are ``times``, ``work`` and ``units`` as lists (``units`` also as an array, or
        None to make it from its list where a drop needs it), ``rests`` each packet's wait
        for a fluid packet in service, already drawn (a list, or None); the recursion over
        the burst is ``vsim.net.fluid.burst.open_burst``."""
        n = times.size
        t0, v0 = self.t, self.work / self.rate
        net = self.fluid_work - self.rate
        stop = n
        if net > 0:
            fill = t0 + (self._work_cap(t0) - self.work) / net
            stop = max(start + 1, bisect_left(lists[0], fill))
        if rests is None and self.wire_busy():  # a packet finding only a fluid packet in service waits
            rests = [0.0] * start + self.wire_rest(self.rng.random((2, stop - start))).tolist()
        fluid_packet = self.fluid_units / self.fluid_pps if self.fluid_pps else 0.0
        accepted, departures, after_last = open_burst(
            *lists, start, stop, t0, v0, net, self.rate, rests, self._held.departures, self._held.work,
            self._held.units, self.units_per_work or 0.0, self.limit * (1 + TOLERANCE),
            self.excludes_in_service, fluid_packet, TOLERANCE)
        if accepted:
            end = start + accepted
            out[start:end] = departures
            # below the limit no fluid is lost: all of it arrived and the backlog says the rest
            last_time = lists[0][end - 1]
            self.fluid_offered_work += self.fluid_work * (last_time - self.t)
            self.fluid_accepted_work += self.fluid_work * (last_time - self.t)
            self.t = last_time
            self._forget(last_time)
            self.work = after_last * self.rate
            self._admit(lists[1][start:end], lists[2][start:end], departures)
        if start + accepted == stop:
            return stop
        drop_at = start + accepted
        self.advance(times[drop_at])
        # Until something leaves, packets no smaller than the one dropped cannot fit either:
        # without fluid that is until the next departure, with fluid at the same instant.
        until = times[drop_at]
        if self.fluid_work == 0 and self.fluid_backlog_work() <= 0:
            until = self._held.next_departure_after(until)
            last = int(np.searchsorted(times, until, side="left"))
        else:
            last = int(np.searchsorted(times, until, side="right"))
        if units is None:
            units = np.array(lists[2])
        smaller = np.flatnonzero(units[drop_at + 1:last] < units[drop_at])
        run = drop_at + 1 + (int(smaller[0]) if smaller.size else last - drop_at - 1)
        self._drop(run - drop_at)
        return run

    def _offer_pinned(self, lists, out, start):
        """One run of packets while the fluid holds the queue full; return the next index.

        The run's free places start from a random instant's and then follow
        every event of the run in time order: a departure opens a place, a
        fluid packet (Poisson) or a packet of the run takes one if there is
        one. With places counted in packets this is the exact reflected walk
        of the queue's free places; in bytes a packet that does not fit leaves
        the smaller free space to the fluid. Between two departures or packets
        of the run the fluid's packets only take places, so only their number
        matters: it is drawn per gap (Poisson, of mean ``fluid_pps`` times the
        gap), which keeps the work in proportion to the departures and the
        run's packets however fast the flood.
        """
        time_list, work_list, unit_list = lists
        n = len(time_list)
        per_packet = self.work_per_packet
        mixing = MIXING_SERVICES * per_packet
        stop = n
        for i in range(start + 1, n):
            if time_list[i] - time_list[i - 1] > mixing:
                stop = i
                break
        t0 = time_list[start]
        span = time_list[stop - 1] - t0
        fluid_packet = self.fluid_units / self.fluid_pps
        need = [u / fluid_packet for u in unit_list[start:stop]]
        # packets that start runs arrive apart from one another, each taking a place
        # like a fluid packet: their long-run rate adds to the overload the places see
        self.run_start_work += work_list[start]
        spread = self.run_start_work / max(self.t, mixing)
        # no more places free than the queue has room for beside the frames in it (a small
        # queue cuts the free-place law's tail); beyond the first, the walk is cut when read
        dwork, room_work = self._room(t0)
        cap, room = dwork + room_work, room_work / per_packet
        free0 = min(draw_free_slots(self.rng, (self.fluid_work + spread) / self.rate), room)
        service = per_packet / self.rate
        first = self.rng.random() * service
        opened = np.arange(first, span, service).tolist() if span > first else []
        # events in time order, at equal times a departure before a packet; before each
        # event the fluid's packets arrived since the one before take places
        order, means = merge_events(opened, [t - t0 for t in time_list[start:stop]],
                                    self.fluid_pps, MAX_TAKEN_MEAN)
        taken = self.rng.poisson(means).tolist()
        before = pinned_walk(order, taken, len(opened), free0, need, room)
        before_run = self._held.last_departure()
        departures, kept = fifo_departures(time_list, work_list, start, before, need, cap, per_packet,
                                           self.rate, before_run, TOLERANCE)
        out[start:stop] = departures
        self.advance(time_list[stop - 1])
        before_work = self.work
        kept_work = [work_list[start + j] for j in kept]
        self._admit(kept_work, [unit_list[start + j] for j in kept], [departures[j] for j in kept])
        self.work = max(before_work, self._work_cap(self.t))
        # the packets took places the fluid would have had: that fluid is dropped
        self.fluid_accepted_work += self.work - before_work - numpy_sum(kept_work, 0)
        self._drop(int(stop - start - len(kept)))
        return stop
