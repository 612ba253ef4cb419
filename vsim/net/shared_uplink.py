"""The host's uplink as the scenario's vNICs and traffic sources see it.

An uplink scheduler (``vsim.net.uplink``) takes frames and bulk flows by
integer port and class. This wrapper gives every vNIC a port and every bulk
source a flow, keeps the flows' current rates and hands the scheduler the
whole set whenever one changes, and counts what happened: per port, frames
offered and dropped (in one-second bins over the run, for loss-per-second
figures) and the uplink delay of the frames sent (a 1 µs histogram); per
flow, packets offered and delivered, integrated over the rates in force, and
delivered per second of the run; and ``busy_time``, the link time (the
scheduler's ``work``) of every frame it delivered: the frames handed one by
one and the bulk flows' fluid.

Frames of a vNIC burst are handed over spaced by the vNIC transmit world's
time per frame, ending when its job ends: frames handed at one instant
would compete for the queue's free places as one burst, which the
transmit world never makes (``vsim/net/README.md``). A burst whose first
frames fall before frames another vNIC has already handed over (two
transmit worlds forwarding at once) is spread evenly from the last of
those to its end: it queues behind them rather than between them, closer
together than the transmit world sends, where moving its early frames to
that one instant made a burst.

A source may hand its frames late, in batches (request/response chains
beside media servers, which cannot know the media frames to come): it
registers with ``add_lagging_source``, and before anything else reaches the
scheduler (a media burst, a bulk flow's change, a reading of the counters)
``settle`` has it send every frame due before then, so the scheduler still
takes every frame in time order.
"""

import math
from typing import Any

import numpy as np

from vsim.net.fluid.flows import Flows
from vsim.net.frames import packet_bytes
from vsim.net.uplink.protocol import Scheduler

DELAY_BIN = 1e-6
"""Width of the uplink-delay histogram's bins (s)."""

DELAY_BINS = 100_000
"""Bins of the histogram: delays up to 0.1 s; longer ones land in the last bin."""

VOICE_CLASS = 0
"""Class code of the media servers' frames; bulk flows take the codes after it."""


