"""Frames handed to an uplink scheduler one at a time, cheaply, while their queues hold no fluid.

A closed loop (request/response chains) hands the uplink one frame at a
time, each frame's departure deciding when the next arrives, so it cannot
batch frames into one ``transmit`` call, and a call per frame costs the
numpy set-up of a burst. While every queue the frames use holds only
discrete frames (no fluid offered or backlogged, not the joint regime) and
cannot fill to its limit, what ``UplinkScheduler.transmit`` does to a lone
frame is a few scalar steps, done here in plain Python:

- the queue: the backlog (frames, and fluid left from earlier that only
  drains) drains at the queue's rate since the last frame, the frame waits
  for it and adds its service (Lindley's recursion, the open regime of
  ``vsim.net.fluid.queue``);
- a non-preemptive scheduler's frame may find another queue's frame on the
  wire (with the probability and mean rest ``transmit`` uses, drawn from
  the scheduler's random stream per frame: each frame its own burst);
- the uplink's latency;
- NetIOC's completion gate (``vsim.net.uplink.completion_gate``), if any.

``close`` then hands the frames to their queues in one ``offer`` per queue,
so the scheduler's state and counters are those of the frames having been
sent (the queues recompute the same departures, vectorised). Nothing else
may use the scheduler between ``FrameLanes`` and ``close``.
"""

import numpy as np


class FrameLanes:
    """Per-frame sending on ``scheduler`` (built by its ``frame_lanes``): a frame of queue
    ``q`` finds another queue's frame on the wire with probability ``wire_busy[q]`` and then
    waits a uniform part of ``wire_rest[q]``; ``gate`` and ``sending`` are NetIOC's completion
    gate and whether bulk traffic keeps its completions coming."""

    def __init__(self, scheduler, wire_busy, wire_rest, gate=None, sending=False):
        self.scheduler = scheduler
        self.gate = gate if gate is not None and gate.hold > 0 else None
        self.sending = sending
        queues = scheduler.queues
        self.rate = [q.rate for q in queues]
        self.backlog = [q.work for q in queues]
        self.at = [q.t for q in queues]
        self.latency = scheduler.latency
        self.busy = [float(b) for b in wire_busy]
        self.rest = [float(w) for w in wire_rest]
        self.random = scheduler.rng.random
        self.sent = [([], [], []) for _ in queues]

    @staticmethod
    def fit(scheduler, queues, frames, units):
        """Whether ``queues`` of ``scheduler`` take no fluid now (what is left of earlier fluid
        only drains) and ``frames`` more frames of at most ``units`` each, beside what is in
        them, fit under every queue's limit."""
        for q in set(int(q) for q in queues):
            queue = scheduler.queues[q]
            if queue.realized is not None or queue.fluid_work > 0:
                return False
            fluid_units = queue.fluid_backlog_work() * (queue.units_per_work or 0.0)
            if (queue.in_system(queue.t) + frames) * units + fluid_units > queue.limit:
                return False
        return True

    def send(self, t, q, work, units):
        """Departure (plus latency) of a frame of service ``work`` and ``units`` of the limit
        arriving at ``t`` (not before any frame sent before) at queue ``q``."""
        rate = self.rate[q]
        backlog = self.backlog[q]
        elapsed = t - self.at[q]
        if elapsed > 0:
            backlog = max(0.0, backlog + (0.0 - rate) * elapsed)
        after = work / rate + backlog / rate
        self.backlog[q] = after * rate
        self.at[q] = t
        departure = t + after
        busy = self.busy[q]
        if busy > 0 and self.random() < busy:
            departure = departure + self.random() * self.rest[q]
        departure = departure + self.latency
        if self.gate is not None:
            departure = departure + (self.gate.dispatch_one(t, work, self.sending) - t)
        times, works, sizes = self.sent[q]
        times.append(t)
        works.append(work)
        sizes.append(units)
        return departure

    def close(self):
        """Hand every frame sent to its queue and bring the scheduler's clock to the last."""
        last = None
        for q, (times, works, sizes) in enumerate(self.sent):
            if not times:
                continue
            self.scheduler.queues[q].offer(np.array(times), np.array(works), np.array(sizes))
            last = times[-1] if last is None else max(last, times[-1])
        if last is not None:
            self.scheduler.t = max(self.scheduler.t, float(last))
