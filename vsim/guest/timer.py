"""The guest's periodic timer.

A guest thread that sleeps until the next 20 ms boundary wakes late by the
timer interrupt's delivery through the hypervisor plus the guest's own wakeup
path. That lateness is modelled as a log-normal draw per wakeup (median and
shape from the workload model), the usual shape of OS wakeup latency: mostly
near the median, with a long right tail.

Compiled (``vsim/native.py``): a media server's worker draws once a tick, and the
draw is a native call of ``Lateness.draw``.
"""

from typing import Any, List, Optional

import numpy as np


class Lateness:
    """What a worker's timer is: ``draw()`` gives its next wakeup's lateness, in seconds."""

    def draw(self) -> float:
        raise NotImplementedError


class TimerLatency(Lateness):
    """Block-drawn log-normal wakeup lateness, in seconds."""

    BLOCK = 4096

    def __init__(self, rng: Any, median: float, sigma: float) -> None:
        self.rng = rng
        self.mu: Optional[float] = float(np.log(median)) if median > 0 else None
        self.sigma = float(sigma)
        self._block: List[float] = []
        self._next = 0  # index of the next draw in the block (read in order, the list kept whole)

    def draw(self) -> float:
        """One wakeup lateness (0 when the median is 0)."""
        mu = self.mu
        if mu is None:
            return 0.0
        index = self._next
        if index == len(self._block):
            self._block = self.rng.lognormal(mu, self.sigma, self.BLOCK).tolist()
            index = 0
        self._next = index + 1
        return self._block[index]


class SharedExpiry:
    """One lateness per tick for every worker whose timer falls due at the same instants.

    Linux expires every hrtimer that is due in one timer interrupt
    (``__hrtimer_run_queues`` in kernel/time/hrtimer.c runs the expired timers of a CPU's
    queue in one pass), so threads sleeping to one absolute deadline are woken together: how
    late the interrupt comes is one draw for all of them, and what differs between them is
    what follows (waiting for a CPU). Each worker reads the draws through its own ``view``,
    in its own order of ticks, so the event engine and the closed form (which plays one
    worker's ticks at a time) see the same values.
    """

    KEEP = 4096

    def __init__(self, latency: Lateness) -> None:
        self.latency = latency
        self.values: List[float] = []
        self.base = 0
        self.views: List[ExpiryView] = []

    def view(self) -> "ExpiryView":
        """A worker's reader of the shared draws: ``draw()`` gives its next tick's lateness."""
        view = ExpiryView(self)
        self.views.append(view)
        return view

    def value(self, tick: int) -> float:
        """The lateness of ``tick``, drawn the first time any worker asks for it."""
        while tick - self.base >= len(self.values):
            self.values.append(self.latency.draw())
        value = self.values[tick - self.base]
        if len(self.values) > 2 * self.KEEP:
            done = min(view.count for view in self.views) - self.base
            if done > self.KEEP:
                del self.values[:done]
                self.base += done
        return value


class ExpiryView(Lateness):
    """One worker's reader of a ``SharedExpiry``: the same interface as ``TimerLatency``."""

    def __init__(self, shared: SharedExpiry) -> None:
        self.shared = shared
        self.count = 0

    def draw(self) -> float:
        """The lateness of this worker's next tick, shared with every worker due with it."""
        value = self.shared.value(self.count)
        self.count += 1
        return value
