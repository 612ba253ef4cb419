"""The class tree of an htb qdisc, checked as tc and the kernel would take it.

A class has a ``rate`` (b/s it may always send, its own tokens) and a
``ceil`` (b/s it never exceeds, borrowing included; tc's default is the
rate), and the depths of the two buckets, ``burst`` for the rate and
``cburst`` for the ceil (bytes; tc's default is rate/hz + 1600 bytes with
hz = 10^9 on kernels with high-resolution timers, i.e. about 1600 bytes).
Leaf classes carry a ``quantum`` (bytes; their weight when they
share borrowed bandwidth, by default rate/8/r2q clamped to 1000..200000
bytes, as the kernel sets it) and a ``prio`` (0..7, lower borrows first),
and hold the queue packets wait in: a pfifo (or bfifo) of ``limit``, by
default the device's txqueuelen. The kernel ignores quantum and prio on
inner classes (a leaf's own decide its share of what it borrows); tc takes
them without a word, and so does this tree (``vsim.build.htb`` notes that
they change nothing). A queue ``limit`` on an inner class, which has
no queue, is refused. Rates count the bytes of
``vsim.net.uplink.tc_bytes.charged_bytes``.
"""

import math
from dataclasses import dataclass, field
from typing import Optional, Tuple

from vsim.core.errors import InputError
from vsim.net.uplink.tc_bytes import HTB_R2Q, htb_default_burst, htb_default_quantum

PRIOS = 8
"""``TC_HTB_NUMPRIO``: prio 0 (first) to 7."""


@dataclass(frozen=True)
class HtbClass:
    """One htb class; rates in b/s, ``quantum`` in bytes, ``limit`` in the leaf queue's unit."""

    name: str
    rate: float
    ceil: Optional[float] = None
    burst: Optional[float] = None
    cburst: Optional[float] = None
    quantum: Optional[float] = None
    prio: Optional[int] = None
    limit: Optional[float] = None
    children: Tuple["HtbClass", ...] = field(default_factory=tuple)


class HtbTree:
    """A validated forest of htb classes (several top classes may hang under the qdisc).

    ``source`` names the configuration for error messages. ``leaves`` lists
    leaf names in tree order; ``rate``, ``ceil``, ``burst``, ``cburst``,
    ``quantum``, ``prio``, ``parent`` and ``depth`` are dicts by class name
    (quantum and prio for leaves only).
    """

    def __init__(self, classes, source="htb", r2q=HTB_R2Q):
        self.source = source
        self.top = tuple(classes)
        if not self.top:
            raise InputError(source, "classes", "at least one htb class")
        self.by_name, self.parent, self.depth = {}, {}, {}
        self.rate, self.ceil, self.quantum, self.prio = {}, {}, {}, {}
        self.burst, self.cburst = {}, {}
        self.leaves = []
        for cls in self.top:
            self._check(cls, None, 0, r2q)

    def _check(self, cls, parent, depth, r2q):
        where = cls.name if parent is None else f"{parent.name}.{cls.name}"

        def refuse(tag, expected):
            raise InputError(self.source, f"{where}.{tag}" if tag else where, expected)

        if cls.name in self.by_name:
            refuse(None, "a class name used once in the tree")
        if not (_number(cls.rate) and 0 < cls.rate < math.inf):
            refuse("rate", f"a positive finite rate in b/s, got {cls.rate!r}")
        ceil = cls.rate if cls.ceil is None else cls.ceil
        if not (_number(ceil) and cls.rate <= ceil < math.inf):
            refuse("ceil", f"a finite rate of at least the class's rate {cls.rate:.6g} b/s, "
                           f"got {ceil!r}")
        for tag, rate in (("burst", cls.rate), ("cburst", ceil)):
            given = getattr(cls, tag)
            depth_bytes = htb_default_burst(rate) if given is None else given
            if not (_number(depth_bytes) and 0 < depth_bytes < math.inf):
                refuse(tag, f"positive bytes, got {depth_bytes!r}")
            getattr(self, tag)[cls.name] = float(depth_bytes)
        if cls.children:
            if cls.limit is not None:
                refuse("limit", "no value: an inner class has no queue (limit applies to leaf classes only)")
            # quantum and prio of an inner class: taken, as tc takes them, and unused
        else:
            quantum = htb_default_quantum(cls.rate, r2q) if cls.quantum is None else cls.quantum
            if not (_number(quantum) and 0 < quantum < math.inf):
                refuse("quantum", f"positive bytes, got {quantum!r}")
            prio = 0 if cls.prio is None else cls.prio
            if not (isinstance(prio, int) and 0 <= prio < PRIOS):
                refuse("prio", f"an integer 0..{PRIOS - 1}, got {prio!r}")
            if cls.limit is not None and not (_number(cls.limit) and cls.limit > 0):
                refuse("limit", f"a positive queue limit, got {cls.limit!r}")
            self.quantum[cls.name] = float(quantum)
            self.prio[cls.name] = prio
            self.leaves.append(cls.name)
        self.by_name[cls.name] = cls
        self.parent[cls.name] = None if parent is None else parent.name
        self.depth[cls.name] = depth
        self.rate[cls.name] = float(cls.rate)
        self.ceil[cls.name] = float(ceil)
        for child in cls.children:
            self._check(child, cls, depth + 1, r2q)

    def leaves_under(self, name):
        """Leaf names in the subtree of ``name`` (itself if a leaf)."""
        cls = self.by_name[name]
        if not cls.children:
            return [name]
        return [leaf for child in cls.children for leaf in self.leaves_under(child.name)]


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)
