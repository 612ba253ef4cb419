"""What every uplink scheduler does: frames and flows in, departures and rates out.

The transmit path hands the scheduler

- bursts of frames with ``transmit(times, ip_bytes, classes, ports)``:
  numpy arrays (``classes`` and ``ports`` integer codes), times sorted and not
  earlier than anything handed before; it answers each frame's departure
  from the uplink plus ``latency`` (NaN for a dropped frame);
- bulk flows with ``set_flows(t, flows)`` (``vsim.net.fluid.flows.Flows``):
  from ``t`` on, until the next call, each flow offers its packet rate.

Those members are ``vsim.net.uplink.protocol.Scheduler``, which lists the
optional overrides too. A scheduler is a set of ``FluidPacketQueue``s. A
subclass says which queue a frame or flow goes to (``queue_index``) and at
what rate each queue is served given the queues' demands (``service_rates``);
this class does the rest: it shapes elastic flows to what their queue leaves them, feeds each
queue its fluid, resolves frames per queue, and keeps the counters
(``frames_offered``, ``frames_dropped``, ``frames_in_system(t)``,
``flow_rates``, ``fluid_offered_work``/``fluid_accepted_work``).

A frame's service (its *work*) is the longer of its wire time and the
transmit stage's per-frame time (``vsim.net.txpath.cost``); queue limits
count packets or frame bytes, as the real queue does.

A window-limited elastic flow (``Flows.in_flight``, ``Flows.rtt``) keeps the
packets it has in flight beyond its rate times its round trip waiting in its
queue, as a window-limited TCP sender fills its bottleneck's buffer: a
frame reaching that queue waits for them (``standing``) before it meets the
queue's frames, a frame of a queue of its own does not. Their windows hold
such flows to what leaves the queue, so they are not fluid the queue carries:
the queue's frames drain at its rate, the flows taking what the frames leave.
Flows that declare no window never queue and are carried as fluid.

A flow's packets arrive as its source declares (``declare_arrivals``:
evenly paced or Poisson; undeclared flows are Poisson), which a queue
follows where it draws them one by one (``vsim.net.fluid.arrivals``).
"""

import math

import numpy as np

from vsim.net.fluid.arrivals import ARRIVALS, FloodPackets
from vsim.net.fluid.flows import Flows
from vsim.net.fluid.queue import FluidPacketQueue
from vsim.net.frames import frame_bytes
from vsim.net.hclock.waterfill import waterfill
from vsim.net.txpath.coalescing import run_length
from vsim.net.txpath.cost import PathCost, service_time
from vsim.net.uplink.frame_lanes import FrameLanes


