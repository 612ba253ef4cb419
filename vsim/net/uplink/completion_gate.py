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

The gate remembers the pass it has planned last, so a frame handed later
that arrives by that pass's start joins its batch: frames handed one at a
time (``dispatch_one``, as a closed loop of request/response chains hands
them) are dispatched exactly as when handed all at once.

A dispatched frame then takes its turn on the NIC's one transmit queue
(``leave``): it leaves when the wire has sent the frames dispatched before
it, or when its port's queue lets it go, whichever is later. So the frames
of one pass leave one wire time apart, never faster than the link.
"""

import math

import numpy as np


class CompletionGate:
    """When each frame leaves its port queue for the NIC, given completions held ``hold`` s."""

    def __init__(self, hold):
        if not (hold >= 0 and math.isfinite(hold)):
            raise ValueError(f"hold must be a non-negative finite time, got {hold!r}")
        self.hold = float(hold)
        self.pass_at = -math.inf
        """When NetIOC's last planned pass dispatches its batch (-inf: none yet)."""
        self.batch = 0.0
        """Work of that pass's batch so far (s)."""
        self.wire_free = -math.inf
        """When the NIC's transmit queue has sent the frames dispatched so far."""

    def dispatch(self, times, work, sending):
        """Dispatch times of frames arriving at ``times`` (sorted, none before a frame handed
        earlier) with service ``work`` each; ``sending`` says whether bulk traffic keeps the
        NIC's completions coming."""
        times = np.asarray(times, dtype=float)
        if self.hold == 0 or not times.size:
            return times
        work = np.broadcast_to(np.asarray(work, dtype=float), times.shape).tolist()
        one = self.dispatch_one
        return np.array([one(t, w, sending) for t, w in zip(times.tolist(), work)])

    def dispatch_one(self, t, work, sending):
        """Dispatch time of one frame arriving at ``t`` (not before a frame handed earlier)
        with service ``work``: the planned pass if it has not begun, else the next one."""
        if self.hold == 0:
            return t
        start = self.pass_at
        if t <= start:  # the pass has not begun: every frame arrived by then goes in its batch
            self.batch += work
            return start
        signal = start + self.batch + self.hold
        if t < signal:
            start = signal
        elif sending and signal > -math.inf:
            # the bulk traffic's completions kept NetIOC's passes going every hold
            start = signal + self.hold * math.ceil((t - signal) / self.hold)
        else:
            start = t
        self.pass_at, self.batch = start, work
        return start

    def leave(self, dispatched, work, departure, latency):
        """Departure (plus ``latency``) of a frame dispatched at ``dispatched`` with service
        ``work``, whose port's queue would let it go at ``departure`` (plus ``latency``): after
        the frames dispatched before it have left the NIC's transmit queue."""
        departure = max(departure, max(dispatched, self.wire_free) + work + latency)
        self.wire_free = departure - latency
        return departure
