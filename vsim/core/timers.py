"""Timers that are nearly always cancelled before they fire, kept off the event queue.

A SIP transaction arms a retransmission timer with every request, and the answer
comes back within milliseconds, long before the timer's 500 ms: at hundreds of
calls a second most events in the queue would be timers that find nothing to do.
``LazyTimers`` keeps its timers in a heap of its own and gives the event queue
only its earliest one. Timers that can no longer do anything (``live(arg)`` is
false; a dead timer never comes back to life) are dropped from the heap without
an event when they reach its head. A timer that fires does so with the key
``(time, priority, id)`` it was given when armed, the id from the environment's
own counter, so every event runs in the order it would have run had each timer
been queued itself: the same results, with an event a timer only for those
that stayed live (and for the head timers that died after they were queued).
On an environment without ``vsim.core.clock.Clock`` (plain SimPy) each timer
is an event of its own.
"""

from heapq import heappop, heappush
from typing import Any, Callable, List, Optional

from simpy.events import NORMAL

from vsim.core.clock import Clock
from vsim.core.environment import Scheduler

WAITING, QUEUED, GONE = 0, 1, 2
"""A timer's state: in the heap only, in the event queue too, out of the heap."""


class LazyTimers:
    """Timers calling ``fire(arg)`` at their time, unless ``live(arg)`` has become false.

    ``call_later`` is the environment's scheduler (``scheduler_for``); where it is a
    clock's, the timers share the clock's queue and ids."""

    def __init__(self, call_later: Scheduler, fire: Callable[[Any], None],
                 live: Callable[[Any], bool]) -> None:
        owner = getattr(call_later, "__self__", None)
        self._clock: Optional[Clock] = owner if isinstance(owner, Clock) else None
        self._call_later = call_later
        self._fire = fire
        self._live = live
        self._heap: List[list] = []  # [time, priority, id, arg, state]: ordered by the key

    def arm(self, delay: float, arg: Any) -> None:
        """Call ``fire(arg)`` ``delay`` seconds from now, if ``arg`` is still live then."""
        clock = self._clock
        if clock is None:
            self._call_later(delay, self._fire, arg)
            return
        if delay < 0:
            raise ValueError(f"negative delay {delay}")
        timer = [clock.now + delay, NORMAL, next(clock.ids), arg, WAITING]
        heappush(self._heap, timer)
        if self._heap[0] is timer:
            self._queue(timer)

    def pending(self) -> int:
        """Timers in the heap, live or not yet found dead."""
        return len(self._heap)

    def _queue(self, timer: list) -> None:
        """Put ``timer`` into the event queue with its own key."""
        assert self._clock is not None  # only timers of a clock are kept here
        timer[4] = QUEUED
        self._clock.call_numbered(timer[0], timer[2], self._due, timer)

    def _due(self, timer: list) -> None:
        """A queued timer's time has come: fire it unless it was dropped as dead, then queue
        the next live timer."""
        if timer[4] == GONE:
            return
        heap = self._heap
        assert heap[0] is timer  # every timer before it has fired or been dropped
        heappop(heap)
        timer[4] = GONE
        self._fire(timer[3])
        while heap and not self._live(heap[0][3]):
            heappop(heap)[4] = GONE
        if heap and heap[0][4] == WAITING:
            self._queue(heap[0])