class UplinkScheduler:
    """Base of the uplink schedulers; subclasses set ``n_queues`` and override two methods."""

    n_queues = 1
    non_preemptive = False
    """Whether a frame of one queue may wait for a frame of another already on the wire."""

    def __init__(self, rate_bps, limit, unit="packets", *, rng, cost=PathCost(), latency=0.0):
        if not rate_bps > 0:
            raise ValueError(f"rate_bps must be positive, got {rate_bps!r}")
        if not latency >= 0:
            raise ValueError(f"latency must be non-negative, got {latency!r}")
        self.rate_bps = float(rate_bps)
        self.cost = cost
        self.unit = unit
        self.latency = float(latency)
        self.rng = rng
        self.queues = [FluidPacketQueue(limit, unit, rng) for _ in range(self.n_queues)]
        self.flows = Flows.none()
        self.flow_rates = np.zeros(0)
        self.rates = np.ones(self.n_queues)
        self._other_busy = np.zeros(self.n_queues)
        self._other_work = np.zeros(self.n_queues)
        self._frame_costs: dict = {}  # (work, units) of one frame, by its IP bytes
        self.arrivals = {}
        self.batches = {}
        self.t = 0.0
        self.flow_queues = np.zeros(0, dtype=np.int64)
        self._elastic_work: np.ndarray = np.zeros(self.n_queues)
        self._elastic_t = 0.0
        self._elastic_offered = np.zeros(self.n_queues)
        self._acceptance_mark = np.zeros((3, self.n_queues))
        self.standing = np.zeros(self.n_queues)
        """Per queue, link-seconds (at the full rate) of the packets its window-limited elastic
        flows keep queued (``_standing_work``)."""

    # ------------------------------------------------------------ subclass hooks
    def queue_index(self, classes: np.ndarray, ports: np.ndarray) -> np.ndarray:
        """Queue of each frame or flow (integer array)."""
        return np.zeros(np.shape(ports), dtype=np.int64)

    @staticmethod
    def queues_by_pair(classes, ports, queue_of):
        """Each frame's queue, ``queue_of(port, class)`` looked up once per distinct pair:
        the mapping of schedulers whose filters match a port, else its class. A vNIC's burst
        (one port, one class) takes a single look-up."""
        classes = np.asarray(classes)
        ports = np.asarray(ports)
        if ports.size and ports.min() == ports.max() and classes.min() == classes.max():
            return np.full(ports.shape, queue_of(int(ports.flat[0]), int(classes.flat[0])),
                           dtype=np.int64)
        pairs, inverse = np.unique(np.stack((ports.ravel(), classes.ravel())), axis=1,
                                   return_inverse=True)
        looked = np.array([queue_of(port, cls) for port, cls in pairs.T.tolist()], dtype=np.int64)
        return looked[np.asarray(inverse).ravel()].reshape(ports.shape)

    def service_rates(self, demand: np.ndarray) -> np.ndarray:
        """Rate (fraction of the link) each queue is served at while it has work queued,
        given every queue's offered work rate ``demand``."""
        return np.ones(self.n_queues)

    def run_length(self, burst: float, competitors: int) -> float:
        """Frames of a port's ``burst`` that leave back to back while ``competitors`` other
        ports are backlogged: the whole burst, unless the scheduler interleaves ports."""
        return run_length(burst, competitors)

    # ------------------------------------------------------------ interface
    def work(self, ip_bytes):
        """Service time of frames at the full link rate."""
        return service_time(ip_bytes, self.rate_bps, self.cost)

    def units(self, ip_bytes):
        """Frames' size in the queue limit's unit."""
        if self.unit == "packets":
            return np.ones(np.shape(ip_bytes))
        return np.asarray(frame_bytes(np.asarray(ip_bytes)), dtype=float)

    def declare_arrivals(self, port, traffic_class, arrivals, batches=None):
        """The packets of the flow from ``port`` in ``traffic_class`` arrive ``arrivals``
        ("paced", "poisson", or "batched" on the wake-ups ``batches``, a ``WakeupBatches``)."""
        if arrivals not in ARRIVALS:
            raise ValueError(f"arrivals must be one of {ARRIVALS}, got {arrivals!r}")
        if (arrivals == "batched") != (batches is not None):
            raise ValueError("batched arrivals, and only they, need their wake-up pattern")
        self.arrivals[(int(port), int(traffic_class))] = arrivals
        if batches is not None:
            self.batches[(int(port), int(traffic_class))] = batches

    def set_flows(self, t, flows):
        """From ``t`` the bulk flows are ``flows``; elastic ones take what is left them."""
        self._advance(t)
        self._integrate_elastic(t)
        self.flows = flows
        queue = self.queue_index(flows.classes, flows.ports)
        self.flow_queues = queue
        per_packet = self.work(flows.ip_bytes)
        self.rates = self.service_rates(
            np.bincount(queue, weights=flows.pps * per_packet, minlength=self.n_queues))
        offered = self._shape_elastic(flows, queue, per_packet)
        fluid = ~flows.discrete
        # a window-limited elastic flow is held to what leaves its queue by its window: its
        # packets are the queue's standing backlog (``standing``), not fluid the queue carries
        carried = fluid & ~(flows.elastic & (flows.in_flight > 0))
        work = offered * per_packet
        all_work = np.bincount(queue[fluid], weights=work[fluid], minlength=self.n_queues)
        all_pps = np.bincount(queue[fluid], weights=offered[fluid], minlength=self.n_queues)
        fluid_work = np.bincount(queue[carried], weights=work[carried], minlength=self.n_queues)
        fluid_pps = np.bincount(queue[carried], weights=offered[carried], minlength=self.n_queues)
        fluid_units = np.bincount(queue[carried],
                                  weights=(offered * self.units(flows.ip_bytes))[carried],
                                  minlength=self.n_queues)
        packet_work = np.bincount(queue[~fluid], weights=work[~fluid], minlength=self.n_queues)
        elastic = carried & flows.elastic
        self._elastic_work = np.bincount(queue[elastic], weights=work[elastic], minlength=self.n_queues)
        limits, early = self.queue_limits(), self.early_work()
        for q, fq in enumerate(self.queues):
            fq.set_limit(t, limits[q])
            fq.set_early(t, early[q])
            fq.set_rate(t, self.rates[q])
            fq.set_fluid(t, fluid_work[q], fluid_pps[q], fluid_units[q], packet_work[q],
                         self._flood_packets(flows, carried & (queue == q) & (offered > 0),
                                             offered, per_packet))
        # a queue's fluid gets through at what the queue's rate leaves after its packets
        room = np.maximum(self.rates - packet_work, 0.0)
        with np.errstate(over="ignore"):  # a vanishing fluid keeps all of itself
            kept = np.minimum(1.0, room / np.where(fluid_work > 0, fluid_work, 1.0))
        self.flow_rates = np.where(carried, offered * kept[queue], np.where(fluid, offered, flows.pps))
        self.standing = self._standing_work(flows, queue, per_packet)
        self._neighbours(np.minimum(all_work + packet_work, self.rates),
                         np.divide(all_work, all_pps, out=np.zeros(self.n_queues), where=all_pps > 0))

    def _standing_work(self, flows, queue, per_packet):
        """Per queue, the link time of the packets its window-limited elastic flows keep queued:
        each flow's packets in flight beyond its rate times its round trip without queueing (what
        the path holds), at most the queue's limit."""
        queued = np.where(flows.elastic & ~flows.discrete,
                          np.maximum(0.0, flows.in_flight - self.flow_rates * flows.rtt), 0.0)
        if not queued.any():
            return np.zeros(self.n_queues)
        work = np.bincount(queue, weights=queued * per_packet, minlength=self.n_queues)
        units = np.bincount(queue, weights=queued * self.units(flows.ip_bytes),
                            minlength=self.n_queues)
        limits = np.asarray(self.queue_limits(), dtype=float)
        room = np.divide(limits, units, out=np.ones(self.n_queues), where=units > limits)
        return work * np.minimum(room, 1.0)

    def _integrate_elastic(self, t):
        """Add the elastic fluid's offered work up to ``t`` to each queue's total."""
        if t > self._elastic_t:
            self._elastic_offered += self._elastic_work * (t - self._elastic_t)
            self._elastic_t = float(t)

    def rigid_acceptance(self, t):
        """Per queue, the share of the rigid (not elastic) fluid offered since the last call
        that the queue took in, every queue brought to ``t`` first (1 where none was offered).

        This is what left, or will leave, the queue of a flood's packets: a backlog queued
        while its source sends drains after the source falls silent, and counts. Elastic
        flows are shaped to what their queue leaves them (``_shape_elastic``), so all their
        fluid is taken in; the rest of the queue's accepted fluid is the rigid flows'."""
        self._advance(t)
        self._integrate_elastic(t)
        now = np.array([[q.fluid_offered_work for q in self.queues],
                        [q.fluid_accepted_work for q in self.queues], self._elastic_offered])
        offered, accepted, elastic = now - self._acceptance_mark
        self._acceptance_mark = now
        rigid = offered - elastic
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.clip((accepted - elastic) / rigid, 0.0, 1.0)
        return np.where(rigid > 0, share, 1.0)

    def queue_limits(self):
        """Each queue's limit in its unit at the current rates: the queues' own, which a
        subclass whose queues stand for more than the kernel's queue extends."""
        return [fq.limit for fq in self.queues]

    def early_work(self):
        """Each queue's link work by which the qdisc hands a packet on before its service
        starts in the queue: none, unless a subclass's token bucket lets packets out ahead."""
        return [0.0] * len(self.queues)

    def _flood_packets(self, flows, mine, offered, per_packet):
        """The fluid flows ``mine`` (a mask) as packets, each with its declared arrivals."""
        if not mine.any():
            return None
        keys = tuple(zip(flows.ports[mine].tolist(), flows.classes[mine].tolist()))
        paced = [self.arrivals.get(key, "poisson") == "paced" for key in keys]
        return FloodPackets.of(offered[mine], per_packet[mine], self.units(flows.ip_bytes[mine]),
                               paced, keys, [self.batches.get(key) for key in keys])

    def _shape_elastic(self, flows, queue, per_packet):
        """Packet rates the flows offer: elastic ones share, equally and up to their demand,
        what their queue's rate leaves after the others."""
        offered = flows.pps.copy()
        elastic = flows.elastic & ~flows.discrete
        for q in np.unique(queue[elastic]):
            mine = np.flatnonzero((queue == q) & elastic)
            rigid = float((flows.pps * per_packet)[(queue == q) & ~elastic].sum())
            share = waterfill(max(0.0, self.rates[q] - rigid), np.ones(mine.size),
                              flows.pps[mine] * per_packet[mine])
            offered[mine] = share / per_packet[mine]
        return offered

    def _neighbours(self, busy, frame_work):
        """For each queue, how often another queue has a frame on the wire (``busy`` are
        the queues' utilisations) and that frame's mean work (time-weighted)."""
        total = busy.sum()
        others = total - busy
        self._other_busy = np.minimum(1.0, others)
        weighted = busy * frame_work
        self._other_work = np.divide(weighted.sum() - weighted, others,
                                     out=np.zeros(self.n_queues), where=others > 0)

    def frame_costs(self, ip_bytes, n):
        """(work, units) of ``n`` frames of ``ip_bytes`` (one size or one per frame), as arrays.
        A burst's frames are mostly of one size: its costs are worked out once per size (they
        depend on nothing that changes after construction) and repeated, the same floats as
        the arrays' element by element."""
        costs = self.size_costs(ip_bytes)
        if costs is not None:
            return np.full(n, costs[0]), np.full(n, costs[1])
        return self._per_frame_costs(ip_bytes, n)

    def _per_frame_costs(self, ip_bytes, n):
        """(work, units) arrays of ``n`` frames of ``ip_bytes``, one size per frame."""
        sizes = np.broadcast_to(np.asarray(ip_bytes, dtype=float), (n,))
        return self.work(sizes), self.units(sizes)

    def size_costs(self, ip_bytes):
        """(work, units) of one frame of ``ip_bytes`` as floats, worked out once per size; None
        when ``ip_bytes`` is one size per frame."""
        costs = self._frame_costs.get(ip_bytes) if isinstance(ip_bytes, (int, float)) else None
        if costs is None:
            if np.ndim(ip_bytes) != 0:
                return None
            size = np.asarray(ip_bytes, dtype=float)
            costs = self._frame_costs[ip_bytes] = (float(self.work(size)), float(self.units(size)))
        return costs

    def checked_times(self, times):
        """``times`` as a float array, refused unless one-dimensional, sorted and not earlier
        than frames already handed."""
        times = np.asarray(times, dtype=float)
        if times.ndim != 1:
            raise ValueError("times must be a one-dimensional array")
        if times.size and not (times[0] >= self.t and (times[1:] >= times[:-1]).all()):
            raise ValueError("frame times must be sorted and not earlier than those already handed")
        return times

    def transmit(self, times, ip_bytes, classes, ports):
        """Departures (plus latency) of a burst of frames; NaN where dropped."""
        times = self.checked_times(times)
        if not times.size:
            return np.full(0, np.nan)
        if self.n_queues == 1:
            costs = self.size_costs(ip_bytes)  # one size: the queue takes its costs as floats
            work, units = costs if costs is not None else self._per_frame_costs(ip_bytes, times.size)
            self.t = float(times[-1])
            return self.queues[0].offer(times, work, units) + (self.latency + self._standing_wait(0))
        work, units = self.frame_costs(ip_bytes, times.size)
        if np.ndim(classes) == 0 and np.ndim(ports) == 0:  # one port's burst: one queue
            q = int(self.queue_index(np.array([classes], dtype=np.int64), np.array([ports], dtype=np.int64))[0])
            out = self.queues[q].offer(times, work, units, self._wire_rests(q, times.size)) + self._standing_wait(q)
            self.t = float(times[-1])
            return out + self.latency
        out = np.full(times.size, np.nan)
        classes = np.broadcast_to(np.asarray(classes, dtype=np.int64), times.shape)
        ports = np.broadcast_to(np.asarray(ports, dtype=np.int64), times.shape)
        queue = self.queue_index(classes, ports)
        for q in ([queue[0]] if queue.min() == queue.max() else np.unique(queue)):
            mine = np.flatnonzero(queue == q)
            out[mine] = self.queues[q].offer(times[mine], work[mine], units[mine],
                                             self._wire_rests(q, mine.size)) + self._standing_wait(q)
        self.t = float(times[-1])
        return out + self.latency

    def _wire_rests(self, q, n):
        """Each of a burst's ``n`` frames' wait at queue ``q`` for a packet already on the wire,
        or None to let the queue draw its own: a non-preemptive scheduler's burst may find
        another queue's frame there, whose rest its first frame waits out (nothing is drawn
        where the others' frames leave no rest), beside the queue's own fluid packet in service
        (``FluidPacketQueue.wire_rest``). The queue takes the waits as its own, so the frames
        behind the first wait for it too, and none overtakes a frame of its queue."""
        if not (self.non_preemptive and self._other_busy[q] > 0 and self._other_work[q] > 0):
            return None
        queue = self.queues[q]
        rests = queue.wire_rest(self.rng.random((2, n))) if queue.wire_busy() else np.zeros(n)
        if self.rng.random() < self._other_busy[q]:
            rests[0] += self.rng.random() * self._other_work[q]
        return rests

    def _standing_wait(self, q):
        """Seconds a frame of queue ``q`` waits for the packets its window-limited flows keep
        queued ahead of it (``standing``, at the queue's rate). The backlog stays while its
        senders keep their windows full, so every frame waits for it: a delay before the queue
        of the frames themselves, never their own backlog."""
        return self.standing[q] / self.rates[q] if self.standing[q] > 0 else 0.0

    def frame_lanes(self, queues, frames, units, work=None, spacing=None, until=math.inf):
        """A ``FrameLanes`` sending lone frames as ``transmit`` would, for frames of ``queues``
        (indices) of which at most ``frames`` are in the system at once, each of at most
        ``units`` and ``work`` (None: unknown), one sender's frames at least ``spacing`` apart
        (None: unknown), sent up to ``until``; None where it cannot: a subclass sending frames
        its own way, those queues out of the open regime (``FrameLanes.fit``), or a limit they
        could reach."""
        if type(self).transmit is not UplinkScheduler.transmit:
            return None
        return self._lanes(queues, frames, units, work, spacing, until)

    def _lanes(self, queues, frames, units, work, spacing, until, gate=None, sending=False):
        if np.any(self.standing[np.asarray(queues, dtype=np.int64)] > 0):
            return None  # lanes know no standing backlog: the frames go through transmit
        if not FrameLanes.fit(self, queues, frames, units, work, spacing, until):
            return None
        if self.non_preemptive and self.n_queues > 1:
            return FrameLanes(self, self._other_busy, self._other_work, gate, sending)
        return FrameLanes(self, np.zeros(self.n_queues), np.zeros(self.n_queues), gate, sending)

    def advance(self, t):
        """Bring every queue's fluid to ``t`` (before reading counters at ``t``)."""
        self._advance(t)

    # ------------------------------------------------------------ counters
    @property
    def frames_offered(self):
        """Frames handed to ``transmit`` so far, all queues."""
        return sum(q.packets_offered for q in self.queues)

    @property
    def frames_dropped(self):
        """Frames refused by a full queue so far, all queues."""
        return sum(q.packets_dropped for q in self.queues)

    def frames_in_system(self, t):
        """Frames handed to ``transmit`` still queued or on the wire at ``t``."""
        return sum(q.in_system(t) for q in self.queues)

    @property
    def fluid_offered_work(self):
        return sum(q.fluid_offered_work for q in self.queues)

    @property
    def fluid_accepted_work(self):
        return sum(q.fluid_accepted_work for q in self.queues)

    def _advance(self, t):
        if t < self.t:
            raise ValueError(f"time {t!r} precedes the scheduler's time {self.t!r}")
        for q in self.queues:
            q.advance(t)
        self.t = float(t)
