"""The packets a fluid's flows are made of, and when they arrive, where the queue draws them.

Where a queue realizes its fluid packet by packet (the joint regime,
``vsim.net.fluid.realized``) each flow's packets arrive as its source
declares:

- ``paced``: evenly spaced, one every ``1 / pps`` seconds, as a sender pacing
  datagrams by a clock does (``vsim probe net``'s flood sleeps to absolute
  deadlines). Only the phase is random, drawn once from the queue's
  generator, and kept while the flow's rate holds, so the spacing stays
  even across the queue's changes of regime;
- ``poisson``: independent arrivals at rate ``pps`` (the superposition of
  many independent senders; what the free-place law of
  ``vsim.net.fluid.free_slots`` assumes).

A fluid known only by its totals (no flows declared) is one Poisson flow.
"""

import math
from dataclasses import dataclass

import numpy as np

ARRIVALS = ("paced", "poisson")
"""The arrival processes a source may declare."""


@dataclass(frozen=True)
class FloodPackets:
    """One entry per flow: packets/s, each packet's link work and limit units, whether it is
    paced (else Poisson), and a key naming the flow (its phase is kept under that key)."""

    pps: np.ndarray
    work: np.ndarray
    units: np.ndarray
    paced: np.ndarray
    keys: tuple

    @classmethod
    def of(cls, pps, work, units, paced, keys):
        pps = np.atleast_1d(np.asarray(pps, dtype=float))
        shape = pps.shape
        work = np.broadcast_to(np.asarray(work, dtype=float), shape).copy()
        units = np.broadcast_to(np.asarray(units, dtype=float), shape).copy()
        paced = np.broadcast_to(np.asarray(paced, dtype=bool), shape).copy()
        keys = tuple(keys)
        if len(keys) != pps.size:
            raise ValueError("every flow needs a key")
        if not (np.all(pps > 0) and np.all(work > 0) and np.all(units > 0)):
            raise ValueError("flows realized as packets need positive rates, work and units")
        return cls(pps, work, units, paced, keys)

    @classmethod
    def none(cls):
        """No flood at all."""
        return cls.of(np.zeros(0), 1.0, 1.0, False, ())

    @classmethod
    def poisson(cls, pps, work, units):
        """A fluid known only by its totals: one Poisson flow of its mean packet."""
        return cls.of(pps, work, units, False, (None,))

    def __len__(self):
        return self.pps.size


def first_paced(rng, t, period, resumed=None):
    """The first arrival at or after ``t`` of a paced flow: on the grid of ``resumed`` (an
    earlier next arrival of the same flow at the same rate), else at a random phase."""
    if resumed is None:
        return t + rng.random() * period
    if resumed >= t:
        return resumed
    return resumed + math.ceil((t - resumed) / period) * period


def paced_times(next_at, period, until):
    """Arrivals from ``next_at`` every ``period`` before ``until``, and the next one after."""
    if next_at >= until:
        return np.empty(0), next_at
    count = int(math.ceil((until - next_at) / period))
    times = next_at + period * np.arange(count)
    if times[-1] >= until:  # rounding at the edge: that one belongs to the next span
        times = times[:-1]
    return times, next_at + period * times.size


def poisson_times(rng, pps, start, until):
    """Sorted Poisson arrivals at ``pps`` in [``start``, ``until``)."""
    span = until - start
    count = rng.poisson(pps * span) if span > 0 and pps > 0 else 0
    return np.sort(rng.uniform(start, until, count)) if count else np.empty(0)
