"""A cluster host's uplinks under NetIOC: what each VM's stream and each vMotion copy gets.

Each uplink of a host is the single-host model's NetIOC uplink (``vsim.net.uplink.netioc``,
built from the host's NIC model as ``vsim.build.host_uplink`` builds it), its tree made from
the distributed switch's traffic classes (each reserved on every uplink) with, under VM
traffic, the network resource pools holding the VM ports teamed on that uplink (a pool
reserves on an uplink what its ports there have in force) and the ports outside pools; a
class without ports below it is a leaf (vMotion's copies are charged to it). A VM's TCP
stream and a copy are elastic flows, as in a single-host run: a stream offers what its
window and the line allow, its vSwitch packets are TSO segments of its vNIC's size, and the
goodput is what the scheduler leaves it (``vsim.net.sources.tcp_stream``). A copy may be held
below that by what the destination's uplink receives (``cap``, b/s of goodput).

An allocation is a pure function of the ports and copies on the host now: elastic flows keep
no queue, so each is made on a fresh scheduler, and the same state is answered from a cache.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vsim.core.rng import RandomStreams
from vsim.net.fluid.flows import Flows
from vsim.net.hclock.tree import Node, Tree
from vsim.net.sources.tcp_stream import TcpStream
from vsim.net.txpath.cost import PathCost
from vsim.net.uplink import make_uplink_scheduler

VM_CLASS = "vm"
VMOTION_CLASS = "vmotion"
PORT_CLASS_CODE, COPY_CLASS_CODE = 1, 2
"""Traffic-class codes of the flows: VM ports' streams are charged by port, copies by class."""


@dataclass(frozen=True)
class SwitchClass:
    """A traffic class as every uplink applies it, rates in b/s."""

    name: str
    shares: float
    reservation: float
    limit: float = math.inf


@dataclass(frozen=True)
class Port:
    """A VM's port on an uplink: its pool (None: directly under VM traffic), tags in b/s in force,
    its stream and the frames of its TSO segments."""

    vm: str
    uplink: int
    pool: str | None
    shares: float
    reservation: float
    limit: float
    stream: TcpStream
    tso_frames: int


@dataclass(frozen=True)
class Copy:
    """A vMotion copy leaving on ``uplink``: its stream, TSO frames and the goodput the
    destination takes at most (b/s; inf: no cap)."""

    key: str
    uplink: int
    stream: TcpStream
    tso_frames: int
    cap: float = math.inf


@dataclass(frozen=True)
class Pool:
    """A network resource pool's weight beside the other children of VM traffic."""

    name: str
    shares: float


class HostUplinks:
    """The NetIOC uplinks of one host: ``nic`` is its NIC model's values, ``uplinks`` how many."""

    def __init__(self, name: str, nic, uplinks: int, classes: tuple[SwitchClass, ...],
                 pools: tuple[Pool, ...], source: str):
        self.name, self.nic, self.uplinks = name, nic, uplinks
        self.classes, self.pools = classes, {pool.name: pool for pool in pools}
        self.source = source
        self._cache: dict = {}

    def class_tree(self) -> Tree:
        """The tree of the switch's classes alone (what every uplink reserves): ``Tree`` refuses
        reservations over 75 % of the uplink."""
        return Tree([Node(c.name, "class", c.shares, c.reservation, c.limit) for c in self.classes],
                    self.nic.rate_bps, source=self.source, unit=("Mb/s", 1e6), key_suffix="_mbps")

    def allocate(self, ports: tuple[Port, ...], copies: tuple[Copy, ...]) -> tuple[dict, dict]:
        """({vm: goodput b/s}, {copy key: goodput b/s}) on this host's uplinks now."""
        key = (ports, copies)
        if key not in self._cache:
            streams: dict[str, float] = {}
            copied: dict[str, float] = {}
            for uplink in range(self.uplinks):
                mine = tuple(p for p in ports if p.uplink == uplink)
                theirs = tuple(c for c in copies if c.uplink == uplink)
                if mine or theirs:
                    a, b = self._allocate_uplink(mine, theirs)
                    streams.update(a)
                    copied.update(b)
            self._cache[key] = (streams, copied)
        streams, copied = self._cache[key]
        return dict(streams), dict(copied)

    def _tree(self, ports: tuple[Port, ...]) -> tuple[Tree, dict[int, str]]:
        """The uplink's tree with ``ports`` under VM traffic, and each port's leaf."""
        leaf_of = {i: f"port:{p.vm}" for i, p in enumerate(ports)}

        def port_node(i: int, p: Port) -> Node:
            return Node(leaf_of[i], "port", p.shares, p.reservation, p.limit)

        roots = []
        for c in self.classes:
            children: list[Node] = []
            if c.name == VM_CLASS:
                for pool in self.pools.values():
                    inner = [port_node(i, p) for i, p in enumerate(ports) if p.pool == pool.name]
                    if inner:
                        children.append(Node(f"pool:{pool.name}", "pool", pool.shares,
                                             sum(n.reservation for n in inner), math.inf, tuple(inner)))
                children += [port_node(i, p) for i, p in enumerate(ports) if p.pool is None]
            roots.append(Node(c.name, "class", c.shares, c.reservation, c.limit, tuple(children)))
        tree = Tree(roots, self.nic.rate_bps, source=self.source, unit=("Mb/s", 1e6), key_suffix="_mbps")
        return tree, leaf_of

    def _allocate_uplink(self, ports: tuple[Port, ...], copies: tuple[Copy, ...]):
        """The single-host NetIOC scheduler over this uplink's tree, its elastic flows set."""
        nic = self.nic
        tree, leaf_of = self._tree(ports)
        scheduler = make_uplink_scheduler(
            "netioc", nic.rate_bps, nic.queue_packets, "packets",
            rng=RandomStreams(0).stream(f"{self.name}.uplink"),  # fluids draw nothing
            cost=PathCost(per_packet=nic.tx_stage_per_packet), latency=nic.latency,
            tree=tree, port_leaf=leaf_of, class_leaf={COPY_CLASS_CODE: VMOTION_CLASS},
            quantum_frames=nic.netioc_quantum_frames, completion_hold=nic.completion_hold())
        senders = [(p.stream, p.tso_frames, math.inf) for p in ports] + \
                  [(c.stream, c.tso_frames, c.cap) for c in copies]
        pps = [min(s.demand_pps(nic.rate_bps), cap / (s.payload * 8)) for s, _, cap in senders]
        flows = Flows.of(pps, [s.ip_bytes for s, _, _ in senders],
                         [PORT_CLASS_CODE] * len(ports) + [COPY_CLASS_CODE] * len(copies),
                         list(range(len(ports))) + [len(ports) + j for j in range(len(copies))],
                         elastic=True, counted_bytes=[s.counted_bytes(f) for s, f, _ in senders])
        scheduler.set_flows(0.0, flows)
        rates = np.asarray(scheduler.flow_rates, dtype=float)
        goodput = [s.goodput_bps(float(r)) for (s, _, _), r in zip(senders, rates)]
        return ({p.vm: g for p, g in zip(ports, goodput)},
                {c.key: g for c, g in zip(copies, goodput[len(ports):])})

    def receive_goodput(self) -> float:
        """Goodput b/s one TCP stream gets through a host's uplink when nothing else is received."""
        stream = TcpStream()
        return stream.goodput_bps(stream.line_pps(self.nic.rate_bps))