class SharedUplink:
    """Ports and flows of one host on ``scheduler``, with their counters; ``begin`` a run first."""

    def __init__(self, scheduler: Scheduler) -> None:
        self.scheduler = scheduler
        self.bins = 0
        self.port_names: list[str] = []
        self.offered_per_s: list[np.ndarray] = []
        self.dropped_per_s: list[np.ndarray] = []
        self.delays = np.zeros(DELAY_BINS, dtype=np.int64)
        self.sent = 0
        self.dropped = 0
        self.busy_time = 0.0
        self._flows: list[tuple] = []  # (ip_bytes, class, port, elastic, discrete, counted,
        #                                 in_flight, rtt)
        self._pps: list[float] = []
        self._offered: list[float] = []
        self._delivered: list[float] = []
        self._t = 0.0
        self._watchers: list[Any] = []  # objects with an accrue(t)
        self._work: dict[float, float] = {}
        self._countdowns: dict[int, np.ndarray] = {}
        self._bulk_sending = 0
        self._lagging: list[Any] = []  # sources with a catch_up(t)
        self._settling = False

    @staticmethod
    def supports_closed_form() -> bool:
        """Bulk flows and per-frame schedulers need the event engine."""
        return False

    # ------------------------------------------------------------ set-up
    def add_port(self, name):
        """A new port (a vNIC); returns its code."""
        self.port_names.append(name)
        return len(self.port_names) - 1

    def begin(self, duration):
        """Start counting frames per second over a run of ``duration`` seconds."""
        self.bins = max(1, math.ceil(duration))
        self.offered_per_s = [np.zeros(self.bins, dtype=np.int64) for _ in self.port_names]
        self.dropped_per_s = [np.zeros(self.bins, dtype=np.int64) for _ in self.port_names]
        self.delivered_per_s = np.zeros((len(self._flows), self.bins))

    def add_flow(self, port, ip_bytes, traffic_class, elastic=False, discrete=False,
                 counted_bytes=None, in_flight=0.0, rtt=0.0):
        """A new flow from ``port``, silent until ``set_rate``; returns its index.
        ``counted_bytes``: bytes a metering scheduler counts per packet; ``in_flight`` and
        ``rtt``: a window-limited flow's packets in flight and round trip (``Flows``)."""
        counted = packet_bytes(ip_bytes) if counted_bytes is None else counted_bytes
        self._flows.append((ip_bytes, traffic_class, port, elastic, discrete, counted, in_flight,
                            rtt))
        self._pps.append(0.0)
        self._offered.append(0.0)
        self._delivered.append(0.0)
        return len(self._flows) - 1

    def add_lagging_source(self, source):
        """``source`` hands its frames late: its ``catch_up(t)`` sends every frame it has due
        before ``t``, and ``settle`` calls it before the scheduler takes anything else."""
        self._lagging.append(source)

    # ------------------------------------------------------------ run
    def settle(self, t):
        """Have every lagging source send its frames due before ``t`` (the time of what comes
        next: a burst, a flow's change, a reading of the counters)."""
        if self._settling or not self._lagging:
            return
        self._settling = True
        try:
            for source in self._lagging:
                source.catch_up(t)
        finally:
            self._settling = False

    def watch(self, watcher):
        """Have ``watcher.accrue(t)`` called before every change of the flows' rates, at the
        change's time ``t``: what it reads of the uplink holds from the last change to ``t``."""
        self._watchers.append(watcher)

    def set_rate(self, t, flow, pps):
        """From ``t`` flow ``flow`` offers ``pps`` packets/s."""
        self.settle(t)
        for watcher in self._watchers:
            watcher.accrue(t)
        self._integrate(t)
        if not self._flows[flow][4]:
            self._bulk_sending += (pps > 0) - (self._pps[flow] > 0)
        self._pps[flow] = float(pps)
        ip_bytes, classes, ports, elastic, discrete, counted, in_flight, rtt = zip(*self._flows)
        self.scheduler.set_flows(t, Flows.of(self._pps, ip_bytes, classes, ports, elastic=elastic,
                                             discrete=discrete, counted_bytes=counted,
                                             in_flight=in_flight, rtt=rtt))

    def _integrate(self, t):
        """Add the packets offered and delivered since the last change up to ``t``."""
        span = t - self._t
        if span > 0 and self._flows:
            delivered = self._delivered_rates(t)
            for index, (pps, rate) in enumerate(zip(self._pps, delivered)):
                self._offered[index] += pps * span
                self._delivered[index] += rate * span
                if not self._flows[index][4] and rate > 0:  # fluid: its frames' link time
                    self.busy_time += rate * span * self._link_time(self._flows[index][0])
            self._bin(self._t, t, np.asarray(delivered, dtype=float))
        self._t = max(self._t, t)

    def _delivered_rates(self, t):
        """Packets/s each flow got through since the last change, up to ``t``: a rigid fluid
        flow's (a flood's) offered rate times the share of it its queue took in (which counts
        the backlog it drains after the flood falls silent), an elastic or discrete flow's
        the rate the scheduler left it."""
        rates = self.scheduler.flow_rates if len(self.scheduler.flow_rates) else self._pps
        rigid = [index for index, (flow, pps) in enumerate(zip(self._flows, self._pps))
                 if pps > 0 and not (flow[3] or flow[4])]
        if not rigid:
            return rates
        share = self.scheduler.rigid_acceptance(t)[self.scheduler.flow_queues]
        rates = np.array(rates, dtype=float)
        rates[rigid] = np.asarray(self._pps)[rigid] * share[rigid]
        return rates

    def _bin(self, start, end, rates):
        """Add ``rates`` (per flow) held from ``start`` to ``end`` to the per-second bins."""
        first, last = int(start), min(int(np.ceil(end)), self.bins)
        if first >= last:
            return
        edges = np.arange(first, last + 1, dtype=float)
        overlap = np.minimum(edges[1:], end) - np.maximum(edges[:-1], start)
        self.delivered_per_s[:, first:last] += np.outer(rates, np.maximum(overlap, 0.0))

    def send(self, port, end, count, spacing, ip_bytes):
        """``count`` frames of ``ip_bytes`` from ``port``, handed ``spacing`` apart up to ``end``:
        their departures (NaN where dropped)."""
        self.settle(end)
        times = end - spacing * self._countdown(count)
        if times[0] < self.scheduler.t:  # never before frames already handed
            times = np.linspace(self.scheduler.t, max(end, self.scheduler.t), count)
        departures = self.scheduler.transmit(times, ip_bytes, VOICE_CLASS, port)
        kept = departures == departures  # not NaN
        sent = int(np.count_nonzero(kept))
        first, last = min(int(times[0]), self.bins - 1), min(int(times[-1]), self.bins - 1)
        if first == last:  # a burst within one second: no per-frame binning
            self.offered_per_s[port][first] += count
            self.dropped_per_s[port][first] += count - sent
        else:
            seconds = np.minimum(times.astype(np.int64), self.bins - 1)
            np.add.at(self.offered_per_s[port], seconds, 1)
            np.add.at(self.dropped_per_s[port], seconds[~kept], 1)
        if sent == count:  # nothing dropped: no selection to make
            delays = (departures - times) * (1 / DELAY_BIN)
        else:
            delays = (departures[kept] - times[kept]) * (1 / DELAY_BIN)
        np.add.at(self.delays, np.minimum(delays.astype(np.int64), DELAY_BINS - 1), 1)
        self.sent += sent
        self.dropped += count - sent
        self.busy_time += sent * self._link_time(ip_bytes)
        return departures

    def _link_time(self, ip_bytes):
        """The scheduler's work for one frame of ``ip_bytes`` (cached by size)."""
        if ip_bytes not in self._work:
            self._work[ip_bytes] = float(self.scheduler.work(ip_bytes))
        return self._work[ip_bytes]

    # ------------------------------------------------------------ what a frame costs
    @property
    def latency(self) -> float:
        """Seconds the scheduler adds to every departure (the NIC and wire beyond the queue)."""
        return self.scheduler.latency

    def frame_work(self, ip_bytes: Any) -> Any:
        """Link time of frames of ``ip_bytes`` (an array for an array), as the scheduler counts it."""
        return self.scheduler.work(ip_bytes)

    def frame_units(self, ip_bytes: Any) -> Any:
        """Frames' size in the scheduler's queue-limit unit (an array for an array)."""
        return self.scheduler.units(ip_bytes)

    def frame_queues(self, classes: np.ndarray, ports: np.ndarray) -> np.ndarray:
        """The scheduler's queue of each frame of ``classes`` from ``ports`` (integer codes)."""
        return self.scheduler.queue_index(classes, ports)

    def transmit_frames(self, times, ip_bytes, classes, ports):
        """Frames of any ports at ``times`` (sorted; request/response traffic): their departures
        (NaN where dropped), with the link time they take counted."""
        departures = self.scheduler.transmit(times, ip_bytes, classes, ports)
        self._count_busy(ip_bytes, departures)
        return departures

    def frame_lanes(self, queues, frames, units, work, spacing=None, until=math.inf):
        """The scheduler's per-frame path for frames of ``queues`` (``UplinkScheduler.frame_lanes``),
        None where it has none now; hand it back with ``close_lanes``."""
        return self.scheduler.frame_lanes(queues, frames, units, work, spacing, until)

    def close_lanes(self, lanes, times, queues, ip_bytes, departures):
        """Give the scheduler the frames sent through ``lanes`` (arrays in the order sent: arrival
        ``times``, ``queues``, ``ip_bytes``, ``departures``), with the link time they took
        counted as ``transmit_frames`` does."""
        scheduler = self.scheduler
        lanes.close(times, queues, scheduler.work(ip_bytes), scheduler.units(ip_bytes))
        self._count_busy(ip_bytes, departures)

    def _count_busy(self, ip_bytes, departures):
        kept = departures == departures  # not NaN
        self.busy_time += float(np.sum(self.scheduler.work(np.asarray(ip_bytes, dtype=float)[kept])))

    def _countdown(self, count):
        """count-1, ..., 1, 0 as floats (cached: bursts repeat their sizes)."""
        countdown = self._countdowns.get(count)
        if countdown is None:
            countdown = self._countdowns[count] = np.arange(count - 1, -1, -1, dtype=float)
        return countdown

    def frames_rate(self, flow):
        """Frames/s flow ``flow`` hands the host now: what it offers, or for an elastic flow
        what the scheduler leaves it."""
        if self._flows[flow][3]:
            return float(self.scheduler.flow_rates[flow])
        return self._pps[flow]

    def frames_handed(self, flow, t):
        """Frames flow ``flow`` has handed the host up to ``t``: the integral of ``frames_rate``
        (what it offered, or for an elastic flow what the scheduler left it), read without
        moving the counters, exact since rates change only at ``set_rate``."""
        elastic = self._flows[flow][3]
        total = self._delivered[flow] if elastic else self._offered[flow]
        return float(total) + self.frames_rate(flow) * max(t - self._t, 0.0)

    def flow_ip_bytes(self, flow):
        """IP bytes of flow ``flow``'s packets."""
        return self._flows[flow][0]

    def backlogged_others(self, flow):
        """Bulk flows other than ``flow`` sending now: the ports a scheduler takes turns over."""
        mine = 1 if self._pps[flow] > 0 and not self._flows[flow][4] else 0
        return self._bulk_sending - mine

    # ------------------------------------------------------------ counters
    def flow_packets(self, t):
        """(offered, delivered) packets of every flow up to ``t``."""
        self.settle(t)
        self._integrate(t)
        return np.array(self._offered), np.array(self._delivered)

    def delay_stats(self):
        """(mean, 99th percentile) uplink delay of the frames sent, in seconds (None if none)."""
        total = int(self.delays.sum())
        if not total:
            return None, None
        centres = (np.arange(DELAY_BINS) + 0.5) * DELAY_BIN
        mean = float((self.delays * centres).sum() / total)
        p99 = float(centres[np.searchsorted(np.cumsum(self.delays), 0.99 * total)])
        return mean, p99
