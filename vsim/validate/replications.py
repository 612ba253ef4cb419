"""The simulated side of ``vsim validate``: a scenario's replications, each as a trace of the kind
measured (``packets``, ``timer``, ``cpu_ticks`` or ``sipp_rtt``).

Replication ``r`` runs with seed ``seed + r``, as sweeps do; the tasks hold
only plain values, so ``vsim.sweep.executor.run_tasks`` can run them in
worker processes and gives the same traces, in task order, either way.
"""

import time
from dataclasses import dataclass
from pathlib import Path

from vsim.build.load import load_scenario
from vsim.engines.simulation import Simulation
from vsim.sweep.executor import run_tasks
from vsim.results.simulation_trace import run_meta, simulation_trace


@dataclass(frozen=True)
class TraceTask:
    """One replication whose packets or timer wakeups are wanted as a trace."""

    kind: str
    config: str
    overrides: tuple
    replication: int
    replications: int
    seed: int
    duration: float
    warmup: float
    cost: float = 1.0  # replications of one scenario cost alike, for the time-left estimate

    def label(self):
        """``fig2 rep 2/3 (seed 2)``: what the progress line names."""
        return f"{Path(self.config).stem} rep {self.replication + 1}/{self.replications} (seed {self.seed})"


def trace_tasks(kind, config, overrides, seed, duration, warmup, replications):
    """The tasks of ``replications`` runs of the scenario at ``config`` giving traces of ``kind``,
    seeds ``seed``, ``seed + 1``, ..."""
    return [TraceTask(kind, str(config), tuple(overrides), r, replications, seed + r, duration, warmup)
            for r in range(replications)]


def run_trace_task(task):
    """Run ``task`` from its files: (its trace, wall seconds)."""
    start = time.perf_counter()
    loaded = load_scenario(task.config, task.overrides)
    sim = Simulation(loaded, task.seed, engine="events" if task.kind == "cpu_ticks" else "auto")
    if task.kind == "timer":
        sim.record_wakeups()
    if task.kind == "cpu_ticks":
        sim.record_ticks()
    sim.run(task.duration, task.warmup)
    meta = run_meta(loaded.scenario, task.config, task.seed, task.duration, task.warmup, sim.engine)
    return simulation_trace(task.kind, sim, meta), time.perf_counter() - start


def simulated_traces(tasks, jobs=1, progress=None):
    """The traces of ``tasks``, in task order, run in ``jobs`` processes."""
    return run_tasks(tasks, jobs, progress, runner=run_trace_task)
