"""Stalls of a receiving client's thread: packets that arrive while it is off its CPU are read late.

A client machine that also generates load (the study's Table 2 was measured
by the client that sent the 120 streams, where Figures 2-4 had a machine of
its own "to reduce measurement variance") now and then loses the CPU its
receiving thread runs on. A packet that arrives meanwhile waits in the
socket buffer and is timestamped when the thread runs again. The stalls
start at Poisson times of rate ``rate`` and each lasts ``duration``;
overlapping stalls make one longer stall. The schedule is drawn from the
client's own random stream, chunk by chunk as far as the packets reach, so
a longer run extends it without changing its beginning.
"""

import numpy as np

_CHUNK = 1024  # stall starts drawn at a time


class ReceiveStalls:
    """Poisson-timed stalls of fixed length on one client's receive path."""

    def __init__(self, rate, duration, rng):
        self.rate = rate
        self.duration = duration
        self._rng = rng
        self._starts = np.zeros(0)

    def _cover(self, horizon):
        """Draw stall starts until one lies beyond ``horizon``."""
        while not self._starts.size or self._starts[-1] <= horizon:
            last = self._starts[-1] if self._starts.size else 0.0
            gaps = self._rng.exponential(1.0 / self.rate, _CHUNK)
            self._starts = np.concatenate((self._starts, last + np.cumsum(gaps)))

    def read_times(self, arrivals):
        """When the client reads packets that arrive at ``arrivals`` (NaN stays NaN: lost)."""
        arrivals = np.asarray(arrivals, dtype=float)
        received = np.isfinite(arrivals)
        if not received.any():
            return arrivals.copy()
        self._cover(float(arrivals[received].max()))
        starts = self._starts
        ends = starts + self.duration
        # A stall that starts inside the one before it extends it: each stall's reading
        # resumes at the end of the last stall of its run of overlapping ones.
        run = np.cumsum(np.concatenate(([True], starts[1:] > ends[:-1])))
        last_of_run = np.searchsorted(run, run, side="right") - 1
        resume = ends[last_of_run]
        read = arrivals.copy()
        index = np.searchsorted(starts, np.where(received, arrivals, -np.inf), side="right") - 1
        inside = received & (index >= 0)
        inside[inside] = arrivals[inside] < ends[index[inside]]
        read[inside] = resume[index[inside]]
        return read
