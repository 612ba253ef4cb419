"""NetIOC's dispatch paced by transmit completions: why its frames wait a few µs more.

vSphere 6's NetIOC keeps a queue per port and moves frames from those
queues to the NIC's one transmit queue itself (seed 001, "NetIOC Scheduler
Performance Evaluation"). Once it has handed the NIC a dispatch, it runs its
next pass when the NIC reports that dispatch complete, and the NIC holds
transmit completions before signalling them, for at most
Net.NetSchedCoalesceTxUsecs (33 µs by default, seed 001, "Handling Latency
Sensitive Traffic"). A frame arriving at its port while a dispatch is
outstanding therefore waits at the port for that signal ("packets may queue
up at the network port when the NIC transmit queue is being programmed by
NetIOC", seed 001, Fig 6), and all ports share the one queue's signal (the
study's second reason: one transmit queue where the default scheduler
spreads connections over several, each posted at once).

The gate follows that per frame, in arrival order:

- no dispatch outstanding: the frame is dispatched at once, and its
  completion is signalled ``hold`` after its transmission ends;
- a dispatch outstanding: the frame waits for its completion signal, when
  NetIOC dispatches every frame that has arrived since, as one batch whose
  completion is signalled ``hold`` after the batch has been transmitted.

While bulk traffic keeps the NIC sending, completions never stop: NetIOC's
passes then follow one another every ``hold`` (plus the batch's
transmission) whether frames come or not, and a frame waits for the next.
``hold`` is the time the NIC actually holds a completion, at most the
window; with ``hold = 0`` the gate lets every frame through at once.
"""

import math

import numpy as np


class CompletionGate:
    """When each frame leaves its port queue for the NIC, given completions held ``hold`` s."""

    def __init__(self, hold):
        if not (hold >= 0 and math.isfinite(hold)):
            raise ValueError(f"hold must be a non-negative finite time, got {hold!r}")
        self.hold = float(hold)
        self.signal_at = -math.inf
        """When the outstanding dispatch's completion is signalled (-inf: none outstanding)."""

    def dispatch(self, times, work, sending):
        """Dispatch times of frames arriving at ``times`` (sorted) with service ``work`` each;
        ``sending`` says whether bulk traffic keeps the NIC's completions coming."""
        times = np.asarray(times, dtype=float)
        if self.hold == 0 or not times.size:
            return times
        work = np.broadcast_to(np.asarray(work, dtype=float), times.shape).tolist()
        out = np.empty(times.size)
        signal, hold = self.signal_at, self.hold
        i, n = 0, times.size
        arrivals = times.tolist()
        while i < n:
            t = arrivals[i]
            if t < signal:
                start = signal
            elif sending and signal > -math.inf:
                # the bulk traffic's completions kept NetIOC's passes going every hold
                start = signal + hold * math.ceil((t - signal) / hold)
            else:
                start = t
            # every frame arrived by the pass goes in its batch
            batch = 0.0
            j = i
            while j < n and arrivals[j] <= start:
                out[j] = start
                batch += work[j]
                j += 1
            signal = start + batch + hold
            i = j
        self.signal_at = signal
        return out
