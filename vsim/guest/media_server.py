"""A conference media server in the manner of vMCD, processing audio in 20 ms ticks.

Conferences of ``participants`` streams are dealt round-robin over the VM's
vCPUs in the order they are set up; each vCPU's worker thread sleeps on its
own 20 ms timer (the threads start at different moments, so their phases are
independent) and processes its conferences in that order every tick (decode,
mix, encode: ``frame_cost`` core-seconds per stream, varying from frame to
frame) and hands each tick's frames to the virtual NIC when it is done.

Every VM's last-set-up conference is monitored: its frames are marked so the
receiver timestamps them. In the VM that hosts the measuring conference that
is the measuring conference, set up last as in the study; in the others it is
the last load conference, which sits in the same place (the last conference
of its vCPU), so every VM's jitter can be reported next to the study's one.

What a measured packet sees is therefore: the tick's start delay (guest timer
lateness, then waiting for a logical CPU), plus the work of its vCPU's tick
(stretched while the hyper-thread sibling is busy, interrupted by preemption
or co-stop), plus the hypervisor's transmit path and the uplink.

With ``aligned_phases`` every worker's ticks fall due at the same instants
instead (threads started on one deadline, as ``vsim probe``'s are), and with
``phases`` (one per vCPU, the scenario's ``phases`` key) each worker's fall
due at its own given phase, in place of either. Aligned workers given an
``expiry`` (a ``vsim.guest.timer.SharedExpiry``, the workload's
``shared_expiry``) wake together, one lateness per tick for all of them, as
timers expired in one interrupt do.

Every guest's timer runs off the host's clock, so the workers' phases stay
where they started for the whole run: which ticks collide on the host is
decided once per run by the phases drawn for its seed (or given), unless the scenario
adds guest background bursts (``vsim.guest.background``), which queue with
the ticks on their vCPU and move them against the other VMs' ticks.

Events per tick and worker: one wakeup and one completion; a tick's work is
one block-drawn gamma variate (the sum of its streams' frame costs).

With ``emission = "per_stream"`` a worker hands each stream's frame over when
its share of the tick's work is done, as a real multi-stream worker sends
each stream's packet when it has encoded it: the tick's work runs as one job
per stream on the vCPU (the wake-up's overhead with the first), each an equal
share of the tick's drawn work, and each ending in that stream's post. The
streams go in their conferences' order, the monitored conference last. That
is a completion per stream instead of per tick, so a run costs about that
many times the events; the closed form does not play it. The default,
``"tick_end"``, posts the whole tick at the end of its work.
"""

import math
from typing import Any, Optional, Protocol

from vsim.core.clock import Handler, call_later_on, clock_of, time_now
from vsim.core.environment import scheduler_for
from vsim.cpu.machine import Machine
from vsim.cpu.world import IDLE, JobDone, World
from vsim.guest.background import GuestBackground
from vsim.guest.timer import Lateness, SharedExpiry, TimerLatency
from vsim.net.vnic_tx import VnicTransmit


class FramePoster(Protocol):
    """What a media server hands its frames to: its vNIC's transmit ring
    (``vsim.net.vnic_tx.VnicTransmit``), or anything standing in for it."""

    def post(self, now: float, count: int, send_time: float, tick: int, monitored: int = 0) -> Any:
        """Take ``count`` frames of ``tick`` at ``now``; the last ``monitored`` are recorded."""


class FrameCosts:
    """Per-tick work of a vCPU's streams, drawn in blocks.

    Each stream's frame cost is gamma-distributed with the given mean and
    coefficient of variation, independently from frame to frame. A tick's work
    is the sum over the vCPU's streams, and a sum of independent gammas of one
    scale is itself gamma-distributed (shapes add), so each tick takes one draw.
    """

    BLOCK = 1024

    def __init__(self, rng: Any, streams: int, mean: float, cv: float) -> None:
        self.rng = rng
        self.streams = streams
        self.mean = mean
        self.cv = cv
        self._rows: list[float] = []
        self._next = 0  # index of the next tick's work in the block (read in order, kept whole)

    def next(self) -> float:
        """The work of one tick, in core-seconds."""
        index = self._next
        if index == len(self._rows):
            if self.cv > 0:
                shape = 1.0 / (self.cv * self.cv)
                self._rows = self.rng.gamma(shape * self.streams, self.mean / shape, self.BLOCK).tolist()
            else:
                self._rows = [self.mean * self.streams] * self.BLOCK
            index = 0
        self._next = index + 1
        return self._rows[index]


