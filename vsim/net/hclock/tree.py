"""The NetIOC resource tree: traffic classes, resource pools and ports.

A node carries hClock's three tags: a reservation (b/s it is guaranteed), a
limit (b/s it never exceeds) and shares (its weight for what is left). The
tree has up to three levels under the uplink: traffic classes (VM,
management, NFS, iSCSI, vMotion, FT, vSAN, replication, backup), resource
pools inside a class, and ports (vNICs, VMkernel NICs) inside a pool or
directly in a class. A class with no children is itself a leaf (a VMkernel
traffic type with one port); a pool must hold ports.

``Tree`` checks what NetIOC refuses (vSphere 6 NetIOC: reservations at most
75 % of the uplink's capacity; a reservation over its parent's; a limit
below the reservation; shares, limits and capacity that are not positive)
and raises ``InputError`` naming the node and what was expected.
"""

import math
from dataclasses import dataclass, field
from typing import Tuple

from vsim.core.errors import InputError

RESERVABLE_FRACTION = 0.75
"""Largest fraction of an uplink's capacity NetIOC lets be reserved
(netioc-vsphere6, test methodology step 2; claim netioc6.reservation_cap_fraction)."""

SHARES_NORMAL = 50.0
"""NetIOC v3's Normal share preset, a node's shares unless set: shares 1-100, Low/Normal/High =
25/50/100 (vSphere 6 Networking guide, "Network I/O Control version 3")."""

KINDS = ("class", "pool", "port")


@dataclass(frozen=True)
class Node:
    """One node of the tree: ``kind`` is "class", "pool" or "port"; rates in b/s."""

    name: str
    kind: str = "port"
    shares: float = SHARES_NORMAL
    reservation: float = 0.0
    limit: float = math.inf
    children: Tuple["Node", ...] = field(default_factory=tuple)


class Tree:
    """A validated tree of nodes under an uplink of ``capacity`` b/s.

    ``source`` names the configuration the tree came from, for error messages,
    which give rates in ``unit`` (its name and b/s per unit, as the
    configuration writes them) and name a rate tag with ``key_suffix`` appended
    (``"_mbps"`` for a configuration's ``reservation_mbps``). Leaves (ports,
    and classes without children) are the nodes traffic is charged to;
    ``leaves`` lists their names in tree order.
    """

    def __init__(self, nodes, capacity, source="netioc", unit=("b/s", 1.0), key_suffix=""):
        self.source = source
        self.unit, self.key_suffix = unit, key_suffix
        if not (isinstance(capacity, (int, float)) and math.isfinite(capacity) and capacity > 0):
            raise InputError(source, "capacity", f"a positive finite rate in b/s, got {capacity!r}")
        self.capacity = float(capacity)
        self.nodes = tuple(nodes)
        self.by_name = {}
        self.parent = {}
        self.leaves = []
        for node in self.nodes:
            self._check(node, None)
        reserved = sum(node.reservation for node in self.nodes)
        cap = RESERVABLE_FRACTION * self.capacity
        if reserved > cap * (1 + 1e-12):
            raise InputError(
                source, f"reservation{key_suffix}",
                f"reservations totalling at most {self._rate(cap)} "
                f"({RESERVABLE_FRACTION:.0%} of the {self._rate(self.capacity)} uplink), "
                f"got {self._rate(reserved)}")

    def _rate(self, bps):
        """A rate in b/s as the error messages give it: in ``unit``."""
        name, per_unit = self.unit
        return f"{bps / per_unit:.6g} {name}"

    def _check(self, node, parent):
        where = node.name if parent is None else f"{parent.name}.{node.name}"
        if node.name in self.by_name:
            raise InputError(self.source, where, "a node name used once in the tree")
        if node.kind not in KINDS:
            raise InputError(self.source, where, f"kind one of {', '.join(KINDS)}, got {node.kind!r}")
        suffix = self.key_suffix
        for tag, key in (("shares", "shares"), ("limit", f"limit{suffix}")):
            value = getattr(node, tag)
            if not (isinstance(value, (int, float)) and value > 0 and not math.isnan(value)):
                raise InputError(self.source, f"{where}.{key}", f"a positive number, got {value!r}")
        if not (isinstance(node.reservation, (int, float)) and math.isfinite(node.reservation)
                and node.reservation >= 0):
            raise InputError(self.source, f"{where}.reservation{suffix}",
                             f"a non-negative finite rate, got {node.reservation!r}")
        if node.limit < node.reservation:
            raise InputError(self.source, f"{where}.limit{suffix}",
                             f"a limit of at least the reservation {self._rate(node.reservation)}, "
                             f"got {self._rate(node.limit)}")
        if node.kind == "pool" and not node.children:
            raise InputError(self.source, where, "a resource pool holding at least one port")
        if node.kind == "port" and node.children:
            raise InputError(self.source, where, "a port without children")
        inner = sum(child.reservation for child in node.children)
        if inner > node.reservation * (1 + 1e-12):
            raise InputError(
                self.source, f"{where}.reservation{suffix}",
                f"at least the sum of its children's reservations ({self._rate(inner)}), "
                f"got {self._rate(node.reservation)}")
        self.by_name[node.name] = node
        self.parent[node.name] = parent.name if parent is not None else None
        if not node.children:
            self.leaves.append(node.name)
        for child in node.children:
            self._check(child, node)
