"""The discrete packets a ``FluidPacketQueue`` holds: their departures, work and sizes.

Every burst reads what is still in the system when it arrives (how much work
and how many units), adds what it accepts and forgets what has left, a few
times each; as numpy arrays each of those is several calls of fixed cost on
a handful of packets. Here they are lists kept in departure order, compiled
with mypyc (``vsim/native.py``), and the sums are numpy's own pairwise
summation (``numpy_sum``), so a queue holds the same floats whichever way it
is built.
"""

import math
from bisect import bisect_right
from typing import Final, List, Tuple

PAIRWISE_BLOCK: Final = 128
"""numpy's ``PW_BLOCKSIZE``: the longest run it sums with eight accumulators before halving."""


def numpy_sum(values: List[float], start: int) -> float:
    """``float(np.array(values)[start:].sum())``, by numpy's pairwise summation of doubles."""
    n = len(values) - start
    return _pairwise(values, start, n) if n > 0 else 0.0


def _pairwise(a: List[float], lo: int, n: int) -> float:
    """numpy's ``pairwise_sum`` of ``a[lo:lo + n]``: a plain loop under 8 values, eight
    interleaved accumulators up to ``PAIRWISE_BLOCK``, and halves (at a multiple of 8) above."""
    if n < 8:
        res = -0.0
        for i in range(lo, lo + n):
            res += a[i]
        return res
    if n <= PAIRWISE_BLOCK:
        r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
        r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
        i = 8
        whole = n - n % 8
        while i < whole:
            j = lo + i
            r0 += a[j]
            r1 += a[j + 1]
            r2 += a[j + 2]
            r3 += a[j + 3]
            r4 += a[j + 4]
            r5 += a[j + 5]
            r6 += a[j + 6]
            r7 += a[j + 7]
            i += 8
        res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        while i < n:
            res += a[lo + i]
            i += 1
        return res
    half = n // 2
    half -= half % 8
    return _pairwise(a, lo, half) + _pairwise(a, lo + half, n - half)


class InSystem:
    """Packets accepted and not yet gone, in departure order (ties in the order accepted)."""

    def __init__(self) -> None:
        self.departures: List[float] = []
        self.work: List[float] = []
        self.units: List[float] = []

    def __len__(self) -> int:
        return len(self.departures)

    def forget(self, t: float) -> None:
        """Drop the packets gone by ``t`` (a departure at ``t`` is gone)."""
        k = bisect_right(self.departures, t)
        if k:
            del self.departures[:k]
            del self.work[:k]
            del self.units[:k]

    def count_after(self, t: float) -> int:
        """Packets still in the system at ``t``."""
        return len(self.departures) - bisect_right(self.departures, t)

    def totals_after(self, t: float) -> Tuple[float, float]:
        """(work, units) of the packets still in the system at ``t``."""
        k = bisect_right(self.departures, t)
        return numpy_sum(self.work, k), numpy_sum(self.units, k)

    def next_departure_after(self, t: float) -> float:
        """The first departure after ``t`` (infinity when none is left)."""
        k = bisect_right(self.departures, t)
        return self.departures[k] if k < len(self.departures) else math.inf

    def last_departure(self) -> float:
        """The last departure (minus infinity when the system is empty)."""
        return self.departures[-1] if self.departures else -math.inf

    def admit(self, work: List[float], units: List[float], departures: List[float]) -> None:
        """Add packets: the lists stay in departure order, the packets already there first at
        equal times (a stable sort of old and new together)."""
        if not departures:
            return
        old = self.departures
        in_order = not old or old[-1] <= departures[0]
        for i in range(1, len(departures)):
            if departures[i] < departures[i - 1]:
                in_order = False
                break
        if in_order:
            old.extend(departures)
            self.work.extend(work)
            self.units.extend(units)
            return
        every = old + departures
        all_work = self.work + work
        all_units = self.units + units
        order = sorted(range(len(every)), key=every.__getitem__)
        self.departures = [every[i] for i in order]
        self.work = [all_work[i] for i in order]
        self.units = [all_units[i] for i in order]