class WorkerVcpu(Handler):
    """One vCPU's worker thread: wakes on its own 20 ms timer and processes its conferences.

    A tick that finds the previous one still running is queued behind it,
    and so is one that finds a guest background burst running
    (``vsim.guest.background``). One event per tick sets the next wakeup: the
    tick boundary plus the timer's lateness, so lateness never accumulates.
    ``wakes``, when set to a list, receives ``(tick, time)`` of every wakeup,
    for a trace of the guest timer (``vsim.results.simulation_trace``);
    ``ticks``, when set by ``record_ticks``, receives ``(tick, start, end)``
    of every tick's work: ``start`` when it first got a logical CPU (at once
    when it follows the previous tick or burst on a running vCPU), ``end``
    when it was done.
    """

    def __init__(self, server: "MediaServer", world: World, streams: int, monitored_streams: int,
                 costs: FrameCosts, timer: Lateness, phase: float) -> None:
        self.server = server
        self.world = world
        self.streams = streams
        self.monitored_streams = monitored_streams
        self.costs = costs
        self.timer = timer
        self.phase = phase
        self.backlog: list[Any] = []  # ticks (ints) and bursts waiting for the vCPU
        self.wakes: list[tuple] | None = None
        self.ticks: list[tuple] | None = None
        self._head_start: float | None = None
        self._left = 0  # per-stream emission: streams of the head tick not yet done
        self._share = 0.0  # and the work of each
        self._done = _TickDone(self)

    def record_ticks(self):
        """Keep every tick's start and end in ``ticks`` from now on; call before the run."""
        self.ticks = []
        self.world.on_start = self._started

    def _started(self, _world):
        """The vCPU got a logical CPU: the head of the queue started now, unless it had before."""
        if self._head_start is None:
            self._head_start = self.server.now()

    def start(self):
        self._wake_at(0)

    def _wake_at(self, tick: int) -> None:
        server = self.server
        due: float = self.phase + tick * server.rtp_interval + self.timer.draw()
        server.later(max(0.0, due - server.now()), self, tick)

    def fire(self, arg: Any) -> None:
        """The event of a wakeup (its argument the tick), as the clock runs it."""
        self._wake(arg)

    def _wake(self, tick: int) -> None:
        """The timer of ``tick`` fired: set the next one, queue this tick."""
        self.record_wake(tick, self.server.now())
        self._wake_at(tick + 1)
        self._queue(tick)

    def record_wake(self, tick, now):
        """The timer of ``tick`` fired at ``now``: kept in ``wakes`` when it is a list."""
        if self.wakes is not None:
            self.wakes.append((tick, now))

    def add_background(self, work):
        """Queue a guest background burst of ``work`` core-seconds on this vCPU."""
        self._queue(_Burst(work))

    def _queue(self, item: Any) -> None:
        self.backlog.append(item)
        if self.world.state == IDLE and len(self.backlog) == 1:
            self.server.machine.submit(self.world, self._job_work(), self._done)

    def _job_work(self) -> float:
        head = self.backlog[0]
        if isinstance(head, _Burst):
            return head.work
        if self.server.per_stream:
            self._share = self.costs.next() / self.streams
            self._left = self.streams
            return self.server.tick_overhead + self._share
        return self.server.tick_overhead + self.costs.next()

    def _job_done(self, _world: World) -> Optional[float]:
        now = self.server.now()
        if self._left > 1:  # per-stream emission: this stream's frame, then the next stream's work
            self._post_stream(now, self.backlog[0])
            self._left -= 1
            return self._share
        if self._left == 1:
            self._post_stream(now, self.backlog.pop(0))
            self._left = 0
            return self._tick_finished(now, None)
        item = self.backlog.pop(0)
        if not isinstance(item, _Burst):
            tick: int = item
            send_time = self.phase + tick * self.server.rtp_interval
            self.server.emit(now, self.streams, tick, send_time, self.monitored_streams)
        return self._tick_finished(now, item)

    def _post_stream(self, now: float, tick: int) -> None:
        """Per-stream emission: post the frame of the head tick's next stream (the monitored
        conference's streams are the last ``monitored_streams``)."""
        index = self.streams - self._left
        send_time = self.phase + tick * self.server.rtp_interval
        monitored = 1 if index >= self.streams - self.monitored_streams else 0
        self.server.emit(now, 1, tick, send_time, monitored)
        if self._left == 1 and self.ticks is not None:
            self.ticks.append((tick, self._head_start, now))

    def _tick_finished(self, now: float, tick: Any) -> Optional[float]:
        """The head item is done (``tick``, None when its streams were posted one by one):
        record it and take the next item, if any, without giving up the vCPU."""
        if tick is not None and not isinstance(tick, _Burst) and self.ticks is not None:
            self.ticks.append((tick, self._head_start, now))
        if self.backlog:
            if self.ticks is not None:
                self._head_start = now  # the vCPU keeps its CPU for the next item
            return self._job_work()
        self._head_start = None
        return None


