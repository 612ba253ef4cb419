"""Plan a sweep's replications, run them serially or in processes, group the results.

A ``Task`` is one replication of one sweep point, described only by plain
values (config path, overrides, sweep key and value, seed, times), so a worker
process can rebuild the scenario from the file itself: nothing but the task
and its ``RunSummary`` crosses the process boundary, which keeps the pool safe
under the "spawn" start method. Results come back in task order whatever the
completion order, so serial and parallel runs give identical output.
"""

import atexit
import contextlib
import json
import multiprocessing
import os
import shlex
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Protocol, Sequence

from vsim.core.interrupts import interrupts_held
from vsim.core.parent_death import die_with_parent
from vsim.metrics.stats import interval_caveat, trimmed_mean, trimmed_mean_interval
from vsim.build.load import load_scenario
from vsim.config.schema_sweep import names_a_model
from vsim.engines.collections import leave_objects_to_exit
from vsim.engines.simulation import simulate
from vsim.results.run_summary_types import summary_field


@dataclass(frozen=True)
class Task:
    """One replication of one sweep point: ``key`` at ``x``, and at a point of a design of several
    keys the (key, value) of each other key in ``held``."""

    config: str
    overrides: tuple
    key: str
    x: bool | int | float
    replication: int
    replications: int
    seed: int
    duration: float
    warmup: float
    cost: float = 1.0
    held: tuple = ()

    def setting(self):
        """(key, value) of every key the point sets, ``key`` first."""
        return ((self.key, self.x),) + tuple(self.held)

    def label(self):
        """``fig3 vm.instances=8 rep 3/5``: what the progress line names."""
        values = " ".join(f"{key}={json.dumps(value)}" for key, value in self.setting())
        return f"{Path(self.config).stem} {values} rep {self.replication + 1}/{self.replications}"


# A vCPU's 20 ms ticks cost as much simulation time as this many streams' frames: wall time
# per simulated second at 12 VMs of 4 vCPUs, 30 against 120 streams each (0.022 against 0.034 s).
STREAMS_PER_VCPU_COST = 33.0


# What a VM sending bulk traffic costs per simulated second beyond its vCPUs, in the units
# above, from wall time per simulated second: a flooding VM 14 (voip-vsphere5 Fig 6, one
# media server beside four flood VMs: 0.038 s against 0.045 s at 12 instances of Fig 3, its
# voice frames meeting the flood's full queue), a TCP sender 2 (100 of them: 0.14 s).
FLOOD_VM_COST = 14.0
TCP_VM_COST = 2.0

# What a SIP client's call costs per simulated second, per call/s, in the units above: some 40 us
# of wall time a call (sip-jvm-gc Fig 8, 200 s at 200 calls/s: 1.2 s), against 0.33 ms a unit
# (12 instances of Fig 3: 9.2 s for 300 s x 92 units); through a driver domain, whose vCPUs take
# each of its six messages twice, some 110 us more (xen-appliances, 149.9 s for 40 s runs of
# 5,300 calls/s in all; benchmarks/bench_time_left.py).
SIP_CALL_COST = 0.12
DOM0_CALL_COST = 0.33
# What a web application's operation costs, per operation/s (users over think time): 1.8 ms of
# wall time each, a dozen requests between the web and database VMs (netioc-vsphere6 Exp 2 alone,
# 14.0 s for 60 s runs of 130 operations/s in all).
WEB_OPERATION_COST = 5.4


def run_cost(loaded, duration):
    """The relative wall time of one replication: simulated seconds times the VMs' vCPUs and
    streams, weighted by what each costs (``STREAMS_PER_VCPU_COST``), counting ``[[group]]``
    VMs like ``[vm]``'s and a VM's bulk traffic by its kind (``FLOOD_VM_COST``,
    ``TCP_VM_COST``); never zero, since even a host of idle VMs takes some time."""
    vm = loaded.scenario.vm
    per_second = vm.instances * (vm.vcpus + vm.streams_per_instance / STREAMS_PER_VCPU_COST)
    dom0 = any(group.workload == "dom0" for group in loaded.scenario.group)
    per_second += sum(group.count * (group.vcpus + group.streams / STREAMS_PER_VCPU_COST
                                     + _traffic_cost(group.traffic, dom0))
                      for group in loaded.scenario.group)
    return duration * max(per_second, 1.0)


