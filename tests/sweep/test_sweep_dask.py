"""Replications on a Dask cluster give the same summaries as serial runs; an absent scheduler
is named before any task runs."""

import json
from pathlib import Path

import pytest

pytest.importorskip("distributed")

from vsim.build.load import load_scenario
from vsim.sweep.dask_executor import DaskDistributed, SchedulerUnreachable
from vsim.sweep.executor import Serial, run_task, sweep_tasks

CONFIG = Path(__file__).resolve().parents[2] / "configs" / "voip-vsphere5" / "fig3.toml"


def _summaries(executor, tasks):
    results = dict(executor.outcomes(run_task, tasks))
    return [json.dumps(results[i][0].to_json(), sort_keys=True) for i in range(len(tasks))]


def test_a_local_cluster_gives_the_serial_runs_summaries():
    tasks = sweep_tasks(CONFIG, load_scenario(CONFIG), 2.0, 0.5, 1)[:3]
    assert _summaries(DaskDistributed(workers=2, processes=False), tasks) == _summaries(Serial(), tasks)


def test_an_unreachable_scheduler_is_named():
    with pytest.raises(SchedulerUnreachable, match="tcp://127.0.0.1:1"):
        list(DaskDistributed("tcp://127.0.0.1:1", connect_timeout=1.0).outcomes(run_task, []))
