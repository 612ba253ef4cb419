"""Linux's htb qdisc (net/sched/sch_htb.c): hierarchical token buckets over per-leaf queues.

Filters send each frame or flow to a leaf class: by port (``port_leaf``,
a ``tc filter ... u32 match ip dport``), else by vsim's class code
(``class_leaf``), else to the ``default`` leaf (``tc qdisc ... htb default``).
htb sends traffic no filter and no default claims straight to the device,
unshaped; that path is not modelled, and such traffic is refused.

Each leaf has its own queue (pfifo of ``limit`` packets, by default the
device's txqueuelen of 1000, or bfifo bytes with ``unit="bytes"``, or the
class's own ``limit``); the packet at its head waits there for tokens and
counts against the limit. A leaf's queue is served, while it has work, at
the rate ``htb_allocator.allocate`` gives it backlogged beside the other
leaves' offered rates: rates first, then the lenders' spare rate by prio
and quantum up to the ceils. Like ``netioc``, a flood beyond its class's
share overflows its own queue only.

Bytes: htb charges its tokens ``skb_len`` (MAC header and IP packet, no
FCS, padding, preamble or gap) plus the rates' ``overhead`` (0 by default;
``linklayer atm`` rounds to cells): ``vsim.net.uplink.tc_bytes``. A class of
rate 1 Mb/s thus passes 1 Mb/s of such bytes, less of IP payload and more on
the wire.

Buckets: htb lets a class send while its tokens are not negative and
charges the packet after, so a frame leaves at

    d_i = max(a_i, v_i - (L_i + b) / r),

with ``v_i`` its departure from the leaf's queue served at the class's
rate ``r`` and ``b`` the bucket's depth (the same argument as for tbf, with
the frame's own length ``L_i`` allowed on credit): a lone frame at an idle
class leaves at once, a burst takes about ``b`` bytes more at once. The
bucket is the leaf's ``burst`` while its share is within its rate and its
``cburst`` when it borrows; the ancestors' buckets are not followed. The
leaf queue holds a frame until ``v_i``, so it holds the ``L + b`` bytes the
bucket lets through early on top of what waits in the kernel's queue: its
limit is the kernel's plus those (in packets, over the mean ``skb_len`` of
the leaf's declared flows), as ``tbf`` counts its queue, so
that a class overloaded for long fills the kernel's queue and its frames
wait for it (limit times their length over the rate) rather than being
refused early and leaving at once.

The link under the qdisc: a veth (``rate_bps=inf``) adds nothing. A finite
link caps the classes' total (``allocate``'s ``capacity``) in wire bits: a
frame charged ``skb_len`` takes its whole frame, FCS, padding, preamble and
gap on the wire (``vsim.net.frames.wire_bytes``), so each leaf's charged
rate counts there times its frames' wire-to-charged ratio (its declared
flows', packet-weighted; a leaf without flows takes the largest ratio of
the flows, or a minimum frame's) and no leaf is served faster than its
frames' wire time. A transmit-stage cost is not modelled with htb and is
refused. Not modelled either: the kernel's per-packet deficit round robin
below the fluid shares.
"""

import math

import numpy as np

from vsim.core.errors import InputError
from vsim.core.units import BITS_PER_BYTE
from vsim.net.fluid.queue import FluidPacketQueue
from vsim.net.frames import MIN_PAYLOAD, wire_bytes
from vsim.net.txpath.cost import PathCost
from vsim.net.uplink.base import UplinkScheduler
from vsim.net.uplink.htb_allocator import allocate
from vsim.net.uplink.tc_bytes import LINKLAYERS, TXQUEUELEN, charged_bytes, skb_len, skb_units, \
    token_time

FULL_FRAME_IP = 1500
"""IP bytes of a full-size Ethernet frame."""


