"""The guest's periodic timer.

A guest thread that sleeps until the next 20 ms boundary wakes late by the
timer interrupt's delivery through the hypervisor plus the guest's own wakeup
path. That lateness is modelled as a log-normal draw per wakeup (median and
shape from the workload model), the usual shape of OS wakeup latency: mostly
near the median, with a long right tail.
"""

import numpy as np


class TimerLatency:
    """Block-drawn log-normal wakeup lateness, in seconds."""

    BLOCK = 4096

    def __init__(self, rng, median, sigma):
        self.rng = rng
        self.mu = float(np.log(median)) if median > 0 else None
        self.sigma = float(sigma)
        self._block = []

    def draw(self):
        """One wakeup lateness (0 when the median is 0)."""
        if self.mu is None:
            return 0.0
        if not self._block:
            self._block = self.rng.lognormal(self.mu, self.sigma, self.BLOCK).tolist()
            self._block.reverse()
        return self._block.pop()
