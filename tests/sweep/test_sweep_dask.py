"""Replications on a Dask cluster give the same summaries as serial runs; an absent scheduler
is named before any task runs."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("distributed")

from vsim.build.load import load_scenario
from vsim.sweep.dask_executor import QUIET_WORKERS, DaskDistributed, SchedulerUnreachable
from vsim.sweep.executor import Serial, run_task, sweep_tasks

CONFIG = Path(__file__).resolve().parents[2] / "configs" / "voip-vsphere5" / "fig3.toml"


def _summaries(executor, tasks):
    results = dict(executor.outcomes(run_task, tasks))
    return [json.dumps(results[i][0].to_json(), sort_keys=True) for i in range(len(tasks))]


def test_a_local_cluster_gives_the_serial_runs_summaries():
    tasks = sweep_tasks(CONFIG, load_scenario(CONFIG), 2.0, 0.5, 1)[:3]
    assert _summaries(DaskDistributed(workers=2, processes=False), tasks) == _summaries(Serial(), tasks)


def test_the_workers_of_a_local_cluster_keep_their_event_loops_quiet():
    """Each worker process of the cluster vsim starts holds the settings that keep its profiler
    and monitors from taking the interpreter from a replication."""
    import dask

    keys = sorted(QUIET_WORKERS)
    seen = dict(DaskDistributed(workers=1).outcomes(dask.config.get, keys))
    assert {keys[index]: value for index, value in seen.items()} == QUIET_WORKERS
    assert dask.config.get("distributed.worker.profile.enabled") is True  # this process's own stay


def test_an_unreachable_scheduler_is_named():
    with pytest.raises(SchedulerUnreachable, match="tcp://127.0.0.1:1"):
        list(DaskDistributed("tcp://127.0.0.1:1", connect_timeout=1.0).outcomes(run_task, []))


def _cli(*args):
    """``vsim ARGS`` in a process of its own (a Dask cluster starts and ends in it): status, stdout, stderr."""
    done = subprocess.run([sys.executable, "-m", "vsim", *map(str, args)], capture_output=True, text=True,
                          timeout=300)
    return done.returncode, done.stdout, done.stderr


SWEEP = ["sweep", CONFIG, "--duration", "1", "--replications", "1", "--set", "sweep.values=[1, 2]"]


def test_a_sweep_on_a_local_dask_cluster_writes_the_bytes_of_local_processes(tmp_path):
    local, dask = tmp_path / "local.json", tmp_path / "dask.json"
    assert _cli(*SWEEP, "--jobs", "2", "--json", local)[0] == 0
    code, _, err = _cli(*SWEEP, "--jobs", "2", "--executor", "dask", "--json", dask)
    assert code == 0, err
    assert dask.read_bytes() == local.read_bytes()


def test_an_unreachable_scheduler_is_one_line_and_status_2_before_any_run(tmp_path):
    code, out, err = _cli(*SWEEP, "--executor", "dask", "--scheduler", "tcp://127.0.0.1:1",
                          "--json", tmp_path / "s.json")
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "--scheduler" in lines[0] and "tcp://127.0.0.1:1" in lines[0]
    assert "[1/" not in err and not (tmp_path / "s.json").exists()


def test_a_scheduler_without_the_dask_executor_is_refused(tmp_path):
    code, _, err = _cli(*SWEEP, "--scheduler", "tcp://127.0.0.1:1")
    assert code == 2 and "--scheduler: needs --executor dask" in err


def _dies_once(task):
    """The runner of a worker that is lost mid-task the first time it meets task 1 (its marker
    file not yet written), then runs it."""
    index, marker = task
    if index == 1 and not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(1)  # the worker process ends under its task, as a lost node does
    return index * 10, 0.0


def test_a_task_whose_worker_is_lost_is_run_again_and_kept_once(tmp_path):
    import cloudpickle
    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import tests/
    marker = str(tmp_path / "lost-once")
    tasks = [(index, marker) for index in range(3)]
    outcomes = list(DaskDistributed(workers=2, processes=True).outcomes(_dies_once, tasks))
    assert os.path.exists(marker)  # a worker was lost
    assert sorted(outcomes) == [(0, (0, 0.0)), (1, (10, 0.0)), (2, (20, 0.0))]
