"""The hypervisor's transmit path for one virtual NIC.

The guest posts frames into the vNIC's transmit ring. A hypervisor world
(a thread that competes for logical CPUs like any vCPU) drains the ring,
spending ``tx_cost`` core-seconds per frame plus ``rx_cost`` for the frame of
the same stream's incoming leg (one in, one out per stream every 20 ms), and
forwards the frames through the vSwitch to the uplink. It is woken at most
``wake_rate_hz`` times per second (the vNIC's rate-based interrupt coalescing);
once running it keeps draining until the ring is empty. A full ring drops the
frames that do not fit. A path of zero cost per frame forwards each batch when
its world would wake, without running the world, so it takes no CPU time and
no scheduling decision.

A post may end with a monitored conference's frames (``monitored`` of them,
one per stream); the vNIC tells its ``recorder`` when they were sent, lost at
the ring, or left the uplink.

The uplink is either the frames-only ``UniformFifo`` (a burst offered at the
job's end) or, when the vNIC has a ``port`` on a ``SharedUplink``, an uplink
scheduler that is handed the job's frames one transmit-world frame time
apart, each with its own departure.

Events: one wakeup and one completion per batch of posts, never per frame.
"""

import math
from typing import Any, List, Optional, Tuple

from vsim.core.clock import Handler, clock_of, time_now
from vsim.core.environment import scheduler_for
from vsim.cpu.machine import Machine
from vsim.cpu.world import IDLE, JobDone, World
from vsim.net.frame_recorder import ForwardedRecorder, FrameRecorder, recorder_of
from vsim.net.uniform_fifo import UniformFifo


