"""The CPU a VM sending bulk traffic uses: its sender threads, its interrupts, its transmit world.

A packet generator (a UDP flood) is CPU-bound while it sends: each of the
VM's vCPUs runs a sender thread without sleeping (``spin``). A TCP sender
(netperf TCP_STREAM) is paced by its window and the rate the uplink leaves
it, not by its CPU: its first vCPU works only for what the traffic asks,
``frame_cost`` core-seconds per frame sent (its stack and copy) and
``interrupt_cost`` per transmit-completion interrupt its vNIC raises
(``interrupts``, a ``vsim.net.txpath.completions.CompletionInterrupts``).
The hypervisor's transmit world for the vNIC spends ``tx_cost`` core-seconds
per frame it forwards (for a TCP sender, a TSO segment's share of it).
All of it competes for logical CPUs with every other world, which is how a
flood slows a neighbouring media server even when the uplink isolates its
frames, and how a scheduler that breaks bursts up costs host CPU.

Events, not packets: a spinning vCPU works in ``CHUNK`` core-second jobs
one after another while the traffic runs; every ``CHUNK`` of time the
transmit world is handed the work of the frames sent and a TCP sender's
first vCPU that of its frames and interrupts, each when it is idle.

A sender whose worlds cannot keep up sends less, as a real one blocks on
its full socket buffer or transmit ring and then goes on at the pace the ring
drains: once its transmit world (or a TCP sender's first vCPU) owes more
than half of ``MAX_OWED`` core-seconds of work, the sender may hand over no
more frames per second (its ``allowance``; ``on_allowance`` is told, and a
``TrafficVm`` offers no more than that) than the world did over the last
period, plus what brings the world's debt to ``MAX_OWED`` by the next
period. So a transmit world starved by other worlds, or a sender under a CPU
limit, carries what its CPU does, the work owed stays near ``MAX_OWED``, and
the uplink sees the frames at the pace the world forwards them, not in
bursts at the nominal rate. A spinning sender's threads are busy whatever
they send (the model gives a flood no work per frame on its vCPUs), so only
its transmit world can hold it back.

Each VM hands over its work at its own ``phase`` of that period. A real
sender's work is spread over time, and different VMs' are not aligned; the
period is only the model's way of batching it. Had every VM the same phase,
VMs started together would hand over their jobs at the same instants for the
whole run, so a host with more such jobs than cores would run them on both
threads of its cores, at the hyper-threading rate, every period, while the
same work spread out would find whole idle cores: the host CPU would follow
how many jobs collide, not what the traffic costs. The scenario draws each
VM's phase at random from a stream of its own (``vsim.engines.simulation``),
so a VM keeps its phase whatever other VMs a sweep adds.
"""

import math

from vsim.core.environment import scheduler_for
from vsim.cpu.world import IDLE, RUN

CHUNK = 0.01
"""Seconds of a sender thread's job and of the accounting period of frames and interrupts."""

MAX_OWED = 2 * CHUNK
"""Core-seconds of work a sender's world may owe, the size of its buffer: two accounting
periods of a whole core. A world that keeps up owes at most one period's work when handed it,
so only a world that cannot (more than a whole core's work a period) reaches half of this
and holds its sender back."""


class _Backlog:
    """Work owed by one world, handed to it as one job whenever it is idle, and what
    piled up meanwhile as the next job when that one ends."""

    def __init__(self, machine, world):
        self.machine = machine
        self.world = world
        self.pending = 0.0
        self.mark = 0.0  # the work the world had done at the last look (``capacity``)

    def add(self, work):
        """Owe ``work`` more core-seconds; start a job if the world is idle."""
        self.pending += work
        if self.world.state == IDLE and self.pending > 0:
            job, self.pending = self.pending, 0.0
            self.machine.submit(self.world, job, self._done)

    def _done(self, _world):
        if self.pending > 0:
            job, self.pending = self.pending, 0.0
            return job
        return None

    def done(self, now):
        """Core-seconds of work the world has done so far (a running one's since its last event
        included)."""
        world = self.world
        if world.state == RUN:
            return world.progress + self.machine.done_since_mark(world, now)
        return world.progress

    def capacity(self, now, span, per_frame):
        """Frames/s the sender may hand this world over the next period, at ``per_frame``
        core-seconds each: inf while the world owes at most half of ``MAX_OWED``, else what it
        did over the last ``span`` seconds and what brings its debt to ``MAX_OWED`` by the
        next period. Marks what it has done so far, for the next look."""
        done = self.done(now)
        did, self.mark = done - self.mark, done
        if self.pending + self.world.work <= MAX_OWED / 2:  # a bound on the debt, without the exact look
            return math.inf
        owed = self.owed(now)
        if owed <= MAX_OWED / 2:
            return math.inf
        return max(did / span + (MAX_OWED - owed) / CHUNK, 0.0) / per_frame

    def owed(self, now):
        """Core-seconds of work not done yet: what is pending and what is left of the current
        job (a world's work is settled at events; a running one's has drained since)."""
        world = self.world
        if world.state == IDLE:
            return self.pending
        left = world.work
        if world.state == RUN:
            left -= self.machine.done_since_mark(world, now)
        return self.pending + max(left, 0.0)


