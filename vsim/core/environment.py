"""A SimPy environment with a lean path for timed callbacks.

Nearly every event of a host model is "call ``f(arg)`` after ``delay``": a
job's completion, a quantum's expiry, a guest timer. SimPy builds an
``Event`` with its own callback list for each and runs it through the
generic event machinery. ``Environment.call_later`` queues the callback and its
argument in a heap of the clock's own instead (``vsim.core.clock``), numbered
from SimPy's own event counter, and ``step`` runs whichever of the two queues'
heads comes first, so plain callbacks and SimPy events (processes, resources,
``run(until=...)``) keep one order: by time, then priority, then scheduling
order. ``run`` is SimPy's, its loop over the events compiled in the clock. A
model written against plain SimPy still runs unchanged, and
``scheduler_for(env)`` gives any SimPy environment the same interface.

The clock is ``now``, SimPy's public name for it. The time itself is kept in ``clock`` (a
``vsim.core.clock.Clock``, compiled), which each event sets and the compiled models read
as a field (``vsim.core.clock.time_now``); ``now`` reads it through a C-level getter
(``operator.attrgetter``, no Python frame), and SimPy's private ``_now`` is a property over
it for SimPy's own code (its ``step`` and ``schedule``, run only for SimPy events:
processes, ``run(until=...)``). Setting a Python attribute of this object at every event
as well cost more than the few readings of ``now`` by interpreted models. A model given a
plain ``simpy.Environment`` reads the same ``now``, at SimPy's speed.

This relies on SimPy 4's queue layout ``(time, priority, id, event)`` and its
``_queue``, ``_eid`` and ``_now`` attributes, hence ``simpy<5`` in setup.cfg;
``tests/core/test_core_environment.py`` checks the order against SimPy's own.
"""

from operator import attrgetter
from typing import Any, Callable

import simpy
from simpy.core import EmptySchedule, StopSimulation
from simpy.events import NORMAL, URGENT, Event, EventPriority, Timeout

from vsim.core.clock import Clock

Scheduler = Callable[[float, Callable[[Any], Any], Any], None]
"""``call_later(delay, callback, arg)``: call ``callback(arg)`` ``delay`` seconds from now."""


class Environment(simpy.Environment):
    """``simpy.Environment`` plus ``call_later`` for callbacks that need no event object, and
    its ``now`` read from its compiled clock (see the module's docstring)."""

    __slots__ = ("clock",)

    now = property(attrgetter("clock.now"),  # type: ignore[assignment]
                   doc="The simulated time: the clock's, set by every event.")

    def __init__(self, initial_time: float = 0) -> None:
        self.clock = Clock()
        super().__init__(initial_time)
        self.clock.queue = self._queue  # SimPy's events; the plain calls are in the clock's heap
        # one counter numbers SimPy's events and the plain calls (SimPy types it as its count)
        self._eid = self.clock.ids  # type: ignore[assignment, misc]

    @property
    def _now(self) -> float:
        """SimPy's private name for the clock, for SimPy's own code."""
        return self.clock.now

    @_now.setter
    def _now(self, t: float) -> None:
        self.clock.now = t

    def call_later(self, delay: float, callback: Callable[[Any], Any], arg: Any) -> None:
        """Call ``callback(arg)`` at ``now + delay`` (``delay`` >= 0)."""
        self.clock.call_later(delay, callback, arg)

    def schedule(self, event: Event, priority: EventPriority = NORMAL, delay: float = 0) -> None:
        """SimPy's ``schedule``; the clock notes SimPy's first event again."""
        super().schedule(event, priority, delay)
        self.clock.simpy_changed()

    def step(self) -> None:
        """Run the next event: the clock's next plain call, or SimPy's next event."""
        if not self.clock.run_plain_call():
            try:
                super().step()
            finally:
                self.clock.simpy_changed()

    def run(self, until: Any = None) -> Any:
        """SimPy's ``run``: to the time (or event) ``until``, or until no event is left; the
        loop over the events is the clock's (``Clock.run_events``), not one Python call of
        ``step`` an event."""
        if until is not None:
            if not isinstance(until, Event):
                at = until if isinstance(until, int) else float(until)
                if at <= self.now:
                    raise ValueError(f"until ({at}) must be greater than the current simulation time")
                until = Event(self)
                until._ok = True
                until._value = None
                self.schedule(until, URGENT, at - self.now)
            elif until.callbacks is None:  # processed already
                return until.value
            until.callbacks.append(StopSimulation.callback)
        try:
            self.clock.run_events(super().step)
        except StopSimulation as stop:
            return stop.args[0]
        except EmptySchedule:
            if until is not None:
                raise RuntimeError(f'No scheduled events left but "until" event was not triggered: {until}') from None
        return None

    def peek(self) -> float:
        """The time of the next event, plain or SimPy's (infinity: none)."""
        return self.clock.next_time()


def scheduler_for(env: simpy.Environment) -> Scheduler:
    """A ``(delay, callback, arg)`` scheduler for any SimPy environment.

    ``Environment.call_later`` (its clock's, compiled) where the environment has it, otherwise the
    same through a SimPy ``Timeout``.
    """
    if isinstance(env, Environment):
        return env.clock.call_later

    def call_later(delay: float, callback: Callable[[Any], Any], arg: Any) -> None:
        Timeout(env, delay, arg).callbacks.append(lambda event: callback(event.value))
    return call_later
