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
        """Draw stall starts until the last one lies beyond ``horizon`` and begins a run of its
        own: every run that reaches back to ``horizon`` or before is then complete, so more
        draws later can never lengthen it."""
        while not self._complete_to(horizon):
            last = self._starts[-1] if self._starts.size else 0.0
            gaps = self._rng.exponential(1.0 / self.rate, _CHUNK)
            self._starts = np.concatenate((self._starts, last + np.cumsum(gaps)))

    def _complete_to(self, horizon):
        starts = self._starts
        return starts.size >= 2 and starts[-1] > horizon and starts[-1] > starts[-2] + self.duration

    def _runs(self):
        """(start, resume) of each run of overlapping stalls drawn so far."""
        starts = self._starts
        ends = starts + self.duration
        first = np.concatenate(([True], starts[1:] > ends[:-1]))
        last = np.concatenate((first[1:], [True]))
        return starts[first], ends[last]

    def within(self, first, last):
        """(stalls that start in [first, last), seconds of it the client spends stalled)."""
        self._cover(last)
        count = int(np.count_nonzero((self._starts >= first) & (self._starts < last)))
        run_starts, run_ends = self._runs()
        stalled = np.clip(np.minimum(run_ends, last) - np.maximum(run_starts, first), 0.0, None)
        return count, float(stalled.sum())

    def read_times(self, arrivals):
        """When the client reads packets that arrive at ``arrivals`` (NaN stays NaN: lost)."""
        arrivals = np.asarray(arrivals, dtype=float)
        received = np.isfinite(arrivals)
        if not received.any():
            return arrivals.copy()
        self._cover(float(arrivals[received].max()))
        run_starts, run_ends = self._runs()
        run = np.searchsorted(run_starts, np.where(received, arrivals, -np.inf), side="right") - 1
        inside = received & (run >= 0)
        inside[inside] = arrivals[inside] < run_ends[run[inside]]
        read = arrivals.copy()
        read[inside] = run_ends[run[inside]]
        return read
