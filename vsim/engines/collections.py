"""The cyclic garbage collector paced for a run: fewer collections of the young objects.

A run allocates and drops a container object or more per event (a SIP message, a queued
call, a transaction's record), so CPython's default of a young collection every 700 net
allocations collects some 9 times a simulated second of a Xen appliance at 600 calls/s, and
every tenth of those looks at the older objects too, the built model among them.
``fewer_collections`` raises the young threshold for the run and sets the built model
aside (``gc.freeze``): the model lives as long as the run, and a collection need not walk
it. Nothing of a run's results depends on when cycles are collected (no model has a
finaliser), so the outputs are the same bytes.

What is frozen at a run's start includes the garbage of the runs before it in the same
process (a model is a graph of cycles, freed only by a collection), and a collection
after ``unfreeze`` rarely looks at the oldest objects again: a sweep worker that ran sixty
Xen points held 1.1 GiB, and took 13 s to exit, collecting them all. So when more than
``FROZEN_LIMIT`` objects would be frozen, the garbage is collected first: the worker's
memory stays bounded, at the cost of the collection (some 0.7 µs an object) it would
have paid at its exit.
"""

import gc
from contextlib import contextmanager
from typing import Iterator

YOUNG_THRESHOLD = 50_000
"""Net allocations of container objects between young collections during a run (CPython's
default: 700). At some 100 bytes an object, a few MiB held at most before a collection."""

FROZEN_LIMIT = 1_000_000
"""Objects alive at a run's start above which the garbage among them is collected before
they are frozen: some 150 MiB of earlier runs' models, five Xen points' worth."""


def leave_objects_to_exit() -> None:
    """Set every object alive aside from the collector (``gc.freeze``) as the process ends:
    the interpreter's last collection would otherwise walk all its runs left alive (a tenth
    of a second after 300 s of the 12-instance point, up to a second for a sweep worker's
    last runs) only to free memory the process gives back as it ends. Objects are still
    torn down as before, and every command closes its files itself."""
    gc.freeze()


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Inside: the young threshold at ``YOUNG_THRESHOLD`` and the objects alive on entry frozen;
    on leaving, both as they were."""
    thresholds = gc.get_threshold()
    gc.freeze()
    if gc.get_freeze_count() > FROZEN_LIMIT:
        gc.unfreeze()
        gc.collect()
        gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, *thresholds[1:])
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()
