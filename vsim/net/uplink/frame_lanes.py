"""Frames handed to an uplink scheduler one at a time, cheaply, while their queues hold no fluid.

A closed loop (request/response chains) hands the uplink one frame at a
time, each frame's departure deciding when the next arrives, so it cannot
batch frames into one ``transmit`` call, and a call per frame costs the
numpy set-up of a burst. While every queue the frames use is in the open
regime of ``vsim.net.fluid.queue`` (a bulk flow's fluid, if any, flowing in
below the queue's rate; not the joint regime) and cannot fill to its limit,
what ``UplinkScheduler.transmit`` does to a lone frame is a few scalar
steps, done here in plain Python:

- the queue: the backlog (frames, and fluid) drains at the queue's rate less
  the fluid's inflow since the last frame, the frame waits for it, or for
  the rest of the fluid's packet in service if that is longer (two draws
  from the scheduler's random stream per frame, as the queue's ``offer``
  draws them), and adds its service (Lindley's recursion, the same sums as
  the queue's ``advance`` and ``offer``);
- a non-preemptive scheduler's frame may find another queue's frame on the
  wire (with the probability and mean rest ``transmit`` uses, drawn from
  the scheduler's random stream per frame: each frame its own burst; with
  no rest to wait out, nothing is drawn);
- the uplink's latency;
- NetIOC's completion gate (``vsim.net.uplink.completion_gate``), if any.

Without a gate and without draws, a frame that finds its queue empty
leaves a fixed time after it arrives (``lone_sojourn``), so frames that keep
finding their queues empty can be taken many at once (``take_quiet``).

``close`` then hands the frames to their queues in one ``offer`` per queue,
so the scheduler's state and counters are those of the frames having been
sent (the queues recompute the same departures, vectorised). Nothing else
may use the scheduler between ``FrameLanes`` and ``close``.
"""

import math

import numpy as np

