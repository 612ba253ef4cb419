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



def geometric_ratio(overload):
    """``s`` of the free-place distribution for ``overload`` = offered / served > 1.

    Newton's method from 0: ``f(s) = s - exp(-r (1 - s))`` is concave with
    ``f(0) < 0``, so the iterates rise monotonically to the root below 1 and
    never jump to the trivial root at 1.
    """
    if not overload > 1:
        raise ValueError(f"overload must exceed 1, got {overload!r}")
    s = 0.0
    for _ in range(200):
        e = math.exp(-overload * (1.0 - s))
        step = (s - e) / (1.0 - overload * e)
        s -= step
        if abs(step) < 1e-13:
            break
    return s


def draw_free_slots(rng, overload):
    """The free places at one random instant (a float, for arithmetic with rates)."""
    if rng.random() < 1.0 - 1.0 / overload:
        return 0.0
    s = geometric_ratio(overload)
    if s <= 0.0:
        return 1.0
    return 1.0 + math.floor(math.log(1.0 - rng.random()) / math.log(s))
