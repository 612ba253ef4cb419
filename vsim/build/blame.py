"""Which value to blame when a run's estimated work or memory is too large.

Each part of an estimate (a ``Term``) is a product of values of the scenario or the
command line (``Factor``s): the frames are VMs times streams per VM, the guest bursts
VMs over the mean interval between them. When the estimate is too large, the value
to change is the one furthest beyond its usual value (its default, or its model's),
among the factors of the largest part and the run's length and replications: the
``--set vm.streams_per_instance=1000000000`` that made the frames huge, not the run's
ordinary 300 s.
"""

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Factor:
    """One value an estimate grows with: its key (where to change it), its value, its usual
    value, where the value came from, whether the estimate grows as it falls (an interval),
    and its unit."""

    key: str
    value: float
    usual: float
    origin: str
    inverse: bool = False
    unit: str = ""

    def excess(self):
        """How many times beyond its usual value it is, in the direction the estimate grows
        (inf for a value the estimate has none of usually, such as host background tasks)."""
        high, low = (self.usual, self.value) if self.inverse else (self.value, self.usual)
        if low <= 0:
            return math.inf if high > 0 else 1.0
        return high / low

    def text(self):
        unit = f" {self.unit}" if self.unit else ""
        return f"{self.key} = {self.value:g}{unit} ({self.origin})"


@dataclass(frozen=True)
class Term:
    """One part of an estimate: what it counts, its size, and the factors it is the product of."""

    what: str
    rate: float
    factors: tuple[Factor, ...]


def blamed_factor(factors):
    """The factor furthest beyond its usual value; the first of them on a tie."""
    return max(factors, key=lambda factor: factor.excess())


def scaled_to_fit(factor, fixed, share, limit):
    """What ``factor`` should be for a total of ``fixed`` plus ``share`` (the part that grows
    in proportion to it, or to its inverse) to stay within ``limit``: the expectation of a
    refusal, as ``KEY <= VALUE`` (``>=`` for an interval)."""
    if share <= 0 or limit <= fixed:
        return f"a {'larger' if factor.inverse else 'smaller'} {factor.key}, and less of the rest"
    scale = (limit - fixed) / share
    if factor.inverse:
        return f"{factor.key} >= {factor.value / scale:.3g}{' ' + factor.unit if factor.unit else ''}"
    fit = factor.value * scale
    return f"{factor.key} <= {math.floor(fit) if isinstance(factor.value, int) else f'{fit:.3g}'}"
