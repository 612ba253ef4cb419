"""A TCP stream's rate as the least of its bounds: the wire, the window over the round trip, and
what each CPU on its path can process.

Each CPU on the path does some ``Work`` per byte of data delivered (its
layers' per-packet costs over the bytes a packet carries, its per-byte
costs, the ACKs it sends or takes); it can keep up with the stream up to the
rate at which that work fills it. Interrupts throttled to ``interrupt_hz``
stop growing with the rate once at the cap, so a CPU's load is piecewise
linear in the rate and its bound is found exactly (``cpu_rate``).
"""

import math
from dataclasses import dataclass


def cpu_rate(works):
    """The rate (bytes of data/s) at which ``works``, all on one CPU, fill it: the r with
    sum(work.load(r)) = 1 (inf when nothing costs anything)."""
    capped = sorted((w for w in works if w.interrupts_per_byte > 0 and math.isfinite(w.interrupt_hz)
                     and w.interrupt_cost > 0),
                    key=lambda w: w.interrupt_hz / w.interrupts_per_byte)
    base = sum(w.seconds_per_byte for w in works)
    growing = [w for w in works if w not in capped]
    for index, work in enumerate(capped + [None]):
        # below this work's cap: the capped works before it pay their cap, the rest grow
        end = math.inf if work is None else work.interrupt_hz / work.interrupts_per_byte
        slope = base + sum(w.interrupts_per_byte * w.interrupt_cost for w in growing + capped[index:])
        constant = sum(w.interrupt_hz * w.interrupt_cost for w in capped[:index])
        if constant >= 1:
            return 0.0
        if slope <= 0:
            return math.inf
        rate = (1.0 - constant) / slope
        if rate <= end:
            return rate
    return math.inf  # not reached: the last segment has no end


@dataclass(frozen=True)
class Throughput:
    """A stream's rate (bytes of data/s), the bound that sets it, every bound and each CPU's
    busy share at that rate."""

    rate: float
    limit: str
    bounds: dict
    utilisation: dict

    @property
    def mbps(self):
        return self.rate * 8 / 1e6


def tcp_throughput(works, wire=math.inf, window=math.inf):
    """The stream's ``Throughput``: the least of ``wire`` and ``window`` (bytes of data/s) and
    each CPU's ``cpu_rate`` over its ``works``. Ties go to the earlier bound: wire, window,
    then CPUs in the order their work first appears."""
    bounds = {"wire": wire, "window": window}
    for cpu in dict.fromkeys(w.cpu for w in works):
        bounds[f"cpu {cpu}"] = cpu_rate([w for w in works if w.cpu == cpu])
    limit = min(bounds, key=lambda name: bounds[name])
    rate = bounds[limit]
    utilisation = {cpu: sum(w.load(rate) for w in works if w.cpu == cpu)
                   for cpu in dict.fromkeys(w.cpu for w in works)} if math.isfinite(rate) else {}
    return Throughput(rate, limit, bounds, utilisation)
