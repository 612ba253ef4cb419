"""A cluster file's replications, as a study's recipe reads them (``vsim reproduce``).

Replication ``k`` runs with seed ``run.seed + k``, which draws the phase of DRS's passes (the
only thing random in a cluster run), so the replications are the spread of what happens when
a fault falls at another moment of DRS's period. A cluster's events are at set times, so a
shortened plan (``--quick``) keeps the whole time series and caps only the replications; an
explicit ``--duration`` sets it (events after it do not happen).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from vsim.cluster.engine import ClusterRun
from vsim.cluster.load import read_cluster
from vsim.cluster.result import ClusterResult
from vsim.config.run_length import RunPlan
from vsim.config.schema_cluster import ClusterRunSection
from vsim.config.toml_io import load_toml
from vsim.core.errors import InputError


@dataclass(frozen=True)
class ClusterTask:
    """One replication of a cluster file as plain values, from which a worker process (or a
    Dask worker with the same files) runs it: the repository, the file in it, seed, length."""

    root: str
    relative: str
    seed: int
    duration: float


def run_cluster_task(task: ClusterTask) -> ClusterResult:
    """Run one replication from its task (the file loaded where it runs)."""
    path = Path(task.root) / task.relative
    loaded = read_cluster(load_toml(path), task.relative, path.parent)  # named as the recipe names it
    return ClusterRun(loaded, task.seed, task.duration).run()


def _serial(runner, tasks):
    """Each task here, in order: what an executor's ``outcomes`` yields."""
    for index, task in enumerate(tasks):
        yield index, runner(task)


@dataclass(frozen=True)
class ClusterSweep:
    """The replications of one cluster file: its name in the recipe, the file (as the recipe
    names it), the runs, the claims its models were fitted to and the models it read."""

    name: str
    config: str
    runs: tuple[ClusterResult, ...]
    fitted: frozenset[str]
    models: dict[str, str]
    duration: float

    def seeds(self) -> list[int]:
        return [run.seed for run in self.runs]

    def stamp(self) -> str:
        """How the runs were made: ``fig2: 10 x 1200 s cluster runs, seeds 1-10``."""
        seeds = self.seeds()
        span = f"{seeds[0]}" if len(seeds) == 1 else f"{seeds[0]}-{seeds[-1]}"
        return (f"{self.name}: {len(seeds)} x {self.duration:g} s cluster run{'s' * (len(seeds) > 1)}, "
                f"seed{'s' * (len(seeds) > 1)} {span} (each drawing DRS's phase)")

    def to_json(self) -> dict:
        """Plain data: the file, the models, every run."""
        return {"config": self.config, "kind": "cluster", "duration": self.duration, "models": dict(self.models),
                "runs": [run.to_json() for run in self.runs]}


def cluster_length(plan: RunPlan, run: ClusterRunSection) -> tuple[float, int]:
    """(duration, replications) of a cluster file's ``[run]`` under ``plan``: a shortened plan
    keeps the duration and caps the replications, an explicit one sets both."""
    if plan.shorten_only:
        replications = run.replications if plan.replications is None else min(run.replications, plan.replications)
        return run.duration, replications
    duration = run.duration if plan.duration is None else plan.duration
    return duration, run.replications if plan.replications is None else plan.replications


def run_cluster_sweep(name: str, relative: str, root: Path, study: str, plan: RunPlan = RunPlan(),
                      executor=None) -> ClusterSweep:
    """The replications of the cluster file ``relative`` (under ``root``) of study ``study``'s
    recipe, as long and as many as ``plan`` says, a task each on ``executor`` (anything with the
    ``outcomes(runner, tasks)`` of ``vsim.sweep.executor.Executor``; default: here, in order).
    The runs are kept in seed order whatever order they end in."""
    path = Path(root) / relative
    loaded = read_cluster(load_toml(path), relative, path.parent)  # named as the recipe names it
    if loaded.config.study != study:
        got = "nothing" if loaded.config.study is None else repr(loaded.config.study)
        raise InputError(loaded.source, "study", f"expected \"{study}\" (a cluster file of study {study}'s "
                         f"recipe), got {got}")
    duration, replications = cluster_length(plan, loaded.config.run)
    first = loaded.config.run.seed
    tasks = [ClusterTask(str(root), relative, seed, duration) for seed in range(first, first + replications)]
    outcomes = _serial if executor is None else executor.outcomes
    ended = dict(outcomes(run_cluster_task, tasks))
    runs = tuple(ended[index] for index in range(len(tasks)))
    return ClusterSweep(name, relative, runs, frozenset(loaded.fitted_claims()), loaded.model_files(), duration)