def _traffic_cost(traffic, dom0=False):
    """Per simulated second, what a group VM's traffic adds to its cost: a SIP client's by its
    call rate (the highest it ramps to; more when a driver domain carries its messages), a web
    application's by its operations a second, other bulk traffic by its kind."""
    if traffic is None:
        return 0.0
    if traffic.kind == "sipp_uac":
        rate = traffic.params.get("rate_max") or traffic.params.get("rate", 0.0)
        return (SIP_CALL_COST + (DOM0_CALL_COST if dom0 else 0.0)) * float(rate)
    if traffic.kind == "web_users":
        think = float(traffic.params.get("think_time", 0.0))
        return WEB_OPERATION_COST * float(traffic.params.get("users", 0)) / think if think > 0 else TCP_VM_COST
    return FLOOD_VM_COST if traffic.kind == "udp_flood" else TCP_VM_COST


def sweep_tasks(config, loaded, duration, warmup, replications, overrides=()):
    """Tasks for every point of the scenario's ``[sweep]`` (each value of its key, or each point
    of its design) times ``replications``, point by point.

    Replication ``r`` uses seed ``run.seed + r`` at every point, so the points
    of a sweep share their random numbers and differ only in the swept values.
    Each task carries its point's ``run_cost``, for the estimate of the time left.
    """
    base = loaded.scenario.run.seed
    settings = loaded.scenario.sweep.settings()
    costs = [run_cost(loaded.at(setting), duration) for setting in settings]
    return [Task(str(config), tuple(overrides), setting[0][0], setting[0][1], r, replications, base + r,
                 duration, warmup, cost, setting[1:])
            for setting, cost in zip(settings, costs) for r in range(replications)]


def point_runs(config, loaded, duration):
    """(config, scenario at the point, duration, ((where, key, value), ...)) for every point of
    the sweep, ``where`` the key of the config its value comes from (``sweep.values[2]``,
    ``sweep.axis[1]``): what each replication will run, for checks made before running any."""
    sweep = loaded.scenario.sweep
    return [(str(config), loaded.at(setting), duration,
             tuple((f"sweep.axis[{j}]" if sweep.axis else f"sweep.values[{i}]", key, value)
                   for j, (key, value) in enumerate(setting)))
            for i, setting in enumerate(sweep.settings())]


def run_task(task):
    """Run ``task`` from its files (the config's own [sweep] left out: the task is its point);
    return its summary and the wall time it took."""
    start = time.perf_counter()
    loaded = load_scenario(task.config, task.overrides, sweep=None).at(task.setting())
    summary = simulate(loaded, task.seed, duration=task.duration, warmup=task.warmup)
    return summary, time.perf_counter() - start


def run_tasks(tasks, jobs=1, progress=None, runner=None, finished_one=None, executor=None):
    """Summaries of ``tasks`` in task order, using ``jobs`` worker processes (or ``executor``,
    an ``Executor`` running ``jobs`` tasks at a time, e.g. ``vsim.sweep.dask_executor``'s),
    handed out costliest first when more than one runs at a time (``costliest_first``).

    ``progress``, when given, is called with a line before the first task starts (how many
    tasks, how many at once) and one line per finished task: what
    it was, how long it took, the time so far and an estimate of the time left:
    the finished tasks' own run time per unit of their cost, times the cost of
    the tasks not yet finished (a sweep's large points take longer), shared by
    the processes left busy. A task's own run time leaves out a worker's start,
    and tasks still running elsewhere are not mistaken for tasks not begun, as
    they were when the time so far stood for the finished tasks alone. ``runner``
    (default ``run_task``) turns a task into (result, wall seconds); it must
    be a module-level function, so a worker process can import it, and each
    task needs a ``label()`` and a ``cost``. ``finished_one``, when given, is called with
    (index, result) as each task ends, in the order they end (``vsim.sweep.store`` keeps them).
    """
    runner = run_task if runner is None else runner
    if progress is not None and tasks:  # a large first run would otherwise pass in silence
        progress(f"[0/{len(tasks)}] {len(tasks)} run{'s' if len(tasks) > 1 else ''}, "
                 f"{min(jobs, len(tasks))} at a time: a line as each ends")
    results = [None] * len(tasks)
    done = 0
    total_cost, done_cost, done_seconds = sum(task.cost for task in tasks), 0.0, 0.0
    start = time.perf_counter()

    def finished(index, outcome):
        nonlocal done, done_cost, done_seconds
        results[index], seconds = outcome
        if finished_one is not None:
            finished_one(index, results[index])
        done += 1
        done_cost += tasks[index].cost
        done_seconds += seconds
        if progress is not None:
            elapsed = time.perf_counter() - start
            busy = max(min(jobs, len(tasks) - done), 1)
            left = (done_seconds / done_cost * max(total_cost - done_cost, 0.0) / busy
                    if done_cost else 0.0)
            progress(f"[{done}/{len(tasks)}] {tasks[index].label()}  {seconds:.1f} s  "
                     f"({_duration(elapsed)} so far, about {_duration(left)} left)")

    if executor is None:
        executor = Serial() if jobs == 1 else LocalProcesses(jobs)
    order = costliest_first(tasks) if jobs > 1 else list(range(len(tasks)))
    # closed at once when this loop stops early (an error, Ctrl-C, SIGTERM), not when the
    # traceback that holds this frame is dropped: the executor's workers end with it
    with contextlib.closing(executor.outcomes(runner, [tasks[i] for i in order])) as outcomes:
        for position, outcome in outcomes:
            finished(order[position], outcome)
    return results


