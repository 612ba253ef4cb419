"""Free places in a drop-tail queue that a packet flood keeps full.

A fluid that offers more than the link serves fills the queue to its limit,
but its packets are discrete: every departure opens a place, and the place
stays open until the next flood packet arrives. Seen from the free places,
the queue is a D/M/1 queue: places "arrive" at the link's departure rate,
one per service time (deterministic), and are "served" by flood packets
arriving as a Poisson stream. With ``r`` = offered / served > 1, at a random
instant (Kleinrock, Queueing Systems vol. 1, section 6.4, G/M/1):

    P(no free place) = 1 - 1/r
    P(k free places) = (1/r) (1 - s) s^(k-1),  k >= 1,
    where s in (0, 1) solves s = exp(-r (1 - s)).

A single packet arriving at a random instant is therefore dropped with
probability ``1 - 1/r = (offered - capacity) / offered``, the same loss the
flood itself sees, as drop-tail gives every flow; a burst takes the free
places there are and loses the rest.
"""

import math

import numpy as np
from scipy.optimize import brentq


def geometric_ratio(overload):
    """``s`` of the free-place distribution for ``overload`` = offered / served > 1."""
    if not overload > 1:
        raise ValueError(f"overload must exceed 1, got {overload!r}")
    return brentq(lambda s: s - math.exp(-overload * (1 - s)), 0.0, 1.0 - 1e-15,
                  xtol=1e-15) if overload < 700 else 0.0


def mean_free_slots(overload):
    """Mean number of free places at a random instant."""
    s = geometric_ratio(overload)
    return 1.0 / (overload * (1.0 - s))


def draw_free_slots(rng, overload, size):
    """``size`` independent draws of the free places at random instants."""
    s = geometric_ratio(overload)
    some = rng.random(size) >= 1.0 - 1.0 / overload
    if s <= 0.0:
        return some.astype(float)
    extra = np.floor(np.log(1.0 - rng.random(size)) / math.log(s))
    return np.where(some, 1.0 + extra, 0.0)
