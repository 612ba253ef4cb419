"""hClock/NetIOC bandwidth allocation as a fluid: who gets how many b/s.

At every node, from the root down, the node's allocation is divided among its
children:

1. each child's *demand* is what its leaves ask for, capped by the child's
   limit (and the limits on the way down);
2. reservations first: each child is given ``min(reservation, demand)``, so a
   reservation its traffic does not use goes back to the others;
3. if the parent's allocation cannot cover those (the uplink running below
   its nominal rate, a congested or flow-controlled link), it is divided in
   proportion to the reservations instead (vSphere 6 NetIOC best practices);
4. otherwise what is left is divided by shares among the children still
   under their demand (water-filling): additive on top of the reservations,
   as the study's Fig 2 shows (9.4 - 7.5 Gb/s left, a third each: VM1 8.1,
   VM2 and VM3 0.6 Gb/s).

The result is work-conserving: the uplink hands out ``min(capacity, total
demand)``. Allocating a leaf with infinite demand gives the rate its traffic
is served at while it is backlogged (its GPS rate), which the packet model
uses for a queue's service rate.
"""

import math

import numpy as np

from vsim.core.errors import InputError
from vsim.net.hclock.waterfill import waterfill


def allocate(tree, demands, available=None):
    """Rates in b/s for every node of ``tree`` (a ``Tree``), as a dict by node name.

    ``demands`` maps leaf names to the b/s their traffic offers (``math.inf``
    for a backlogged source); leaves not named demand nothing. ``available``
    is the capacity the uplink achieves now, by default its nominal capacity.
    """
    available = tree.capacity if available is None else available
    if not (isinstance(available, (int, float)) and available >= 0 and not math.isnan(available)):
        raise InputError(tree.source, "available", f"a non-negative rate in b/s, got {available!r}")
    for name, demand in demands.items():
        if name not in tree.by_name or tree.by_name[name].children:
            raise InputError(tree.source, f"demands.{name}",
                             f"the name of a leaf, one of {', '.join(sorted(tree.leaves))}")
        if not (isinstance(demand, (int, float)) and demand >= 0 and not math.isnan(demand)):
            raise InputError(tree.source, f"demands.{name}",
                             f"a non-negative rate in b/s, got {demand!r}")
    wanted: dict[str, float] = {}
    for node in tree.nodes:
        _demand(node, demands, wanted)
    rates: dict[str, float] = {}
    _divide(tree.nodes, available, wanted, rates)
    return rates


def _demand(node, demands, wanted):
    if node.children:
        total = sum(_demand(child, demands, wanted) for child in node.children)
    else:
        total = demands.get(node.name, 0.0)
    wanted[node.name] = min(node.limit, total)
    return wanted[node.name]


def _divide(children, amount, wanted, rates):
    demand = np.array([wanted[child.name] for child in children])
    reservation = np.array([child.reservation for child in children])
    floors = np.minimum(reservation, demand)
    if floors.sum() > amount:
        shares = waterfill(amount, np.where(reservation > 0, reservation, 1.0), floors)
    else:
        weights = np.array([child.shares for child in children])
        shares = floors + waterfill(amount - floors.sum(), weights, demand - floors)
    for child, rate in zip(children, shares):
        rates[child.name] = float(rate)
        if child.children:
            _divide(child.children, float(rate), wanted, rates)