def costliest_first(tasks):
    """Task indices by falling ``cost`` (task order among equals): handed out in this order,
    the long runs start first and the short ones fill the workers at the end, so no worker
    is left alone with a long run while the others are idle. The results are kept by task
    index, so the order changes when each run ends, not what it gives."""
    return sorted(range(len(tasks)), key=lambda i: (-tasks[i].cost, i))


class Executor(Protocol):
    """Where a command's replications run: ``outcomes`` runs ``runner`` on every task and
    yields (task index, runner's result) as each ends, in the order they end; it leaves
    nothing running behind it when it returns or raises, so a caller may stop reading
    (Ctrl-C, a task's error) at any moment."""

    def outcomes(self, runner: Callable, tasks: Sequence) -> Iterator[tuple[int, tuple]]:
        ...


class Serial:
    """Every task in this process, one after another, in task order."""

    def outcomes(self, runner: Callable, tasks: Sequence) -> Iterator[tuple[int, tuple]]:
        for index, task in enumerate(tasks):
            yield index, runner(task)


def start_worker(parent: int) -> None:
    """A local worker's start: it ends with ``parent`` (``die_with_parent``), and what it holds
    when it exits, the garbage of its last runs among it, is left out of the interpreter's
    last collection (``leave_objects_to_exit``)."""
    die_with_parent(parent)
    atexit.register(leave_objects_to_exit)


@dataclass(frozen=True)
class LocalProcesses:
    """``jobs`` worker processes of this machine ("spawn" start method), a task each at a time."""

    jobs: int

    def outcomes(self, runner: Callable, tasks: Sequence) -> Iterator[tuple[int, tuple]]:
        pool = ProcessPoolExecutor(max_workers=self.jobs,
                                   mp_context=multiprocessing.get_context("spawn"),
                                   initializer=start_worker, initargs=(os.getpid(),))
        try:
            with interrupts_held():  # the workers start here and inherit it
                futures = {pool.submit(runner, task): index for index, task in enumerate(tasks)}
            for future in as_completed(futures):
                yield futures[future], future.result()
        except BaseException:  # Ctrl-C, SIGTERM, a task's error or the caller stopping early:
            with interrupts_held():  # stop at once, leave no worker behind; a second Ctrl-C
                _stop(pool)          # must not cut the stopping short
            raise
        pool.shutdown()


MANAGER_JOIN_S = 5.0
"""At most how long a stopped pool's manager thread is waited for (it ends at once when its
workers are gone)."""


