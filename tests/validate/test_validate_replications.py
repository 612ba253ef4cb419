"""Tests of the simulated side of validate: seeds per replication, and traces independent of the
number of processes."""

from pathlib import Path

import numpy as np

from vsim.validate.replications import run_trace_task, simulated_traces, trace_tasks

FIG2 = str(Path(__file__).resolve().parents[2] / "configs" / "voip-vsphere5" / "fig2.toml")


def test_replications_take_consecutive_seeds():
    tasks = trace_tasks("packets", FIG2, ("vm.streams_per_instance=20",), 4, 3.0, 1.0, 3)
    assert [task.seed for task in tasks] == [4, 5, 6]
    assert tasks[1].label() == "fig2 rep 2/3 (seed 5)"


def test_each_task_gives_its_seeds_trace_and_the_runner_keeps_task_order():
    tasks = trace_tasks("packets", FIG2, (), 1, 3.0, 1.0, 2)
    traces = simulated_traces(tasks)
    assert [trace.meta["seed"] for trace in traces] == ["1", "2"]
    again, _ = run_trace_task(tasks[1])
    assert np.array_equal(again.columns["arrival_s"], traces[1].columns["arrival_s"], equal_nan=True)
    assert not np.array_equal(traces[0].columns["arrival_s"], traces[1].columns["arrival_s"])