class HtbScheduler(UplinkScheduler):
    """htb over ``tree`` (an ``HtbTree``) on a link of ``rate_bps`` (``inf`` for a veth)."""

    def __init__(self, rate_bps, limit=TXQUEUELEN, unit="packets", *, tree, port_leaf=None,
                 class_leaf=None, default=None, overhead=0, linklayer="ethernet", rng,
                 cost=PathCost(), **kwargs):
        if cost.per_packet or cost.per_byte:
            raise ValueError("htb takes no transmit-stage cost; its link is rate_bps")
        if linklayer not in LINKLAYERS:
            raise ValueError(f"linklayer must be one of {LINKLAYERS}, got {linklayer!r}")
        self.tree = tree
        self.leaves = list(tree.leaves)
        self.n_queues = len(self.leaves)
        index = {name: i for i, name in enumerate(self.leaves)}
        mappings = (("port_leaf", port_leaf or {}), ("class_leaf", class_leaf or {}),
                    ("default", {"": default} if default is not None else {}))
        for what, mapping in mappings:
            for key, leaf in mapping.items():
                if leaf not in index:
                    where = what if what == "default" else f"{what}.{key}"
                    raise InputError(tree.source, where,
                                     f"a leaf class of the htb tree, one of {self.leaves}; "
                                     f"got {leaf!r}")
        self._port_leaf = {int(k): index[v] for k, v in (port_leaf or {}).items()}
        self._class_leaf = {int(k): index[v] for k, v in (class_leaf or {}).items()}
        self._default = None if default is None else index[default]
        self.overhead = overhead
        self.linklayer = linklayer
        self.reference_bps = float(rate_bps) if math.isfinite(rate_bps) else \
            sum(tree.ceil[cls.name] for cls in tree.top)
        """b/s a queue rate of 1 stands for: the link's, or on a veth the top classes' ceils."""
        self.non_preemptive = not math.isinf(rate_bps)
        self.wire_ratio = np.full(self.n_queues, self.wire_per_charged(MIN_PAYLOAD))
        """Per leaf, wire bits per charged bit of its frames (``set_flows`` sets it)."""
        self.leaf_skb = np.full(self.n_queues, float(skb_len(FULL_FRAME_IP)))
        """Per leaf, the mean ``skb_len`` of its frames (``set_flows`` sets it; full-size frames,
        the fewest packets a bucket holds, for a leaf without declared flows)."""
        super().__init__(rate_bps, limit, unit, rng=rng, cost=cost, **kwargs)
        self.kernel_limits = np.array([tree.by_name[leaf].limit or limit for leaf in self.leaves],
                                      dtype=float)
        """Each leaf's queue limit as the kernel counts it, in ``unit``."""
        self._out = np.empty(0)
        # until flows are declared, each leaf is served at what it gets alone
        self.rates = self.service_rates(np.zeros(self.n_queues))
        self.queues = [FluidPacketQueue(limit_now, unit, rng) for limit_now in self.queue_limits()]
        for queue, rate in zip(self.queues, self.rates):
            queue.set_rate(0.0, rate)

    def wire_per_charged(self, ip_bytes):
        """Wire bytes per charged byte of frames of ``ip_bytes``."""
        ip_bytes = np.asarray(ip_bytes, dtype=float)
        return np.asarray(wire_bytes(ip_bytes), dtype=float) / np.asarray(
            charged_bytes(skb_len(ip_bytes), self.overhead, self.linklayer), dtype=float)

    def set_flows(self, t, flows):
        """As the base's, each leaf's wire-to-charged ratio first taken from its flows."""
        if flows.pps.size:
            queue = self.queue_index(flows.classes, flows.ports)
            weight = np.where(flows.pps > 0, flows.pps, 1e-9)
            ratio = self.wire_per_charged(flows.ip_bytes)
            total = np.bincount(queue, weights=weight, minlength=self.n_queues)
            mean = np.bincount(queue, weights=weight * ratio, minlength=self.n_queues)
            self.wire_ratio = np.where(total > 0, mean / np.where(total > 0, total, 1.0),
                                       ratio.max())
            skb = np.bincount(queue, weights=weight * skb_len(flows.ip_bytes), minlength=self.n_queues)
            self.leaf_skb = np.where(total > 0, skb / np.where(total > 0, total, 1.0),
                                     float(skb_len(FULL_FRAME_IP)))
        super().set_flows(t, flows)

    def queue_limits(self):
        """Each leaf queue's limit: the kernel's plus what its departures run ahead of it, the
        bucket (``bucket_bytes``) and a frame on credit (in packets, over the leaf's mean
        ``skb_len``)."""
        ahead = self.bucket_bytes() + self.leaf_skb
        if self.unit == "packets":
            ahead = ahead / self.leaf_skb
        return self.kernel_limits + ahead

    def early_work(self):
        """Each leaf's bucket in link work: a frame leaves the class that much before its
        service starts in the leaf's queue (``transmit``), and is freed then."""
        return (self.bucket_bytes() * BITS_PER_BYTE / self.reference_bps).tolist()

    def work(self, ip_bytes):
        """A frame's charged bytes at the reference rate."""
        return token_time(ip_bytes, self.reference_bps, self.overhead, self.linklayer)

    def units(self, ip_bytes):
        """Packets count 1; bytes count ``skb_len``, as the kernel's backlog does."""
        if self.unit == "packets":
            return super().units(ip_bytes)
        return skb_units(ip_bytes)

    def queue_index(self, classes, ports):
        return self.queues_by_pair(classes, ports, self._leaf)

    def _leaf(self, port, cls):
        """Leaf of a frame from ``port`` in class ``cls``: by port filter, else class, else default."""
        leaf = self._port_leaf.get(port, self._class_leaf.get(cls, self._default))
        if leaf is None:
            raise ValueError(f"port {port} of class {cls} matches no htb filter and there is "
                             "no default class (htb's unshaped direct path is not modelled)")
        return leaf

    def service_rates(self, demand):
        offered = {leaf: float(d) * self.reference_bps for leaf, d in zip(self.leaves, demand)}
        wire_ratio = dict(zip(self.leaves, self.wire_ratio.tolist()))
        rates = np.empty(self.n_queues)
        for q, leaf in enumerate(self.leaves):
            rates[q] = allocate(self.tree, {**offered, leaf: math.inf}, self.rate_bps, wire_ratio)[leaf]
        # each leaf's rate assumes the others send what they offer; together on the wire they
        # may not: then all are scaled down alike, as ``allocate`` does
        served = np.minimum(rates, [offered[leaf] for leaf in self.leaves]) * self.wire_ratio
        if served.sum() > self.rate_bps:
            rates = rates * (self.rate_bps / served.sum())
        return np.maximum(rates / self.reference_bps, 1e-12)

    def bucket_bytes(self):
        """Each leaf's bucket at its current rate: ``burst`` within its rate, else ``cburst``."""
        rate = np.array([self.tree.rate[leaf] for leaf in self.leaves]) / self.reference_bps
        return np.where(self.rates <= rate * (1 + 1e-12),
                        [self.tree.burst[leaf] for leaf in self.leaves],
                        [self.tree.cburst[leaf] for leaf in self.leaves])

    def transmit(self, times, ip_bytes, classes, ports):
        """Departures from the leaf queues, each frame released early by its class's bucket."""
        virtual = super().transmit(times, ip_bytes, classes, ports)
        kept = np.flatnonzero(~np.isnan(virtual))
        if not kept.size:
            return virtual
        times = np.asarray(times, dtype=float)
        ip_bytes = np.broadcast_to(np.asarray(ip_bytes, dtype=float), times.shape)[kept]
        queue = self.queue_index(np.broadcast_to(classes, times.shape)[kept],
                                 np.broadcast_to(ports, times.shape)[kept])
        rate = self.rates[queue]
        credit = self.work(ip_bytes) / rate + \
            self.bucket_bytes()[queue] * BITS_PER_BYTE / (rate * self.reference_bps)
        out = virtual.copy()
        out[kept] = np.maximum(times[kept] + self.latency, virtual[kept] - credit)
        self._out = np.concatenate((self._out[self._out > self.t], out[kept] - self.latency))
        return out

    def frames_in_system(self, t):
        """Frames accepted and not yet released at ``t``."""
        return int(np.count_nonzero(self._out > t))

