"""A conference media server in the manner of vMCD, processing audio in 20 ms ticks.

Conferences of ``participants`` streams are dealt round-robin over the VM's
vCPUs in the order they are set up; each vCPU's worker thread processes its
conferences in that order every tick (decode, mix, encode: ``frame_cost``
core-seconds per stream, varying from frame to frame) and hands each tick's
frames to the virtual NIC when it is done. The measuring conference is set up
last, as in the study, so it is the last conference of its vCPU.

What a measured packet sees is therefore: the tick's start delay (guest timer
lateness, then waiting for a logical CPU), plus the work of its vCPU's tick (stretched while the hyper-thread sibling is busy, interrupted
by preemption or co-stop), plus the hypervisor's transmit path and the uplink.

Each guest's clock runs ``clock_drift_ppm`` fast or slow (drawn per VM), so
the VMs' 20 ms ticks slide past each other over a run instead of colliding
at the same phase forever; RTP timestamps count the guest's own 20 ms.

Events per tick: one wakeup per vCPU and one completion per job; the per-stream
work of a tick is summed from block-drawn numpy arrays.
"""

import math

import numpy as np

from vsim.cpu.world import IDLE


class FrameCosts:
    """Per-tick work of a vCPU's streams, drawn in blocks.

    Each stream's frame cost is gamma-distributed with the given mean and
    coefficient of variation; a tick's work is the sum over the vCPU's streams.
    """

    BLOCK = 1024

    def __init__(self, rng, streams, mean, cv):
        self.rng = rng
        self.streams = streams
        self.mean = mean
        self.cv = cv
        self._rows = []

    def next(self):
        """The work of one tick, in core-seconds."""
        if not self._rows:
            if self.cv > 0:
                shape = 1.0 / (self.cv * self.cv)
                costs = self.rng.gamma(shape, self.mean / shape, (self.BLOCK, self.streams))
                self._rows = costs.sum(axis=1).tolist()
            else:
                self._rows = [self.mean * self.streams] * self.BLOCK
            self._rows.reverse()
        return self._rows.pop()


class WorkerVcpu:
    """One vCPU's worker thread: a tick's job, or a backlog of ticks when it overruns."""

    def __init__(self, server, world, streams, measured_streams, costs):
        self.server = server
        self.world = world
        self.streams = streams
        self.measured_streams = measured_streams
        self.costs = costs
        self.backlog = []

    def release(self, tick):
        """The timer fired for ``tick`` (after its lateness): start or queue the job."""
        self.backlog.append(tick)
        if self.world.state == IDLE and len(self.backlog) == 1:
            self.server.machine.submit(self.world, self._job_work(), self._job_done)

    def _job_work(self):
        return self.server.tick_overhead + self.costs.next()

    def _job_done(self, _world):
        now = self.server.env.now
        tick = self.backlog.pop(0)
        self.server.emit(now, self.streams - self.measured_streams, tick, measured=False)
        self.server.emit(now, self.measured_streams, tick, measured=True)
        if self.backlog:
            return self._job_work()
        return None


class MediaServer:
    """Ticks the VM's worker vCPUs and hands their frames to the virtual NIC."""

    def __init__(self, env, machine, vm_group, vnic, rng_streams, name, *, streams,
                 participants, tick, frame_cost, frame_cost_cv, tick_overhead,
                 timer_latency, clock_drift_ppm, measuring_conference):
        self.env = env
        self.machine = machine
        self.vnic = vnic
        self.rtp_interval = tick
        drift = rng_streams.stream(f"{name}.clock").uniform(-1.0, 1.0) * clock_drift_ppm * 1e-6
        self.tick_period = tick * (1.0 + drift)
        self.tick_overhead = tick_overhead
        self.timer_latency = timer_latency
        vcpus = vm_group.worlds
        conferences = math.ceil(streams / participants)
        sizes = [participants] * conferences
        if streams % participants:
            sizes[-1] = streams % participants
        if measuring_conference:
            sizes.append(participants)
        per_vcpu = [[] for _ in vcpus]
        for index, size in enumerate(sizes):
            per_vcpu[index % len(vcpus)].append(size)
        measured_vcpu = (len(sizes) - 1) % len(vcpus) if measuring_conference else None
        self.workers = []
        for i, world in enumerate(vcpus):
            total = sum(per_vcpu[i])
            measured = participants if i == measured_vcpu else 0
            costs = FrameCosts(rng_streams.stream(f"{name}.vcpu{i}.frames"), total,
                               frame_cost, frame_cost_cv)
            self.workers.append(WorkerVcpu(self, world, total, measured, costs))
        self.phase = rng_streams.stream(f"{name}.phase").uniform(0.0, tick)
        self.emitted = 0
        self.measured_ticks = []

    def start(self):
        self.env.timeout(self.phase).callbacks.append(lambda _e: self._tick(0))

    def _tick(self, k):
        for worker in self.workers:
            if worker.streams == 0:
                continue
            lateness = self.timer_latency.draw()
            if lateness > 0:
                self.env.timeout(lateness).callbacks.append(
                    lambda _e, w=worker: w.release(k))
            else:
                worker.release(k)
        self.env.timeout(self.tick_period).callbacks.append(lambda _e: self._tick(k + 1))

    def emit(self, now, count, tick, measured):
        """Hand ``count`` frames of ``tick`` to the virtual NIC."""
        if count <= 0:
            return
        self.emitted += count
        self.vnic.post(now, count, tick if measured else None, self.phase + tick * self.rtp_interval)