class SenderCpu:
    """The vCPUs and transmit world of one traffic VM on ``machine``; ``rate()`` is the
    frames/s the VM sends now. ``interrupts`` counts the interrupts raised so far.
    ``phase`` (in [0, 1)) places the VM's accounting period: after the VM starts sending,
    its first ``(1 - phase) * CHUNK`` seconds are handed over first, then every ``CHUNK``.
    ``handed(t)``, when given, is the frames the VM has handed over up to ``t``, so a period's
    work is that of the frames it sent even where its rate changed within it (other VMs'
    allowances move a shared class's rates at their own phases); without it the rate at the
    period's end stands for the whole period. Its interrupts are likewise those ``interrupts``
    counts raised in the period (``CompletionInterrupts.raised``)."""

    def __init__(self, env, machine, vcpus, tx_world, tx_cost, rate, *, spin=True,
                 interrupts=None, interrupt_cost=0.0, frame_cost=0.0, phase=0.0, handed=None):
        if not 0.0 <= phase < 1.0:
            raise ValueError(f"expected a phase in [0, 1), got {phase!r}")
        self.env = env
        self.call_later = scheduler_for(env)
        self.machine = machine
        self.vcpus = list(vcpus)
        self.tx_cost = tx_cost
        self.rate = rate
        self.spin = spin
        self.interrupt_rate = interrupts
        self.interrupt_cost = interrupt_cost
        self.frame_cost = frame_cost
        self.interrupts = 0.0
        self.transmit = _Backlog(machine, tx_world)
        self.guest = _Backlog(machine, self.vcpus[0])
        self._ticking = False
        self._first_span = CHUNK * (1.0 - phase)
        self.allowance = math.inf
        self.on_allowance = None
        self.handed = handed
        self._handed_mark = 0.0  # ``handed`` at the last period's end
        self._raised_mark = 0.0  # the interrupts raised at the last period's end

    def wake(self):
        """The VM's rate changed: if it sends, its threads spin (or not) and its frames cost."""
        if self.rate() <= 0:
            return
        if self.spin:
            for world in self.vcpus:
                if world.state == IDLE:
                    self.machine.submit(world, CHUNK, self._spin)
        if not self._ticking:
            self._ticking = True
            now = self.env.now
            self.transmit.mark, self.guest.mark = self.transmit.done(now), self.guest.done(now)
            if self.handed is not None:
                self._handed_mark = self.handed(now)
            if self.interrupt_rate is not None:
                self._raised_mark = self.interrupt_rate.raised(now)
            self.call_later(self._first_span, self._tick, self._first_span)

    def _spin(self, _world):
        """A sender thread's job ended: another while the traffic runs."""
        return CHUNK if self.rate() > 0 else None

    def _tick(self, span):
        """The frames and interrupts of the last ``span`` seconds go to their worlds; the
        sender's allowance follows what its worlds keep up with."""
        now = self.env.now
        if self.handed is None:
            frames = self.rate() * span
        else:
            handed = self.handed(now)
            frames, self._handed_mark = handed - self._handed_mark, handed
        self.transmit.add(frames * self.tx_cost)
        allowance = self.transmit.capacity(now, span, self.tx_cost) if self.tx_cost > 0 else math.inf
        raised = 0.0
        if self.interrupt_rate is not None:
            total = self.interrupt_rate.raised(now)
            raised, self._raised_mark = total - self._raised_mark, total
        self.interrupts += raised
        if not self.spin:  # a spinning vCPU does its sending and interrupts within its spin
            work = frames * self.frame_cost + raised * self.interrupt_cost
            self.guest.add(work)
            per_frame = work / frames if frames > 0 else self.frame_cost
            if per_frame > 0:
                allowance = min(allowance, self.guest.capacity(now, span, per_frame))
        if allowance != self.allowance:
            self.allowance = allowance
            if self.on_allowance is not None:
                self.on_allowance(allowance)
            self.wake()  # threads that stopped while nothing was allowed spin again
        if allowance < math.inf or self.rate() > 0:  # the rate as the allowance leaves it
            self.call_later(CHUNK, self._tick, CHUNK)
        else:
            self._ticking = False
