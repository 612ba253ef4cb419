"""The simulated time as a compiled object, read by compiled models without a look-up.

The event loop of ``vsim.core.environment.Environment`` sets ``Clock.now`` before it runs
each event. Compiled code (``vsim/native.py``) reads the time several times an event; from
a compiled object that is a field, where ``env.now`` of a Python object is an attribute
look-up and a float unboxed each time. A model may also run on a plain SimPy environment,
which has no clock: ``clock_of`` gives None there and ``time_now`` reads ``env.now``.
"""

from typing import Any, Optional


class Clock:
    """``now``: the time of the event being run."""

    def __init__(self) -> None:
        self.now = 0.0


def clock_of(env: Any) -> Optional[Clock]:
    """The environment's clock, or None for an environment without one (plain SimPy)."""
    clock = getattr(env, "clock", None)
    return clock if isinstance(clock, Clock) else None


def time_now(clock: Optional[Clock], env: Any) -> float:
    """The simulated time: ``clock.now`` where there is a clock, else ``env.now``."""
    return clock.now if clock is not None else env.now
