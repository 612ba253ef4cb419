"""Run one replication of a scenario into a summary.

``Simulation`` is a built host (``vsim.build.host.Host``) with the engine
that runs it: the SimPy events, or the closed form of
``vsim.engines.closed_form`` where no world ever waits for a CPU. The run's
counters, read after the warm-up and at the end, become its summary in
``vsim.results.run_summary`` (a ``vsim.results.run_summary_types.RunSummary``).
"""

from typing import Optional, Sequence

import numpy as np

from vsim.build.host import Host
from vsim.config.run_length import RunPlan
from vsim.cpu.world import COSTOP, READY
from vsim.engines import closed_form as uncontended
from vsim.engines.choices import ENGINES
from vsim.engines.collections import fewer_collections
from vsim.guest.workload import (CallWorkload, EngineComponent, ReplayWorkload, TrafficWorkload,
                                 TransactionWorkload, UserWorkload, Workload)
from vsim.net.shared_uplink import SharedUplink
from vsim.results.run_summary import run_summary


class EngineError(ValueError):
    """The engine asked for (``--engine``, or the closed form a trace needs) does not fit the run."""


class Simulation(Host):
    """One replication: the built model, the engine that runs it and the counters read at the end.

    ``engine`` is ``"events"`` (the SimPy model), ``"uncontended"`` (the
    closed form of ``vsim.engines.closed_form``, only for hosts where no
    world ever waits for a CPU) or ``"auto"``: the closed form where it
    applies, since it gives the same packets and jitter, the events elsewhere.
    The closed form is taken only when the machine and every component (media
    servers, traffic VMs, the uplink: ``vsim.guest.workload.EngineComponent``) say they
    support it.
    """

    ENGINES = ENGINES

    def __init__(self, loaded, seed, engine="auto"):
        if engine not in self.ENGINES:
            raise EngineError(f"engine must be one of {', '.join(self.ENGINES)}, got {engine!r}")
        super().__init__(loaded, seed)
        self.engine = self._choose_engine(engine)

    def _choose_engine(self, engine: str) -> str:
        """The engine to run: the one asked for, the closed form for ``"auto"`` where it fits;
        ``EngineError`` when the closed form is asked for and does not fit."""
        components: list[EngineComponent] = ([*self.servers, *self.traffic, *self.cpu_bound, *self.sip,
                                              *self.tcp_receivers, *self.disk_benchmarks,
                                              *self.web_apps, self.uplink, self.host_steal]
                      + ([self.rr] if self.rr else [])
                      + ([self.replay] if self.replay else []))
        # the closed form plays the VMs' worlds only; the host's other work needs the events
        fits = (uncontended.applies(self.machine) and not self.background_tasks.worlds
                and all(c.supports_closed_form() for c in components))
        if engine == "uncontended" and not fits:
            raise EngineError(f"expected a whole core per world, no limits, reservations or "
                             f"affinity, no cache refill cost or socket contention, no bulk traffic or CPU-bound VMs, a FIFO uplink "
                             f"and no steal for the uncontended engine; this host runs "
                             f"{len(self.machine.worlds)} worlds on {self.topology.cores} cores")
        if engine == "auto":
            return "uncontended" if fits else "events"
        return engine

    def record_ticks(self):
        """Keep every worker's tick starts and ends (``WorkerVcpu.ticks``); call before ``run``.

        The ticks come from the event engine; ``EngineError`` on the closed form."""
        if self.engine == "uncontended":
            raise EngineError("expected the event engine for worker ticks (--engine events)")
        for server in self.servers:
            for worker in server.workers:
                worker.record_ticks()

    def _start_traffic(self, duration: float, warmup: float) -> None:
        """Declare the media servers' frame rates to the uplink and schedule the bulk traffic,
        the request/response chains (which batch their requests between the bulk flows'
        changes) and the replayed packets."""
        self.uplink.begin(duration)
        for flow, pps in self.voice_flows:
            self.uplink.set_rate(0.0, flow, pps)
        rate = self.uplink.scheduler.rate_bps
        traffic: Sequence[TrafficWorkload] = self.traffic
        changes = [vm.start(duration, rate) for vm in traffic]
        rr: Optional[TransactionWorkload] = self.rr
        if rr is not None:
            rr.start(duration, warmup, np.concatenate([[0.0], *changes]))
        replay: Optional[ReplayWorkload] = self.replay
        if replay is not None:
            replay.start(duration, warmup)

    def _snapshot(self):
        """The counters the summary differences (``vsim.results.run_summary``), read now."""
        now = self.env.now
        shared = isinstance(self.uplink, SharedUplink)
        if shared:
            self.uplink.settle(now)  # frames sent late, due before now, are counted
        return {
            "flows": self.uplink.flow_packets(now) if shared else None,
            "interrupts": np.array([vm.cpu.interrupts for vm in self.traffic]),
            "lcpu_busy": np.array(self.machine.lcpu_utilisation(now)) * now,
            "core_busy": np.array(self.machine.core_utilisation(now)) * now,
            "worlds": {w.name: (self._used(w, now), self._ready(w, now), self._costop(w, now),
                                w.limited(now)) for w in self.machine.worlds},
            "emitted": sum(s.emitted for s in self.servers),
            "tcp_received": {r.name: r.received_bytes for r in self.tcp_receivers},
            "cpu_bound_work": {vm.name: sum(self._progress(w, now) for w in vm.worlds) for vm in self.cpu_bound},
            "disk_done": {d.name: (d.done_bytes, d.requests, d.disk_time) for d in self.disk_benchmarks},
            "ring_drops": sum(v.ring_drops for v in self.vnics),
            "uplink_sent": self.uplink.sent,
            "uplink_dropped": self.uplink.dropped,
            "uplink_busy": self.uplink.busy_time,
            "background_bursts": sum(server.background.bursts for server, vm in zip(self.servers, self.vms)
                                     if server.background is not None and self.vm_group[vm.name] == "vm"),
        }

    @staticmethod
    def _used(world, now):
        return world.used + (now - world.run_start if world.lcpu is not None else 0.0)

    def _progress(self, world, now):
        """Work done: the time it ran, each stretch at the speed it ran at (hyper-threading,
        socket contention), so less than ``_used`` where those slowed it."""
        return world.progress + self.machine.done_since_mark(world, now)

    @staticmethod
    def _ready(world, now):
        return world.ready_time + (now - world.t_state if world.state == READY else 0.0)

    @staticmethod
    def _costop(world, now):
        return world.costop_time + (now - world.t_state if world.state == COSTOP else 0.0)

    PROGRESS_STEPS = 200  # calls of a progress callback over a run

    def run(self, duration, warmup, progress=None):
        """Run to ``duration`` and summarise the window after ``warmup``.

        ``progress``, when given, is called with the simulated time reached,
        ``PROGRESS_STEPS`` times over the run (the closed form: once, at the end).
        """
        if self.engine == "uncontended":
            start, end = uncontended.run(self, duration, warmup)
            if progress is not None:
                progress(duration)
            return run_summary(self, start, end, duration - warmup, warmup)
        self.background_tasks.start()
        for vm in self.cpu_bound:
            vm.start()
        receivers: Sequence[Workload] = [*self.tcp_receivers, *self.disk_benchmarks]
        for receiver in receivers:
            receiver.start()
        self.host_steal.start()
        if isinstance(self.uplink, SharedUplink):
            self._start_traffic(duration, warmup)
        servers: Sequence[Workload] = self.servers
        for server in servers:
            server.start()
        services: Sequence[CallWorkload] = self.sip
        for service in services:
            service.start(duration)
        apps: Sequence[UserWorkload] = self.web_apps
        for app in apps:
            app.start(duration)
        with fewer_collections():
            self._run_until(warmup, duration / self.PROGRESS_STEPS, progress)
            start = self._snapshot()
            self._run_until(duration, duration / self.PROGRESS_STEPS, progress)
            end = self._snapshot()
        return run_summary(self, start, end, duration - warmup, warmup)

    def _run_until(self, until, step, progress):
        """Run the events up to ``until``, in steps of ``step`` simulated seconds when
        reporting ``progress``. Stopping and resuming SimPy changes no event's time or
        order (events go by time, priority and scheduling order), so the run is the same."""
        if until <= self.env.now:  # a warm-up of 0: nothing to run yet
            return
        if progress is None:
            self.env.run(until=until)
            return
        reached = self.env.now
        while reached < until:
            reached = min(until, reached + step)
            self.env.run(until=reached)
            progress(reached)


def simulate(loaded, seed, duration=None, warmup=None):
    """Run one replication of ``loaded`` with ``seed``; return its ``RunSummary``."""
    length = RunPlan(duration=duration).resolve(loaded.scenario.run)
    return Simulation(loaded, seed).run(length.duration, length.warmup if warmup is None else warmup)
