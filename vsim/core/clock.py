"""The simulated time as a compiled object, read by compiled models without a look-up.

The event loop of ``vsim.core.environment.Environment`` sets ``Clock.now`` before it runs
each event. Compiled code (``vsim/native.py``) reads the time several times an event; from
a compiled object that is a field, where ``env.now`` of a Python object is an attribute
look-up and a float unboxed each time. Queuing a plain call (``Clock.call_later``) is
compiled for the same reason. A model may also run on a plain SimPy environment,
which has no clock: ``clock_of`` gives None there and ``time_now`` reads ``env.now``.
"""

from heapq import heappop, heappush
from typing import Any, Callable, Final, List, Optional

from simpy.events import NORMAL

PLAIN_CALL: Final = 5
"""Length of a queue entry made by ``call_later``: (time, priority, id, callback, arg)."""


class Clock:
    """``now``: the time of the event being run; ``call_later`` queues a plain call.

    ``queue`` and ``ids`` are the environment's event queue and event counter (SimPy's),
    given by the environment once SimPy has made them."""

    def __init__(self) -> None:
        self.now = 0.0
        self.queue: List[Any] = []
        self.ids: Any = None
        self.env: Any = None  # the environment, whose ``now`` is set with this one

    def run_plain_call(self) -> bool:
        """Run the next event if it is a plain call (set both clocks, then call it); return
        whether it was one (False: a SimPy event, or none, for SimPy's own ``step``)."""
        queue = self.queue
        if not queue or len(queue[0]) != PLAIN_CALL:
            return False
        t, _, _, callback, arg = heappop(queue)
        self.now = t
        self.env.now = t
        callback(arg)
        return True

    def call_later(self, delay: float, callback: Callable[[Any], Any], arg: Any) -> None:
        """Call ``callback(arg)`` at ``now + delay`` (``delay`` >= 0), in SimPy's order: the
        entry ``(time, priority, id, callback, arg)`` beside SimPy's own 4-tuples."""
        if delay < 0:
            raise ValueError(f"negative delay {delay}")
        heappush(self.queue, (self.now + delay, NORMAL, next(self.ids), callback, arg))


def clock_of(env: Any) -> Optional[Clock]:
    """The environment's clock, or None for an environment without one (plain SimPy)."""
    clock = getattr(env, "clock", None)
    return clock if isinstance(clock, Clock) else None


def time_now(clock: Optional[Clock], env: Any) -> float:
    """The simulated time: ``clock.now`` where there is a clock, else ``env.now``."""
    return clock.now if clock is not None else env.now
