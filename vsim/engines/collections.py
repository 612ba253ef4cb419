"""The cyclic garbage collector paced for a run: fewer collections of the young objects.

A run allocates and drops a container object or more per event (a SIP message, a queued
call, a transaction's record), so CPython's default of a young collection every 700 net
allocations collects some 9 times a simulated second of a Xen appliance at 600 calls/s, and
every tenth of those looks at the older objects too, the built model among them.
``fewer_collections`` raises the young threshold for the run and sets the built model
aside (``gc.freeze``): the model lives as long as the run, and a collection need not walk
it. Nothing of a run's results depends on when cycles are collected (no model has a
finaliser), so the outputs are the same bytes.
"""

import gc
from contextlib import contextmanager
from typing import Iterator

YOUNG_THRESHOLD = 50_000
"""Net allocations of container objects between young collections during a run (CPython's
default: 700). At some 100 bytes an object, a few MiB held at most before a collection."""


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Inside: the young threshold at ``YOUNG_THRESHOLD`` and the objects alive on entry frozen;
    on leaving, both as they were."""
    thresholds = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, *thresholds[1:])
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()