def _stop(pool):
    """Cancel the tasks not started and end the workers now, instead of after their tasks.

    The workers hold SIGINT and SIGTERM back (the parent alone decides what they mean: a
    Ctrl-C reaches the terminal's whole foreground group, and the workers must not each
    report it), so they are ended with SIGKILL; they write nothing but their results to the
    parent, so nothing is left half-done. ``ProcessPoolExecutor`` has no public way to end
    running workers before Python 3.14, so they are taken from its process table. Workers
    also end by themselves if this process dies first (``die_with_parent``).

    The pool's manager thread, which notices the workers gone, is waited for too: left
    running, it closes its wake-up pipe while the interpreter's exit wakes it through that
    pipe, and the race now and then ends the process with an "Exception ignored in ...
    threading" traceback after the command's one line.
    """
    processes = list((pool._processes or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.kill()
    for process in processes:
        process.join()
    manager = getattr(pool, "_executor_manager_thread", None)
    if manager is not None:
        manager.join(MANAGER_JOIN_S)


def _duration(seconds):
    """``42 s`` or ``3 min 05 s``: a wall time for a progress line."""
    seconds = round(seconds)
    return f"{seconds} s" if seconds < 60 else f"{seconds // 60} min {seconds % 60:02d} s"


@dataclass(frozen=True)
class Point:
    """The replications of one sweep point: its value ``x`` of the sweep's key, and the (key,
    value) of each other key of a design of several in ``held``."""

    x: bool | int | float
    seeds: tuple
    runs: tuple
    held: tuple = ()

    def setting(self, key):
        """(key, value) of every key the point sets, the sweep's ``key`` first."""
        return ((key, self.x),) + tuple(self.held)

    def values(self, metric):
        """The dotted ``metric`` (``jitter.p99_ms``, ``summary_field``) of every replication."""
        return [summary_field(run, metric) for run in self.runs]

    def stat(self, metric):
        """Trimmed mean over replications and its 95% bootstrap interval."""
        values = self.values(metric)
        return trimmed_mean(values), trimmed_mean_interval(values)


@dataclass(frozen=True)
class Sweep:
    """A scenario's sweep: its points in sweep order, with the claims its models were fitted to."""

    name: str
    config: str
    key: str
    duration: float
    warmup: float
    points: tuple
    fitted: frozenset
    overrides: tuple = ()
    """The ``--set KEY=VALUE`` overrides the runs were made with, as given and in order."""
    models: tuple = ()
    """(role, model file) of the models every point ran with (``Loaded.model_files``)."""
    point_models: tuple = ()
    """Per point, {role: model file} of the models that point alone ran with (a sweep of a key
    naming a model), else empty."""

    @classmethod
    def from_runs(cls, name, config, tasks, summaries, fitted, models=(), point_models=()):
        """Group the summaries of one scenario's ``tasks`` into points; ``models`` as the
        ``Loaded.model_files`` of the scenario, ``point_models`` those that differ per point."""
        settings = list(dict.fromkeys(task.setting() for task in tasks))
        points = tuple(Point(setting[0][1], tuple(t.seed for t in tasks if t.setting() == setting),
                             tuple(s for t, s in zip(tasks, summaries) if t.setting() == setting),
                             setting[1:])
                       for setting in settings)
        first = tasks[0]
        return cls(name, config, first.key, first.duration, first.warmup, points, frozenset(fitted),
                   tuple(first.overrides), tuple(dict(models).items()), tuple(point_models))

    def stamp(self):
        """How the sweep was run, for figures and tables: ``fig3: 5 x 300 s (5 s warm-up), seeds 1-5``,
        followed by ``, --set KEY=VALUE ...`` when the config was overridden."""
        seeds = sorted({seed for point in self.points for seed in point.seeds})
        span = f"{seeds[0]}" if len(seeds) == 1 else f"{seeds[0]}-{seeds[-1]}"
        if seeds != list(range(seeds[0], seeds[-1] + 1)):
            span = ", ".join(str(seed) for seed in seeds)
        return (f"{self.name}: {self.replications()} x {self.duration:g} s ({self.warmup:g} s warm-up) "
                f"per point, seed{'s' if len(seeds) > 1 else ''} {span}{overrides_text(self.overrides)}")

    def replications(self):
        """The most replications any point has."""
        return max(len(point.runs) for point in self.points)

    def interval_caveat(self):
        """What the points' intervals are worth given the replications (``interval_caveat``)."""
        return interval_caveat(self.replications())

    def at(self, x):
        """The point whose swept value is ``x``."""
        return next(point for point in self.points if point.x == x)

    def xs(self):
        return [point.x for point in self.points]

    def keys(self):
        """Every key the sweep varies: its ``key`` (a figure's x axis), then those of ``held``."""
        return (self.key,) + tuple(key for key, _ in self.points[0].held)

    def series(self, metric):
        """Per point: (trimmed mean, 95% interval) of ``metric``."""
        return [point.stat(metric) for point in self.points]

    def maximum(self, metric):
        """Largest ``metric`` over every point and replication."""
        return max(value for point in self.points for value in point.values(metric))

    def to_json(self):
        """Plain-data form: the config, its overrides (only when there are any), the model files
        (when known; per point those a point alone ran with), run times and every replication's
        summary."""
        data = {"config": self.config, "key": self.key, "duration": self.duration,
                "warmup": self.warmup,
                "points": [{"x": p.x, "seeds": list(p.seeds), "runs": [run.to_json() for run in p.runs]}
                           | ({"held": dict(p.held)} if p.held else {})
                           for p in self.points]}
        for entry, own in zip(data["points"], self.point_models):
            entry["models"] = dict(own)
        if self.overrides:
            data["overrides"] = list(self.overrides)
        if self.models:
            data["models"] = dict(self.models)
        return data


def overrides_text(overrides):
    """``, --set a=1 --set b=2`` for the ``overrides`` a run was made with ('' without any)."""
    return "".join(f"{',' if i == 0 else ''} --set {shlex.quote(item)}" for i, item in enumerate(overrides))


def sweep_model_files(loaded):
    """(model files every point runs with, per point those it alone runs with) of ``loaded``'s
    sweep: the scenario's own for every point, unless the sweep varies a key naming a model."""
    files = loaded.model_files()
    sweep = loaded.scenario.sweep
    if not any(names_a_model(key) for key in sweep.keys()):
        return files, ()
    per_point = [loaded.at(setting).model_files() for setting in sweep.settings()]
    common = {role: file for role, file in files.items() if all(own[role] == file for own in per_point)}
    return common, tuple({role: file for role, file in own.items() if role not in common}
                         for own in per_point)