class _TickDone(JobDone):
    """A worker's job done (``WorkerVcpu._job_done``), called natively by the machine."""

    def __init__(self, worker: WorkerVcpu) -> None:
        self.worker = worker

    def done(self, world: World) -> Optional[float]:
        return self.worker._job_done(world)


class _Burst:
    """A guest background burst waiting in a worker's queue."""

    __slots__ = ("work",)

    def __init__(self, work: float) -> None:
        self.work = work


class MediaServer:
    """Ticks the VM's worker vCPUs and hands their frames to the virtual NIC.

    ``phases``, when given, holds each vCPU's tick phase (s, below ``tick``), in place of
    one drawn from the worker's own stream (or 0 for every worker with ``aligned_phases``).
    """

    def __init__(self, env, machine, vm_group, vnic, rng_streams, name, *, streams,
                 participants, tick, frame_cost, frame_cost_cv, tick_overhead,
                 timer_median, timer_sigma, measuring_conference,
                 background_burst=0.0, background_interval=1.0, aligned_phases=False, phases=None,
                 expiry: SharedExpiry | None = None, emission="tick_end"):
        self.env = env
        self._clock = clock_of(env)
        self.call_later = scheduler_for(env)
        self.machine: Machine = machine
        self._vnic: FramePoster = vnic
        self._vnic_tx: Optional[VnicTransmit] = None
        self.vnic = vnic
        self.rtp_interval = float(tick)
        self.tick_overhead = float(tick_overhead)
        self.per_stream = emission == "per_stream"
        vcpus = vm_group.worlds
        conferences = math.ceil(streams / participants)
        sizes = [participants] * conferences
        if streams % participants:
            sizes[-1] = streams % participants
        if measuring_conference:
            sizes.append(participants)
        per_vcpu: list[list[int]] = [[] for _ in vcpus]
        for index, size in enumerate(sizes):
            per_vcpu[index % len(vcpus)].append(size)
        monitored_vcpu = (len(sizes) - 1) % len(vcpus) if sizes else None
        self.workers = []
        for i, world in enumerate(vcpus):
            total = sum(per_vcpu[i])
            if total == 0:
                continue
            worker = f"{name}.vcpu{i}"
            costs = FrameCosts(rng_streams.stream(f"{worker}.frames"), total, frame_cost, frame_cost_cv)
            timer: Lateness = TimerLatency(rng_streams.stream(f"{worker}.timer"), timer_median, timer_sigma)
            if expiry is not None and aligned_phases and phases is None:
                timer = expiry.view()
            if phases is not None:
                phase = phases[i]
            else:
                phase = 0.0 if aligned_phases else rng_streams.stream(f"{worker}.phase").uniform(0.0, tick)
            monitored = sizes[-1] if i == monitored_vcpu else 0
            self.workers.append(WorkerVcpu(self, world, total, monitored, costs, timer, float(phase)))
        self.background = None
        if background_burst > 0:
            self.background = GuestBackground(self.call_later, rng_streams.stream(f"{name}.background"),
                                              self.workers, background_interval, background_burst)
        self.emitted = 0

    @property
    def vnic(self) -> FramePoster:
        """Where the frames are posted: the vNIC, or a stand-in set in its place."""
        return self._vnic

    @vnic.setter
    def vnic(self, vnic: FramePoster) -> None:
        self._vnic = vnic
        # the compiled vNIC's post is called natively (through the protocol, a Python call)
        self._vnic_tx = vnic if isinstance(vnic, VnicTransmit) else None

    def now(self) -> float:
        """The simulated time."""
        return time_now(self._clock, self.env)

    def later(self, delay: float, callback: Any, arg: Any) -> None:
        """Call ``callback(arg)`` ``delay`` seconds from now (``call_later_on``)."""
        call_later_on(self._clock, self.call_later, delay, callback, arg)

    def supports_closed_form(self) -> bool:
        """The closed form plays the ticks' recursions, guest background bursts included, but
        not a tick's per-stream posts."""
        return not self.per_stream

    def start(self) -> None:
        for worker in self.workers:
            worker.start()
        if self.background is not None:
            self.background.start()

    def emit(self, now: float, count: int, tick: int, send_time: float, monitored: int) -> None:
        """Hand ``count`` frames of ``tick`` (RTP time ``send_time``) to the virtual NIC.

        The last ``monitored`` of them are the monitored conference's, sent
        after the vCPU's other conferences.
        """
        self.count_emitted(count)
        vnic_tx = self._vnic_tx
        if vnic_tx is not None:
            vnic_tx.post(now, count, send_time, tick, monitored)
        else:
            self._vnic.post(now, count, send_time, tick, monitored)

    def count_emitted(self, count: int) -> None:
        """Count ``count`` more frames handed to the virtual NIC (``emit``'s, or the closed
        form's, which posts them itself)."""
        self.emitted += count
