"""NetIOC (vSphere 6): hClock scheduling of ports and traffic classes on one transmit queue.

Each leaf of the NetIOC tree (a port, or a traffic class with no ports
below it) has its own queue, as vSphere 6 keeps a scheduler queue per
virtual port (seed 001, "NetIOC Scheduler Performance Evaluation"). The
scheduler hands the NIC's single transmit queue frames so that each leaf
gets the rate the hClock allocation gives it (``vsim.net.hclock.allocator``:
reservations, then shares under limits). A leaf's queue is served, while it
has work, at the rate the allocation gives it backlogged; a flood beyond its
allocation overflows its own queue only, so the classes are isolated. A
frame may wait for the rest of another leaf's frame on the wire.

Backlogged ports take turns, ``quantum_frames`` frames per visit, so a
port's burst (a TSO segment's frames) leaves in runs cut by the others'
(``run_length``): the interleaving that defeats interrupt coalescing
(``vsim.net.txpath.coalescing``).

Frames and flows are charged to a leaf by port (``port_leaf``), else by
class (``class_leaf``). The tree counts bytes as NetIOC meters them in software: each
packet as the virtual switch holds it, Ethernet header and IP packet (a TCP
sender's packet is a whole TSO segment, so its headers count once per
segment), not the wire's preamble, FCS and gap; the capacity it shares out
is what the link carries of those bytes (``Flows.counted_bytes``). A leaf's
link time is its allocation over its bytes' ratio to wire time, the
transmit stage's where that is the longer.

NetIOC dispatches frames to the NIC itself and runs its next pass when the
NIC signals the last dispatch complete: with ``completion_hold`` (the time
the NIC holds transmit completions, at most Net.NetSchedCoalesceTxUsecs) a
frame waits at its port for that signal (``vsim.net.uplink.completion_gate``)
and then for the frames dispatched before it to leave the NIC's transmit
queue; it leaves then, or when its leaf queue lets it go if that is later.
The default 0 lets it through at once.
"""

import math

import numpy as np

from vsim.core.errors import InputError
from vsim.net.hclock.allocator import allocate
from vsim.net.txpath.coalescing import run_length
from vsim.net.uplink.base import UplinkScheduler
from vsim.net.uplink.completion_gate import CompletionGate