class VnicTransmit(Handler):
    """Transmit ring and hypervisor transmit world of one vNIC. ``machine`` is anything with
    the machine's ``submit`` (``vsim.cpu.machine.Machine``, or a stand-in watching it). As a
    ``Handler``, the vNIC is the event of its coalesced wakeup (``fire``)."""

    def __init__(self, env: Any, machine: Any, world: World, uplink: Any, recorder: Any, *,
                 tx_cost: float, rx_cost: float, ring_size: int, wake_rate_hz: float,
                 port: Any = None, ip_bytes: Any = None) -> None:
        self.env = env
        self._clock = clock_of(env)
        self._call_later = scheduler_for(env)
        self._machine_any: Any = machine
        self._machine: Optional[Machine] = None
        self.machine = machine
        # the compiled frames-only uplink, called natively (a generic call otherwise)
        self._fifo: Optional[UniformFifo] = uplink if isinstance(uplink, UniformFifo) else None
        self._done = _VnicJobDone(self)
        self.world = world
        self.uplink = uplink
        self._recorder: FrameRecorder = recorder_of(recorder)
        self.cost_per_frame = tx_cost + rx_cost
        self.ring_size = ring_size
        self.min_gap = 1.0 / wake_rate_hz if wake_rate_hz and wake_rate_hz < math.inf else 0.0
        # posts waiting in the ring, then those of the world's job: (frames, tick or None,
        # monitored frames)
        self.pending: List[Tuple[int, Any, int]] = []
        self.pending_frames = 0
        self.in_ring = 0
        self.job: List[Tuple[int, Any, int]] = []
        self.last_wake = -math.inf
        self.wake_armed = False
        self.posted = 0
        self.ring_drops = 0
        self.port = port
        self.ip_bytes = ip_bytes

    @property
    def machine(self) -> Any:
        """The machine whose ``submit`` runs the transmit world's jobs, or a stand-in."""
        return self._machine_any

    @machine.setter
    def machine(self, machine: Any) -> None:
        self._machine_any = machine
        # the compiled machine's submit is called natively (a generic call otherwise)
        self._machine = machine if isinstance(machine, Machine) else None

    @property
    def recorder(self) -> Any:
        """What is told of the monitored frames (a ``FrameRecorder``, or a stand-in)."""
        recorder = self._recorder
        return recorder.recorder if isinstance(recorder, ForwardedRecorder) else recorder

    @recorder.setter
    def recorder(self, recorder: Any) -> None:
        self._recorder = recorder_of(recorder)  # told natively, a stand-in through a forwarder

    def now(self) -> float:
        """The simulated time."""
        return time_now(self._clock, self.env)

    def post(self, now: float, count: int, send_time: float, tick: Any, monitored: int = 0) -> None:
        """The guest posts ``count`` frames of ``tick``; the last ``monitored`` are recorded."""
        if not self.accept(count, send_time, tick, monitored):
            return
        if self.world.state == IDLE and not self.wake_armed:
            wait = self.wake_delay(now)
            if wait > 0:
                self.wake_armed = True
                self._call_later(wait, self, None)
            else:
                self._wake()

    def accept(self, count: int, send_time: float, tick: Any, monitored: int = 0) -> int:
        """Put what fits of ``count`` posted frames in the ring; return how many fit.

        The frames that do not fit are the last ones, so the monitored frames
        are the first to be dropped.
        """
        self.posted += count
        accepted = min(count, max(self.ring_size - self.in_ring, 0))
        if accepted < count:
            self.ring_drops += count - accepted
        monitored_in_ring = max(0, accepted - (count - monitored))  # they are the last frames
        if monitored:
            self._recorder.sent(tick, send_time, monitored)
            if monitored_in_ring < monitored:
                self._recorder.lost(tick, monitored_in_ring, monitored)
        if accepted:
            self.pending.append((accepted, tick if monitored_in_ring else None, monitored_in_ring))
            self.pending_frames += accepted
            self.in_ring += accepted
        return accepted

    def fire(self, arg: Any) -> None:
        """The coalesced wakeup fell due."""
        self._wake(arg)

    def _wake(self, _arg: Any = None) -> None:
        self.wake_armed = False
        if self.world.state != IDLE or not self.pending:
            return
        self.woke(self.now())
        work = self.take_job()
        if self.cost_per_frame == 0:  # a path that costs no CPU never waits for one
            self._job_done(self.world)
            return
        machine = self._machine
        if machine is not None:
            machine.submit(self.world, work, self._done)
        else:
            self._machine_any.submit(self.world, work, self._done)

    def wake_delay(self, now: float) -> float:
        """Seconds from ``now`` until the world may wake again (the coalescing gap after its
        last wakeup); zero or less when it may wake at once."""
        return self.last_wake + self.min_gap - now

    def woke(self, now: float) -> None:
        """The world woke at ``now`` to drain the ring: the next wakeup waits ``min_gap``
        from it."""
        self.last_wake = now

    def take_job(self) -> float:
        """Move the ring's pending frames into a job; return its work in core-seconds."""
        self.job = self.pending
        self.pending = []
        work = self.pending_frames * self.cost_per_frame
        self.pending_frames = 0
        return work

    def _job_done(self, _world: World) -> Optional[float]:
        """The world forwarded the job's posts one after another, its last frame now. An uplink
        scheduler is handed each post ending where the frames of the posts after it begin (so
        the job's frames keep their spacing); the frames-only uplink takes each post as a
        burst at the job's end."""
        now = self.now()
        job = self.finish_job()
        after = sum(count for count, _, _ in job)  # frames of the posts after this one
        for count, tick, monitored in job:
            after -= count
            end = now - after * self.cost_per_frame if self.port is not None else now
            self.forward(end, count, tick, monitored)
        if self.pending:
            return self.take_job()
        return None

    def finish_job(self) -> List[Tuple[int, Any, int]]:
        """The world has drained the job: its frames leave the ring. Returns its posts,
        ``(frames, tick, monitored)`` in the order posted, for the caller to ``forward``."""
        job = self.job
        self.job = []
        self.in_ring -= sum(count for count, _, _ in job)
        return job

    def forward(self, now: float, count: int, tick: Any, monitored: int) -> None:
        """Offer a burst of ``count`` frames ending at ``now`` to the uplink; record its last
        ``monitored``."""
        if self.port is not None:
            departures = self.uplink.send(self.port, now, count, self.cost_per_frame, self.ip_bytes)
            if tick is not None:
                self._recorder.departed_frames(tick, departures[count - monitored:])
            return
        fifo = self._fifo
        if fifo is not None:
            accepted, first, spacing = fifo.offer_burst(now, count)
        else:
            accepted, first, spacing = self.uplink.offer_burst(now, count)
        if tick is not None:
            before = count - monitored
            self._recorder.departed(tick, first + before * spacing, spacing, accepted - before,
                                    monitored)


class _VnicJobDone(JobDone):
    """The transmit world's job done (``VnicTransmit._job_done``), called natively by the
    machine."""

    def __init__(self, vnic: VnicTransmit) -> None:
        self.vnic = vnic

    def done(self, world: World) -> Optional[float]:
        return self.vnic._job_done(world)
