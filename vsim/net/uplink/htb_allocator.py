"""htb's sharing as a fluid: the b/s each class sends given what its leaves offer.

The kernel's rules (net/sched/sch_htb.c), read as rates:

1. a leaf sends on its own tokens up to its ``rate`` ("can send"), whatever
   its ancestors' state; every byte sent is charged to all its ancestors;
2. a leaf that wants more, up to its ``ceil``, borrows: an ancestor that is
   under its own rate lends what its rate leaves after all the traffic of
   its subtree, to the leaves below it whose classes on the way are all
   under their ceils;
3. lenders at lower levels lend first (the innermost classes, then their
   parents, the top classes last; a top class has no one to borrow from,
   so it sends at most its rate);
4. one lender serves its borrowing leaves by prio, lowest first, strictly;
   leaves of one prio share by deficit round robin of their ``quantum``
   bytes, i.e. in proportion to quantum, each up to what it still wants and
   what the ceils above it allow (water-filling, ``hclock.waterfill``, down
   the subtree with each child weighted by its borrowing leaves' quanta).

As in the kernel, children whose rates add up to more than their parent's
ceil overrun it when they all send (tc configurations keep them below).
``capacity`` is the link under the qdisc (``inf`` for a veth), in wire bits
(a frame's charged bytes take more on the wire): if the classes would send
more, every leaf is scaled down in proportion, a
simplification of the kernel's lower-level-first dequeue on a full link.
Demands and rates are b/s of charged bytes (``tc_bytes.charged_bytes``).
"""

import math

import numpy as np

from vsim.net.hclock.waterfill import waterfill
from vsim.net.uplink.htb_tree import PRIOS


def allocate(tree, demands, capacity=math.inf, wire_per_charged=None):
    """Rates in b/s for every class of ``tree`` (an ``HtbTree``), as a dict by name.

    ``demands`` maps leaf names to offered b/s (``math.inf`` for a
    backlogged leaf); leaves not named offer nothing. ``capacity`` counts
    wire bits: ``wire_per_charged`` maps a leaf to the wire bits each of its
    charged bits takes (frame, FCS, padding, preamble and gap over
    ``skb_len``; 1 for leaves not named), so the classes never send more
    than the wire carries.
    """
    sharing = _Sharing(tree, demands)
    for lender in sorted((n for n, c in tree.by_name.items() if c.children),
                         key=lambda n: -tree.depth[n]):
        budget = tree.rate[lender] - sharing.used(lender)
        for prio in range(PRIOS):
            if budget <= 0:
                break
            budget -= sharing.lend(lender, prio, budget)
    ratio = wire_per_charged or {}
    total = sum(sharing.alloc[leaf] * ratio.get(leaf, 1.0) for leaf in tree.leaves)
    scale = capacity / total if total > capacity else 1.0
    return {name: sharing.used(name) * scale for name in tree.by_name}


class _Sharing:
    """Leaves' rates while the lenders hand out their spare rate."""

    def __init__(self, tree, demands):
        self.tree = tree
        self.wanted = {leaf: min(float(demands.get(leaf, 0.0)), tree.ceil[leaf])
                       for leaf in tree.leaves}
        self.alloc = {leaf: min(self.wanted[leaf], tree.rate[leaf]) for leaf in tree.leaves}

    def used(self, name):
        return sum(self.alloc[leaf] for leaf in self.tree.leaves_under(name))

    def room(self, name, prio):
        """How much more the leaves of ``prio`` under ``name`` can take."""
        cls = self.tree.by_name[name]
        if not cls.children:
            if self.tree.prio[name] != prio:
                return 0.0
            return max(0.0, self.wanted[name] - self.alloc[name])
        below = sum(self.room(child.name, prio) for child in cls.children)
        return min(below, max(0.0, self.tree.ceil[name] - self.used(name)))

    def weight(self, name, prio):
        """Quanta of the leaves of ``prio`` under ``name`` that still want more."""
        return sum(self.tree.quantum[leaf] for leaf in self.tree.leaves_under(name)
                   if self.tree.prio[leaf] == prio and self.wanted[leaf] > self.alloc[leaf])

    def lend(self, name, prio, amount):
        """Hand ``amount`` down to the leaves of ``prio`` under ``name``; return what was taken."""
        children = [c.name for c in self.tree.by_name[name].children]
        rooms = np.array([self.room(c, prio) for c in children])
        weights = np.array([self.weight(c, prio) for c in children])
        eligible = np.flatnonzero((rooms > 0) & (weights > 0))
        if not eligible.size:
            return 0.0
        shares = waterfill(amount, weights[eligible], rooms[eligible])
        for i, share in zip(eligible, shares):
            child = children[i]
            if self.tree.by_name[child].children:
                self.lend(child, prio, float(share))
            else:
                self.alloc[child] += float(share)
        return float(shares.sum())
