"""Admission: whether a host can meet a set of CPU and bandwidth reservations.

A host admits CPU reservations up to its physical cores (ESXi admits reservations against the
cores' capacity, not the hyper-threads'), and bandwidth reservations of VM ports up to the
VM traffic class's reservation on each uplink: a port is teamed on one uplink, so the ports'
reservations are packed into the host's uplinks, none of which may be asked for more than the
class reserves on it (NetIOC v3: "the bandwidth reservation of a VM port is satisfied on the
physical adapter it is teamed on"). The class reservations themselves are at most 75 % of an
uplink, which ``vsim.net.hclock.tree.Tree`` checks when the cluster loads. A network resource
pool's reservation is a quota over the whole switch, checked apart (``pool_overdraft``).

Everything here is a pure function of the numbers it is given, so admission decisions can be
tested, and re-made by anyone holding the same numbers (``vsim.cluster`` keeps hosts apart).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

TOLERANCE = 1e-9
"""Relative slack in capacity comparisons, so that reservations adding up exactly to a capacity
(7.5 + 4.5 + 3 Gb/s of a 15 Gb/s quota) are admitted despite rounding."""


@dataclass(frozen=True)
class Demand:
    """What a VM reserves: CPUs and b/s of its port."""

    cpu: float = 0.0
    bandwidth: float = 0.0

    def __add__(self, other: "Demand") -> "Demand":
        return Demand(self.cpu + other.cpu, self.bandwidth + other.bandwidth)


@dataclass(frozen=True)
class Capacity:
    """What a host can reserve: ``cpu`` CPUs, and ``port_bandwidth`` b/s on each of ``uplinks``."""

    cpu: float
    port_bandwidth: float
    uplinks: int

    def bandwidth(self) -> float:
        """b/s the host's VM ports may reserve in all."""
        return self.port_bandwidth * self.uplinks


def within(total: float, capacity: float) -> bool:
    """``total`` at most ``capacity``, up to ``TOLERANCE``."""
    return total <= capacity * (1 + TOLERANCE) + TOLERANCE


EXACT_PACKING = 24
"""Most reserved ports on one host whose packing onto its uplinks is searched exactly; beyond,
first-fit decreasing alone decides (it may refuse a set an exact search would pack, never the
other way)."""


def pack(capacity: float, bins: int, sizes: Sequence[float]) -> list[int] | None:
    """An uplink for each of ``sizes`` (reservations, b/s) such that no uplink of ``bins`` holds
    more than ``capacity``, or None when none is found: first fit, largest first, then (up to
    ``EXACT_PACKING`` reserved ports) a search over every packing; unreserved ports take the
    uplink with fewest ports. Deterministic."""
    order = sorted((i for i, size in enumerate(sizes) if size > 0), key=lambda i: (-sizes[i], i))
    where = [0] * len(sizes)
    loads = [0.0] * bins
    if any(not within(sizes[i], capacity) for i in order):
        return None
    if bins == 1:
        return where if within(sum(sizes[i] for i in order), capacity) else None
    if _first_fit(capacity, sizes, order, where, loads):
        return _spread(bins, sizes, order, where)
    if len(order) > EXACT_PACKING:
        return None
    loads = [0.0] * bins

    def place(k: int) -> bool:
        if k == len(order):
            return True
        size, tried = sizes[order[k]], set()
        for b in range(bins):
            if loads[b] in tried or not within(loads[b] + size, capacity):
                continue  # an uplink as loaded as one tried leads to the same
            tried.add(loads[b])
            loads[b] += size
            where[order[k]] = b
            if place(k + 1):
                return True
            loads[b] -= size
        return False

    if not place(0):
        return None
    return _spread(bins, sizes, order, where)


def _first_fit(capacity: float, sizes: Sequence[float], order: list[int], where: list[int],
               loads: list[float]) -> bool:
    """Each of ``order`` on the first uplink with room (``where`` and ``loads`` filled in);
    whether all found one."""
    for i in order:
        b = next((b for b, load in enumerate(loads) if within(load + sizes[i], capacity)), None)
        if b is None:
            return False
        where[i] = b
        loads[b] += sizes[i]
    return True


def _spread(bins: int, sizes: Sequence[float], order: list[int], where: list[int]) -> list[int]:
    """``where`` with each unreserved port on the uplink with fewest ports so far."""
    counts = [0] * bins
    for i in order:
        counts[where[i]] += 1
    for i, size in enumerate(sizes):
        if size <= 0:
            where[i] = min(range(bins), key=lambda b: (counts[b], b))
            counts[where[i]] += 1
    return where


def refusal(capacity: Capacity, demands: Sequence[Demand]) -> str | None:
    """Why a host of ``capacity`` cannot meet every one of ``demands`` together, or None if it can."""
    cpu = sum(d.cpu for d in demands)
    if not within(cpu, capacity.cpu):
        return f"{cpu:g} CPUs reserved of its {capacity.cpu:g}"
    sizes = [d.bandwidth for d in demands]
    if pack(capacity.port_bandwidth, capacity.uplinks, sizes) is None:
        total = sum(sizes)
        per = f"{_gbps(capacity.port_bandwidth)} for VM traffic"
        if capacity.uplinks > 1:
            return (f"{_gbps(total)} of port reservations do not fit its {capacity.uplinks} uplinks of "
                    f"{per} each")
        return f"{_gbps(total)} of port reservations on an uplink reserving {per}"
    return None


def pool_overdraft(quota: float, reservations: Sequence[float]) -> float:
    """b/s by which ``reservations`` of a pool's VMs exceed its ``quota`` (0 when within it)."""
    total = sum(reservations)
    return 0.0 if within(total, quota) else total - quota


def _gbps(bps: float) -> str:
    """A rate as reports give it."""
    return f"{bps / 1e9:.4g} Gb/s"
