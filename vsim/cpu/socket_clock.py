"""One socket's clock under socket contention: its time, speed and completion queue.

Every world running on a socket is slowed by the same 1 + c k for the k other busy cores
of the socket (``vsim.cpu.machine``), so the socket keeps a time of its own that runs at
1 / (1 + c k) of real time, and its running worlds' ends are points in that time, queued
in ``ends``. A compiled object, its fields are native numbers: the machine reads and
sets them at every start, stop and completion, where lists of floats would box and
unbox each one.
"""

import math

from vsim.core.timed_heap import TimedHeap


class SocketClock:
    """Socket ``index``'s clock: ``time`` at real time ``time_at``, running at ``speed``, for
    ``busy_cores`` busy cores; ``ends`` the running worlds' ends in its time (each entry's
    ``first`` the world, ``second`` the world's version when queued); ``armed`` and
    ``event`` the real time and number of its pending event (inf while none)."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.busy_cores = 0
        self.time = 0.0
        self.time_at = 0.0
        self.speed = 1.0
        self.ends = TimedHeap()
        self.armed = math.inf
        self.event = 0

    def at(self, now: float) -> float:
        """The socket's time at real time ``now``."""
        return self.time + self.speed * (now - self.time_at)