class NetiocScheduler(UplinkScheduler):
    """hClock over ``tree`` (a ``vsim.net.hclock.tree.Tree``); per-leaf queues of ``limit``;
    backlogged ports interleaved ``quantum_frames`` frames per visit."""

    non_preemptive = True

    def __init__(self, rate_bps, limit, unit="packets", *, tree, port_leaf=None, class_leaf=None,
                 quantum_frames=1, completion_hold=0.0, **kwargs):
        if not quantum_frames >= 1:
            raise ValueError(f"quantum_frames must be at least 1, got {quantum_frames!r}")
        self.quantum_frames = quantum_frames
        self._counted_per_wire = None
        self.tree = tree
        self.gate = CompletionGate(completion_hold)
        self._sending = False
        self.leaves = list(tree.leaves)
        self.n_queues = len(self.leaves)
        index = {name: i for i, name in enumerate(self.leaves)}
        for what, mapping in (("port_leaf", port_leaf or {}), ("class_leaf", class_leaf or {})):
            for key, leaf in mapping.items():
                if leaf not in index:
                    raise InputError(tree.source, f"{what}.{key}",
                                     f"a leaf of the NetIOC tree, one of {self.leaves}; got {leaf!r}")
        self._port_leaf = {int(k): index[v] for k, v in (port_leaf or {}).items()}
        self._class_leaf = {int(k): index[v] for k, v in (class_leaf or {}).items()}
        super().__init__(rate_bps, limit, unit, **kwargs)

    def set_flows(self, t, flows):
        self._counted_per_wire = self._counted_ratios(flows)
        super().set_flows(t, flows)
        self._sending = bool(np.any(self.flow_rates[~flows.discrete] > 0))

    def _counted_ratios(self, flows):
        """Per leaf queue: bits NetIOC counts per bit of link time its flows take (1 without
        flows), weighted by the flows' packet rates (equally while all are silent)."""
        ratios = np.ones(self.n_queues)
        if not len(flows):
            return ratios
        queue = self.queue_index(flows.classes, flows.ports)
        weight = np.where(flows.pps > 0, flows.pps, 0.0)
        for q in np.unique(queue):
            mine = queue == q
            w = weight[mine] if weight[mine].sum() > 0 else np.ones(int(mine.sum()))
            counted = float((w * flows.counted_bytes[mine] * 8).sum())
            link = float((w * self.work(flows.ip_bytes[mine])).sum()) * self.rate_bps
            ratios[q] = counted / link
        return ratios

    def transmit(self, times, ip_bytes, classes, ports):
        """Departures (plus latency) of frames that also wait at their port for NetIOC's next
        dispatch (``completion_hold``) and then for the frames dispatched before them
        (``CompletionGate.leave``)."""
        departures = super().transmit(times, ip_bytes, classes, ports)
        if self.gate.hold == 0:
            return departures
        times = np.asarray(times, dtype=float)
        work = self.frame_costs(ip_bytes, times.size)[0]
        dispatched = self.gate.dispatch(times, work, self._sending)
        leave = self.gate.leave
        return np.array([departure if math.isnan(departure) else leave(at, w, departure, self.latency)
                         for at, w, departure in zip(dispatched.tolist(), work.tolist(),
                                                     departures.tolist())])

    def frame_lanes(self, queues, frames, units, work=None, spacing=None, until=math.inf):
        """Lone frames as ``transmit`` sends them, through the completion gate too."""
        if type(self).transmit is not NetiocScheduler.transmit:
            return None
        return self._lanes(queues, frames, units, work, spacing, until, self.gate, self._sending)

    def queue_index(self, classes, ports):
        return self.queues_by_pair(classes, ports, self._leaf)

    def run_length(self, burst, competitors):
        """A port's burst leaves ``quantum_frames`` at a time while others are backlogged:
        the scheduler takes turns over the ports (seed 001, Exp 3: NetIOC "does a very good
        job of interleaving packets from each VM")."""
        return run_length(burst, competitors, self.quantum_frames)

    def _leaf(self, port, cls):
        """Queue of a frame or flow from ``port`` in class ``cls``: by port, else by class."""
        leaf = self._port_leaf.get(port, self._class_leaf.get(cls))
        if leaf is None:
            raise ValueError(f"port {port} of class {cls} is not mapped to a NetIOC leaf")
        return leaf

    def service_rates(self, demand):
        """Each leaf's rate (fraction of the link) while it is backlogged: the tree divides
        counted bytes, so a leaf's link time is its allocation over its counted ratio, and
        the capacity shared out is what the link carries of the leaves' counted bytes."""
        ratio = self._counted_per_wire
        assert ratio is not None  # set_flows sets it before it asks for the rates
        counted = {leaf: float(d) * self.rate_bps * r
                   for leaf, d, r in zip(self.leaves, demand, ratio)}
        rates = np.empty(self.n_queues)
        for q, leaf in enumerate(self.leaves):
            rates[q] = self._link_share(q, {**counted, leaf: math.inf}, ratio)
        return np.maximum(rates, 1e-12)

    FILL_ITERATIONS = 20
    """Most refinements of the counted capacity that keeps the link full (one suffices when
    every leaf counts bytes alike)."""

    def _link_share(self, q, demands, ratio):
        """Link fraction of leaf ``q`` when the leaves offer ``demands`` (counted b/s): the
        counted capacity is refined until the allocations fill the link's time exactly."""
        available, before = self.rate_bps * float(ratio[q]), None
        for _ in range(self.FILL_ITERATIONS):
            rates = allocate(self.tree, demands, available)
            used = sum(rates[leaf] / r for leaf, r in zip(self.leaves, ratio)) / self.rate_bps
            if abs(used - 1.0) < 1e-12 or used == before:  # full, or limits hold every leaf
                break
            available, before = available / used, used
        return rates[self.leaves[q]] / (self.rate_bps * float(ratio[q]))