BLOCK = 4096
"""Uniforms drawn from the scheduler's stream at once; ``close`` leaves the stream where the
draws the frames took, one at a time, would have left it."""


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
        self.inflow = [q.fluid_work for q in queues]
        self.fluid_busy = [q.wire_busy() for q in queues]
        self.fluid_rest = [q.wire_rest_scale() if busy else 0.0
                           for q, busy in zip(queues, self.fluid_busy)]
        self.backlog = [q.work for q in queues]
        self.at = [q.t for q in queues]
        self.latency = scheduler.latency
        self.rest = [float(w) for w in wire_rest]
        self.busy = [float(b) if w > 0 else 0.0 for b, w in zip(wire_busy, self.rest)]
        self.rests: list[float] | None = [] if any(self.fluid_busy) or any(self.busy) else None
        """Each frame's wait for a packet on the wire (a fluid's in service, another queue's
        frame), in the order sent (None: no queue has either, so nothing is drawn or kept)."""
        self.predictable = self.gate is None and not any(self.busy) and not any(self.fluid_busy)
        """Whether a frame's delay depends only on what its queue holds."""
        self.rng = scheduler.rng
        self.start = scheduler.rng.bit_generator.state
        self.uniforms = self._uniforms()
        self.draws = 0

    @staticmethod
    def fit(scheduler, queues, frames, units, work=None, spacing=None, until=math.inf):
        """Whether ``queues`` of ``scheduler`` stay in the open regime (no fluid, or a fluid
        flowing in below the queue's rate, not realized packet by packet) and ``frames`` more
        frames of at most ``units`` and ``work`` each (``work`` None: unknown, so no fluid may
        flow in), beside what is in them, fit under every queue's limit. ``spacing`` (None:
        unknown) is the least time between two frames of one sender: a closed loop's shortest
        turn, each sender having at most one frame in the system; ``until`` the time up to
        which the frames are sent through the lanes.

        With a fluid inflow taking a share ``f`` of a queue's rate, its backlog never passes
        ``(backlog now + (frames + 1) * work) / (1 - f)``: whatever is queued arrived while
        the oldest item waited, and that wait is at most the backlog's drain time, in which
        the fluid brings ``f`` of it. With the frames' most work per second,
        ``frames * work / spacing``, known, it never passes
        ``max(backlog now, fluid packet + work) + (frames + 1) * work`` either, plus what
        that work per second brings beyond what the fluid leaves of the rate until ``until``
        (``_paced_bound``): far less when ``f`` is close to 1 (a TCP stream filling what its
        allocation leaves beside request/response frames). The fluid's part of the limit is
        counted at the smaller."""
        for q in set(int(q) for q in queues):
            queue = scheduler.queues[q]
            if queue.realized is not None:
                return False
            share = queue.fluid_work / queue.rate
            if share > 0:
                if work is None or share >= 1:
                    return False
                fluid_work = (queue.work + (frames + 1) * work) / (1 - share)
                if spacing is not None:
                    fluid_work = min(fluid_work, _paced_bound(queue, frames, work, spacing, until))
            else:
                fluid_work = queue.fluid_backlog_work()
            fluid_units = fluid_work * (queue.units_per_work or 0.0)
            if (queue.in_system(queue.t) + frames) * units + fluid_units > queue.limit:
                return False
        return True

    def send(self, t, q, work):
        """Departure (plus latency) of a frame of service ``work`` arriving at ``t`` (not before
        any frame sent before) at queue ``q``."""
        rate = self.rate[q]
        backlog = self.backlog[q]
        elapsed = t - self.at[q]
        if elapsed > 0:
            backlog = max(0.0, backlog + (self.inflow[q] - rate) * elapsed)
        busy = self.busy[q]
        if busy > 0 or self.fluid_busy[q]:  # the queue's offer with its wire rest, to the last bit
            rest = 0.0  # as transmit draws a burst's waits: its own fluid's, then the others'
            if self.fluid_busy[q]:
                self.draws += 2
                hit, part = next(self.uniforms), next(self.uniforms)
                rest = part * self.fluid_rest[q] if hit < self.fluid_busy[q] else 0.0
            if busy > 0:
                self.draws += 1
                if next(self.uniforms) < busy:
                    self.draws += 1
                    rest += next(self.uniforms) * self.rest[q]
            assert self.rests is not None  # a queue with a rest made the list
            self.rests.append(rest)
            service = work / rate
            after = service + max(backlog / rate, service + rest - service)
        else:
            if self.rests is not None:
                self.rests.append(0.0)
            after = work / rate + backlog / rate
        self.backlog[q] = after * rate
        self.at[q] = t
        departure = t + after + self.latency
        if self.gate is not None:
            departure = self.gate.leave(self.gate.dispatch_one(t, work, self.sending), work,
                                        departure, self.latency)
        return departure

    def lone_sojourn(self, queues, work):
        """Time in their ``queues`` of frames of service ``work`` finding them empty, where
        ``predictable``: such a frame departs at ``arrival + sojourn + latency``."""
        rate = np.array(self.rate)[queues]
        return work / rate + 0.0 / rate  # send's sum with an empty queue, to the last bit

    def take_quiet(self, times, queues, work):
        """Of frames arriving at ``times`` (sorted) at ``queues`` with service ``work``, where
        ``predictable``: how many in a row from the first find their queue empty, as ``send``
        would see them; those are taken as sent (they depart ``lone_sojourn`` after their
        arrivals, plus the latency). Being predictable, no queue has a fluid flowing in, so a
        backlog drains at the queue's rate."""
        n = times.size
        if not n:
            return 0
        rate = np.array(self.rate)[queues]
        # each frame's predecessor in its queue: the last frame sent, then those taken here
        by_queue = np.lexsort((np.arange(n), queues))
        q, t = queues[by_queue], times[by_queue]
        first = np.append(True, q[1:] != q[:-1])
        previous_at = np.where(first, np.array(self.at)[q], np.roll(t, 1))
        previous_backlog = np.where(first, np.array(self.backlog)[q],
                                    np.roll(work[by_queue] / rate[by_queue] * rate[by_queue], 1))
        elapsed = t - previous_at
        empty = np.where(elapsed > 0, previous_backlog + (0.0 - rate[by_queue]) * elapsed <= 0,
                         previous_backlog == 0)
        busy = np.flatnonzero(~empty)
        taken = int(by_queue[busy].min()) if busy.size else n
        for lane in np.unique(queues[:taken]).tolist():
            last = int(np.flatnonzero(queues[:taken] == lane)[-1])
            rate_q = self.rate[lane]
            self.at[lane] = float(times[last])
            self.backlog[lane] = (float(work[last]) / rate_q + 0.0 / rate_q) * rate_q
        return taken

    def _uniforms(self):
        """The scheduler's uniforms one by one, as its ``random()`` would give them."""
        while True:
            yield from self.rng.random(BLOCK).tolist()

    def close(self, times, queues, work, units):
        """Hand the frames sent (arrays, in the order sent: arrival ``times``, ``queues``, service
        ``work`` and ``units`` of the limit) to their queues and bring the scheduler's clock to
        the last."""
        self.rng.bit_generator.state = self.start
        self.rng.random(self.draws)
        if not times.size:
            return
        rests = None if self.rests is None else np.array(self.rests)
        if rests is not None and rests.size != times.size:
            raise ValueError("close takes the frames sent through the lanes, in the order sent")
        for q in np.unique(queues).tolist():
            mine = queues == q
            self.scheduler.queues[q].offer(times[mine], work[mine], units[mine],
                                           None if rests is None else rests[mine])
        self.scheduler.t = max(self.scheduler.t, float(times[-1]))


def _paced_bound(queue, frames, work, spacing, until):
    """Most backlog (link time) ``queue`` can reach up to ``until`` while a fluid flows in below
    its rate and ``frames`` senders bring frames of at most ``work``, each sender at most one
    frame per ``spacing``.

    Between frames the backlog drains at the rate less the fluid's inflow; a frame adds its
    work to the backlog, or, finding less than the rest of a fluid packet in service ahead
    (at most one fluid packet's work), adds it to that rest. From the last time the backlog
    was at most a fluid packet's work (or from now, at ``queue.work``), the frames bring at
    most ``frames * work`` plus ``frames * work / spacing`` per second, and the backlog drains
    what the fluid leaves of the rate: the backlog bound of a leaky-bucket arrival at a
    constant-rate server, with one frame more for the frame arriving at that time, and the
    frames' work per second beyond the drain accumulated up to ``until``."""
    excess = frames * work / spacing - (queue.rate - queue.fluid_work)
    growth = excess * (until - queue.t) if excess > 0 else 0.0
    return max(queue.work, (queue.work_per_packet or 0.0) + work) + (frames + 1) * work + growth
