"""Closed-form run of a host where no world ever waits for a CPU.

When every world (vCPUs and vNIC transmit worlds) can have a whole core of
its own, the scheduler never has a decision to make: HT-aware placement puts
each waking world on an idle core, no sibling thread is ever busy, nothing is
ready, co-stopped, preempted or throttled. Each world is then a single server
working at full speed, and the whole run follows from three recursions:

- each worker vCPU: a tick (or a guest background burst queued on it) starts
  at the later of its arrival and the end of the previous job, and ends
  ``work`` later (Lindley's recursion);
- each vNIC's transmit world: posts fill the ring, rate-limited wakeups start
  jobs that drain it, a job ends ``frames * cost`` after it starts;
- the uplink: the transmit jobs' bursts, in time order, through the same
  ``UniformFifo`` the event engine uses.

This module computes exactly those recursions with the scenario's own objects
and random streams, drawn in the same order as the event engine draws them,
so the packets, their times and the jitter are the event engine's to rounding
(``tests/scenario/test_scenario_uncontended.py`` checks it). It costs a few
microseconds per tick instead of several SimPy events, which is what makes a
one-VM run like Fig 2's cheap. Per-logical-CPU utilisation is reported with
each world on a core of its own, in the order the host lists them; the event
engine may move a world between idle cores, which changes no total.
"""

import gc
import math

import numpy as np


def applies(machine):
    """Whether the event engine would never make ``machine``'s worlds wait or pair up, and
    a world moved between idle cores would pay nothing for it (no cache refill cost), and
    busy cores never slow each other (no socket contention)."""
    worlds = machine.worlds
    return (not machine.contention and not machine.reservations
            and all(group.limit == math.inf for group in machine.groups)
            and all(world.affinity is None and not world.refill_same_socket
                    and not world.refill_other_socket for world in worlds)
            and len(worlds) <= machine.topology.cores)


class _Timeline:
    """What happened, with times, to answer 'how much by time t?' for two snapshots."""

    def __init__(self):
        self.busy = {}
        self.emitted: tuple[list[float], list[int]] = ([], [])
        self.ring_drops: tuple[list[float], list[int]] = ([], [])
        self.uplink_at = {}
        self.background = []

    @staticmethod
    def _before(events, t):
        """Sum of the counts of events (times, counts) strictly before ``t``."""
        times, counts = events
        if not times:
            return 0
        return int(np.asarray(counts)[np.asarray(times) < t].sum())

    def snapshot(self, sim, t):
        machine = sim.machine
        topology = machine.topology
        lcpu_busy = np.zeros(topology.logical_cpus)
        core_busy = np.zeros(topology.cores)
        worlds = {}
        for index, world in enumerate(machine.worlds):
            starts, ends = self.busy.get(world.name, (np.zeros(0), np.zeros(0)))
            used = float(np.sum(np.clip(ends, None, t) - np.clip(starts, None, t)))
            worlds[world.name] = (used, 0.0, 0.0, 0.0)
            lcpu_busy[index * topology.threads_per_core] = used
            core_busy[index] = used
        sent, dropped, busy = self.uplink_at[t]
        return {
            "lcpu_busy": lcpu_busy,
            "core_busy": core_busy,
            "worlds": worlds,
            "emitted": self._before(self.emitted, t),
            "ring_drops": self._before(self.ring_drops, t),
            "uplink_sent": sent,
            "uplink_dropped": dropped,
            "uplink_busy": busy,
            "background_bursts": sum(when < t for when in self.background),
        }


