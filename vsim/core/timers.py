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

from typing import Any, Callable, Final, Optional

from vsim.core.clock import Clock, Handler, clock_of_scheduler
from vsim.core.environment import Scheduler
from vsim.core.timed_heap import Entry, TimedHeap

WAITING: Final = 0
QUEUED: Final = 1
GONE: Final = 2
"""A timer's state: in the heap only, in the event queue too, out of the heap."""


class LazyTimers(Handler):
    """Timers calling ``fire(arg)`` at their time, unless ``live(arg)`` has become false.

    ``call_later`` is the environment's scheduler (``scheduler_for``); where it is a
    clock's, the timers share the clock's queue and ids."""

    def __init__(self, call_later: Scheduler, fire: Callable[[Any], None],
                 live: Callable[[Any], bool]) -> None:
        self._clock: Optional[Clock] = clock_of_scheduler(call_later)
        self._call_later = call_later
        self._fire = fire
        self._live = live
        # entries of (time, id) with their arg (first) and state (second), ordered by the key
        # (every timer's priority is SimPy's normal one, so time and id order them)
        self._heap = TimedHeap()

    def arm(self, delay: float, arg: Any) -> None:
        """Call ``fire(arg)`` ``delay`` seconds from now, if ``arg`` is still live then."""
        clock = self._clock
        if clock is None:
            self._call_later(delay, self._fire, arg)
            return
        if delay < 0:
            raise ValueError(f"negative delay {delay}")
        number = clock.ids.take()
        heap = self._heap
        heap.push(clock.now + delay, number, arg, WAITING)
        head = heap.entries[0]
        if head.number == number:
            self._queue(head)

    def pending(self) -> int:
        """Timers in the heap, live or not yet found dead."""
        return len(self._heap.entries)

    def _queue(self, timer: Entry) -> None:
        """Put ``timer`` into the event queue with its own key."""
        assert self._clock is not None  # only timers of a clock are kept here
        timer.second = QUEUED
        self._clock.call_numbered(timer.time, timer.number, self, timer)

    def fire(self, arg: Any) -> None:
        """The event of the queued timer ``arg``, as the clock runs it."""
        self._due(arg)

    def _due(self, timer: Entry) -> None:
        """A queued timer's time has come: fire it unless it was dropped as dead, then queue
        the next live timer."""
        state: int = timer.second
        if state == GONE:
            return
        heap = self._heap
        entries = heap.entries
        assert entries[0] is timer  # every timer before it has fired or been dropped
        heap.pop()
        timer.second = GONE
        self._fire(timer.first)
        while entries and not self._live(entries[0].first):
            heap.pop().second = GONE
        if entries:
            head = entries[0]
            state = head.second
            if state == WAITING:
                self._queue(head)
