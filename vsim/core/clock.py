"""The simulated time and the queue of plain calls, compiled, read by compiled models
without a look-up.

The event loop of ``vsim.core.environment.Environment`` sets ``Clock.now`` before it runs
each event, and the environment's ``now`` reads it. Compiled code (``vsim/native.py``)
reads the time several times an event; from a compiled object that is a field, where
``env.now`` of a Python object is an attribute look-up and a float unboxed each time.

Nearly every event is a plain call, "call ``f(arg)`` at time t" (``Clock.call_later``).
Those wait in a heap of the clock's own (``vsim.core.timed_heap``), ordered by their time
and then their number, compared as native numbers: in SimPy's queue they would be tuples
compared element by element as Python objects. SimPy's own events (processes,
``run(until=...)``) stay in SimPy's queue; the two heads are compared by SimPy's key
(time, priority, number), the numbers drawn from SimPy's one counter, so the events run
in exactly the order one queue would give. SimPy's head is noted by the clock whenever
SimPy's queue changes (the environment's ``schedule`` and ``step``), not read at every
plain call. A model may also run on a plain SimPy environment, which has no clock:
``clock_of`` gives None there and ``time_now`` reads ``env.now``.
"""

import math
from typing import Any, Callable, Final, List, Optional

from simpy.events import NORMAL

from vsim.core.timed_heap import TimedHeap

PLAIN_PRIORITY: Final = NORMAL
"""SimPy's priority of every plain call: after an urgent event of the same time (the end
of ``run(until=...)``), in number order among normal ones."""


class Handler:
    """An event's callback as a compiled object: the clock runs ``fire(arg)`` as a native
    call, where calling a Python callable (a ``functools.partial`` of a compiled method)
    passes through the interpreter's call protocol and the method's argument parsing.
    Subclasses (compiled too) hold what ``fire`` needs. Still callable, for an environment
    without a clock."""

    def fire(self, arg: Any) -> None:
        raise NotImplementedError

    def __call__(self, arg: Any) -> None:
        self.fire(arg)


class EventIds:
    """SimPy's event counter (``Environment._eid``, an ``itertools.count`` in SimPy) as a
    compiled object: SimPy's ``schedule`` draws from it with ``next`` as before, the clock's
    plain calls with ``take``, a native call that makes no Python integer. One counter for
    both keeps SimPy's single order of event numbers."""

    def __init__(self) -> None:
        self.next_id = 0

    def __iter__(self) -> "EventIds":
        return self

    def __next__(self) -> Any:  # Any: a compiled iterator's next returns an object
        return self.take()

    def take(self) -> int:
        """The next number, as ``next`` gives it."""
        number = self.next_id
        self.next_id = number + 1
        return number


class Clock:
    """``now``: the time of the event being run; ``call_later`` queues a plain call.

    ``queue`` is the environment's event queue (SimPy's), given by the environment once
    SimPy has made it; ``ids`` the event counter, which the environment hands SimPy as its
    own; ``calls`` is the heap of plain calls, each entry's ``first`` the callback and
    ``second`` its argument."""

    def __init__(self) -> None:
        self.now = 0.0
        self.queue: List[Any] = []
        self.calls = TimedHeap()
        self.ids = EventIds()
        # the key of SimPy's first event (time, priority, number; time inf: none), noted by
        # ``simpy_changed`` whenever SimPy's queue changes, so that each plain call compares
        # native numbers with it rather than reading SimPy's tuple
        self.simpy_time = math.inf
        self.simpy_priority = 0
        self.simpy_number = 0

    def simpy_changed(self) -> None:
        """SimPy's queue changed (an event scheduled, or one run): note its first event's key."""
        queue = self.queue
        if queue:
            first = queue[0]
            self.simpy_time = float(first[0])
            self.simpy_priority = int(first[1])
            self.simpy_number = int(first[2])
        else:
            self.simpy_time = math.inf

    def run_plain_call(self) -> bool:
        """Run the next event if it is a plain call (set the clock, then call it); return
        whether it was one (False: a SimPy event comes first, or nothing, for SimPy's own
        ``step``)."""
        calls = self.calls.entries
        if not calls:
            return False
        head = calls[0]
        t = self.simpy_time
        if t < head.time or (t == head.time and (self.simpy_priority < PLAIN_PRIORITY
                                                 or self.simpy_number < head.number)):
            return False
        self.calls.pop()
        self.now = head.time
        callback = head.first
        if isinstance(callback, Handler):
            callback.fire(head.second)
        else:
            callback(head.second)
        return True

    def run_events(self, simpy_step: Callable[[], None]) -> None:
        """Run every event in order, plain calls here and SimPy's events by ``simpy_step`` (its
        ``Environment.step``), until that raises: ``StopSimulation`` at the end of
        ``run(until=...)``, ``EmptySchedule`` when nothing is left. The loop of
        ``Environment.run``, compiled."""
        try:
            while True:
                if not self.run_plain_call():
                    simpy_step()
                    self.simpy_changed()
        finally:  # SimPy's step ended the run (``StopSimulation``) having taken its event
            self.simpy_changed()

    def next_time(self) -> float:
        """The time of the earliest queued event, plain or SimPy's (inf: none)."""
        calls = self.calls.entries
        t = calls[0].time if calls else math.inf
        return min(t, self.simpy_time)

    def pending(self) -> int:
        """Events waiting, plain and SimPy's."""
        return len(self.calls.entries) + len(self.queue)

    def call_later(self, delay: float, callback: Callable[[Any], Any], arg: Any) -> None:
        """Call ``callback(arg)`` at ``now + delay`` (``delay`` >= 0), in SimPy's order: numbered
        from SimPy's counter, as an event of normal priority would be."""
        if delay < 0:
            raise ValueError(f"negative delay {delay}")
        self.calls.push(self.now + delay, self.ids.take(), callback, arg)

    def call_numbered(self, time: float, number: int, callback: Callable[[Any], Any], arg: Any) -> None:
        """Call ``callback(arg)`` at ``time`` with the ``number`` drawn from ``ids`` when it was
        decided (``vsim.core.timers``: a timer queued late keeps its place in the order)."""
        self.calls.push(time, number, callback, arg)


def clock_of(env: Any) -> Optional[Clock]:
    """The environment's clock, or None for an environment without one (plain SimPy)."""
    clock = getattr(env, "clock", None)
    return clock if isinstance(clock, Clock) else None


def clock_of_scheduler(call_later: Any) -> Optional[Clock]:
    """The clock whose ``call_later`` the scheduler ``call_later`` is (as
    ``vsim.core.environment.scheduler_for`` gives it on a clock's environment), or None."""
    owner = getattr(call_later, "__self__", None)
    return owner if isinstance(owner, Clock) else None


def call_later_on(clock: Optional[Clock], scheduler: Callable[[float, Any, Any], None], delay: float,
                  callback: Any, arg: Any) -> None:
    """Call ``callback(arg)`` ``delay`` seconds from now: on ``clock`` directly where there is
    one (a compiled call, the delay a native number), else through ``scheduler``, the
    environment's (``vsim.core.environment.scheduler_for``)."""
    if clock is not None:
        clock.call_later(delay, callback, arg)
    else:
        scheduler(delay, callback, arg)


def time_now(clock: Optional[Clock], env: Any) -> float:
    """The simulated time: ``clock.now`` where there is a clock, else ``env.now``. Two
    returns, not one conditional expression: mixed with ``env.now`` (any type) the clock's
    native time would be made a Python float and read back at every call."""
    if clock is not None:
        return clock.now
    return env.now
