"""Closed-form run of a host where no world ever waits for a CPU.

When every world (vCPUs and vNIC transmit worlds) can have a whole core of
its own, the scheduler never has a decision to make: HT-aware placement puts
each waking world on an idle core, no sibling thread is ever busy, nothing is
ready, co-stopped, preempted or throttled. Each world is then a single server
working at full speed, and the whole run follows from three recursions:

- each worker vCPU: a tick starts at the later of its wakeup and the end of
  the previous tick, and ends ``work`` later (Lindley's recursion);
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

import heapq
import math

import numpy as np


def applies(machine):
    """Whether the event engine would never make ``machine``'s worlds wait or pair up."""
    worlds = machine.worlds
    return (not machine.reservations
            and all(group.limit == math.inf for group in machine.groups)
            and all(world.affinity is None for world in worlds)
            and len(worlds) <= machine.topology.cores)


class _Timeline:
    """What happened, with times, to answer 'how much by time t?' for two snapshots."""

    def __init__(self):
        self.busy = {}
        self.emitted = []
        self.ring_drops = []
        self.uplink = []

    def snapshot(self, sim, t):
        machine = sim.machine
        topology = machine.topology
        lcpu_busy = np.zeros(topology.logical_cpus)
        core_busy = np.zeros(topology.cores)
        worlds = {}
        for index, world in enumerate(machine.worlds):
            starts, ends = self.busy.get(world.name, (np.zeros(0), np.zeros(0)))
            used = float(np.sum(np.clip(ends, None, t) - np.clip(starts, None, t)))
            worlds[world.name] = (used, 0.0, 0.0)
            lcpu_busy[index * topology.threads_per_core] = used
            core_busy[index] = used
        sent = dropped = 0
        busy = 0.0
        for offer_time, accepted, lost, service in self.uplink:
            if offer_time >= t:
                break
            sent += accepted
            dropped += lost
            busy += service
        return {
            "lcpu_busy": lcpu_busy,
            "core_busy": core_busy,
            "worlds": worlds,
            "emitted": sum(count for when, count in self.emitted if when < t),
            "ring_drops": sum(count for when, count in self.ring_drops if when < t),
            "uplink_sent": sent,
            "uplink_dropped": dropped,
            "uplink_busy": busy,
        }


def run(sim, duration, warmup):
    """Run ``sim`` (a ``Simulation``) to ``duration``: (snapshot at warmup, snapshot at end)."""
    timeline = _Timeline()
    bursts = []
    for vm_index, (server, vnic) in enumerate(zip(sim.servers, sim.vnics)):
        posts = []
        for worker_index, worker in enumerate(server.workers):
            posts.extend(_worker_posts(server, worker, worker_index, duration, timeline))
        posts.sort(key=lambda post: (post[0], post[1]))
        server.emitted = sum(post[2] for post in posts)
        timeline.emitted.extend((post[0], post[2]) for post in posts)
        for when, count, measured_tick in _transmit(vnic, posts, duration, timeline):
            bursts.append((when, vm_index, count, measured_tick))
    bursts.sort(key=lambda burst: (burst[0], burst[1]))
    uplink, recorder = sim.uplink, sim.client
    for when, _, count, measured_tick in bursts:
        accepted, first, spacing = uplink.offer_burst(when, count)
        timeline.uplink.append((when, accepted, count - accepted, accepted * uplink.service))
        if measured_tick is not None:
            recorder.departed(measured_tick, first, spacing, accepted, count)
    return timeline.snapshot(sim, warmup), timeline.snapshot(sim, duration)


def _worker_posts(server, worker, worker_index, duration, timeline):
    """One worker's ticks: their posts to the vNIC, in time order, with a tie-break key.

    Times are computed with the same floating-point steps as the event engine:
    a wakeup is scheduled ``max(0, due - now)`` after the previous one, a job
    ends ``work`` after it starts.
    """
    period, overhead = server.rtp_interval, server.tick_overhead
    phase, timer, costs = worker.phase, worker.timer, worker.costs
    others = worker.streams - worker.measured_streams
    measured = worker.measured_streams
    posts, starts, ends = [], [], []
    wake = 0.0 + max(0.0, phase + timer.draw() - 0.0)
    free = -math.inf
    tick = 0
    while wake < duration:
        next_wake = wake + max(0.0, phase + (tick + 1) * period + timer.draw() - wake)
        start = wake if wake > free else free
        if start >= duration:
            break
        end = start + (overhead + costs.next())
        starts.append(start)
        ends.append(min(end, duration))
        free = end
        if end < duration:
            send_time = phase + tick * period
            order = 2 * worker_index
            if others > 0:
                posts.append((end, order, others, None, send_time))
            if measured > 0:
                posts.append((end, order + 1, measured, tick, send_time))
        wake = next_wake
        tick += 1
    timeline.busy[worker.world.name] = (np.asarray(starts), np.asarray(ends))
    return posts


def _transmit(vnic, posts, duration, timeline):
    """The transmit world's jobs for the VM's posts: a list of (end, frames, measured tick) bursts.

    A state machine over the posts in time order; between two posts it plays
    the world's own events (job ends, follow-on jobs, rate-limited wakeups).
    """
    recorder = vnic.recorder
    cost, ring, gap = vnic.cost_per_frame, vnic.ring_size, vnic.min_gap
    pending = []
    pending_frames = in_ring = 0
    running_until = timer_at = None
    job = []
    last_wake = -math.inf
    starts, ends, out = [], [], []
    posted = 0
    for now, _, count, measured_tick, send_time in posts + [(duration, 0, 0, None, None)]:
        # the world's own events before this post
        while True:
            if running_until is not None and running_until < now and (
                    timer_at is None or running_until <= timer_at):
                done = running_until
                for frames, tick in job:
                    in_ring -= frames
                    out.append((done, frames, tick))
                running_until = None
                if pending:
                    job, pending = pending, []
                    starts.append(done)
                    running_until = done + pending_frames * cost
                    ends.append(running_until)
                    pending_frames = 0
            elif timer_at is not None and timer_at < now:
                woke, timer_at = timer_at, None
                if running_until is None and pending:
                    last_wake = woke
                    job, pending = pending, []
                    starts.append(woke)
                    running_until = woke + pending_frames * cost
                    ends.append(running_until)
                    pending_frames = 0
            else:
                break
        if count == 0:
            continue
        posted += count
        accepted = min(count, max(ring - in_ring, 0))
        if accepted < count:
            vnic.ring_drops += count - accepted
            timeline.ring_drops.append((now, count - accepted))
        if measured_tick is not None:
            recorder.sent(measured_tick, send_time, count)
            if accepted < count:
                recorder.lost(measured_tick, accepted, count)
        if accepted == 0:
            continue
        pending.append((accepted, measured_tick))
        pending_frames += accepted
        in_ring += accepted
        if running_until is None and timer_at is None:
            wait = last_wake + gap - now
            if wait > 0:
                timer_at = now + wait
            else:
                last_wake = now
                job, pending = pending, []
                starts.append(now)
                running_until = now + pending_frames * cost
                ends.append(running_until)
                pending_frames = 0
    vnic.posted += posted
    timeline.busy[vnic.world.name] = (np.asarray(starts), np.minimum(np.asarray(ends), duration))
    return out