def run(sim, duration, warmup):
    """Run ``sim`` (a ``Simulation``) to ``duration``: (snapshot at warmup, snapshot at end).

    The recursions allocate tens of thousands of small tuples and no reference
    cycles, so the cyclic garbage collector is paused while they run (it would
    otherwise walk every object the process holds, several times a run).
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _run(sim, duration, warmup)
    finally:
        if collecting:
            gc.enable()


def _run(sim, duration, warmup):
    timeline = _Timeline()
    bursts = []
    for vm_index, (server, vnic) in enumerate(zip(sim.servers, sim.vnics)):
        background: list[list[float]] = [[] for _ in server.workers]
        if server.background is not None:
            arrivals = server.background.arrivals(duration)
            for when, worker_index in arrivals:
                background[worker_index].append(when)
            if sim.vm_group[sim.vms[vm_index].name] == "vm":  # the summary counts [vm]'s bursts
                timeline.background.extend(when for when, _ in arrivals)
        posts = []
        for worker_index, worker in enumerate(server.workers):
            posts.extend(_worker_posts(server, worker, worker_index, duration, timeline,
                                       background[worker_index]))
        posts.sort()  # by time, then worker; the pair is unique
        server.count_emitted(sum(post[2] for post in posts))
        timeline.emitted[0].extend(post[0] for post in posts)
        timeline.emitted[1].extend(post[2] for post in posts)
        for order, (when, count, tick, monitored) in enumerate(
                _transmit(vnic, posts, duration, timeline)):
            bursts.append((when, vm_index, order, count, tick, monitored))
    bursts.sort()  # by time, then VM, then the VM's own order; the triple is unique
    uplink = sim.uplink
    for when, vm_index, _, count, tick, monitored in bursts:
        if warmup not in timeline.uplink_at and when >= warmup:
            timeline.uplink_at[warmup] = _counters(uplink)
        sim.vnics[vm_index].forward(when, count, tick, monitored)
    timeline.uplink_at.setdefault(warmup, _counters(uplink))
    timeline.uplink_at[duration] = _counters(uplink)
    return timeline.snapshot(sim, warmup), timeline.snapshot(sim, duration)


def _counters(uplink):
    return uplink.sent, uplink.dropped, uplink.busy_time


def _worker_posts(server, worker, worker_index, duration, timeline, bursts=()):
    """One worker's ticks: their posts to the vNIC, in time order, with a tie-break key.

    ``bursts`` are the arrival times of the guest background bursts queued on
    this worker, in order; they take the CPU first come first served with the
    ticks and post nothing. Times are computed with the same floating-point
    steps as the event engine: a wakeup is scheduled ``max(0, due - now)``
    after the previous one, a job ends ``work`` after it starts.
    """
    period, overhead = server.rtp_interval, server.tick_overhead
    phase, timer, costs = worker.phase, worker.timer, worker.costs
    streams, monitored = worker.streams, worker.monitored_streams
    burst_work = server.background.burst if bursts else 0.0
    pending = iter(bursts)
    arrival = next(pending, math.inf)
    posts, starts, ends = [], [], []
    free = -math.inf

    def run_bursts_before(limit):
        """Run the bursts that arrive before ``limit``; False once a job would start at ``duration``."""
        nonlocal arrival, free
        while arrival < limit:
            start = arrival if arrival > free else free
            if start >= duration:
                return False
            free = start + burst_work
            starts.append(start)
            ends.append(min(free, duration))
            arrival = next(pending, math.inf)
        return True

    wake = 0.0 + max(0.0, phase + timer.draw() - 0.0)
    tick = 0
    while wake < duration:
        worker.record_wake(tick, wake)
        next_wake = wake + max(0.0, phase + (tick + 1) * period + timer.draw() - wake)
        if not run_bursts_before(wake):
            break
        start = wake if wake > free else free
        if start >= duration:
            break
        end = start + (overhead + costs.next())
        starts.append(start)
        ends.append(min(end, duration))
        free = end
        if end < duration:
            posts.append((end, worker_index, streams, phase + tick * period, tick, monitored))
        wake = next_wake
        tick += 1
    else:
        run_bursts_before(duration)
    timeline.busy[worker.world.name] = (np.asarray(starts), np.asarray(ends))
    return posts


def _transmit(vnic, posts, duration, timeline):
    """The transmit world's bursts for the VM's posts: (end, frames, tick, monitored frames)."""
    world = _TransmitWorld(vnic)
    for now, _, count, send_time, tick, monitored in posts:
        world.advance(now)
        world.post(now, count, send_time, tick, monitored, timeline)
    world.advance(duration)
    timeline.busy[vnic.world.name] = (np.asarray(world.starts),
                                      np.minimum(np.asarray(world.ends), duration))
    return world.bursts


class _TransmitWorld:
    """A ``VnicTransmit`` whose hypervisor world always has a core of its own.

    The ring and its bookkeeping are the vNIC's own (``accept``, ``wake_delay``,
    ``woke``, ``take_job``, ``finish_job``); this class plays what the event
    engine's scheduler would: ``post`` is the guest's post, ``advance`` plays
    the world's job ends and rate-limited wakeups up to a time. It keeps the
    job's posts as bursts instead of forwarding them, so that every VM's
    bursts reach the uplink in time order.
    """

    def __init__(self, vnic):
        self.vnic = vnic
        self.running_until = None
        self.timer_at = None
        self.starts, self.ends, self.bursts = [], [], []

    def _start_job(self, now):
        self.starts.append(now)
        self.running_until = now + self.vnic.take_job()
        self.ends.append(self.running_until)

    def advance(self, limit):
        """Play the world's job ends and timer wakeups that fall before ``limit``."""
        vnic = self.vnic
        while True:
            running_until, timer_at = self.running_until, self.timer_at
            if running_until is not None and running_until < limit and (
                    timer_at is None or running_until <= timer_at):
                for frames, tick, monitored in vnic.finish_job():
                    self.bursts.append((running_until, frames, tick, monitored))
                self.running_until = None
                if vnic.pending:
                    self._start_job(running_until)
            elif timer_at is not None and timer_at < limit:
                self.timer_at = None
                if running_until is None and vnic.pending:
                    vnic.woke(timer_at)
                    self._start_job(timer_at)
            else:
                return

    def post(self, now, count, send_time, tick, monitored, timeline):
        """The guest posts ``count`` frames at ``now``, the last ``monitored`` recorded."""
        vnic = self.vnic
        accepted = vnic.accept(count, send_time, tick, monitored)
        if accepted < count:
            timeline.ring_drops[0].append(now)
            timeline.ring_drops[1].append(count - accepted)
        if accepted and self.running_until is None and self.timer_at is None:
            wait = vnic.wake_delay(now)
            if wait > 0:
                self.timer_at = now + wait
            else:
                vnic.woke(now)
                self._start_job(now)
