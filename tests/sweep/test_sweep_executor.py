"""Progress lines of a sweep's runs: what finished, and the time so far and left."""

import re

from vsim.sweep.executor import Task, _duration, run_tasks
from vsim.sweep import executor


def test_durations_read_as_seconds_then_minutes():
    assert [_duration(s) for s in (0.2, 42.4, 59.6, 61, 3599)] == [
        "0 s", "42 s", "1 min 00 s", "1 min 01 s", "59 min 59 s"]


def test_progress_estimates_the_time_left_from_the_mean_so_far(monkeypatch):
    """Three tasks of 10 s each on one worker: after the first, 20 s are left; after the last, none."""
    clock = iter([0.0, 10.0, 20.0, 30.0])
    monkeypatch.setattr(executor.time, "perf_counter", lambda: next(clock))
    monkeypatch.setattr(executor, "run_task", lambda task: ({"x": task.x}, 10.0))
    tasks = [Task("c.toml", (), "vm.instances", x, 0, 1, 1, 1.0, 0.5) for x in (1, 2, 3)]
    lines = []
    assert run_tasks(tasks, jobs=1, progress=lines.append) == [{"x": 1}, {"x": 2}, {"x": 3}]
    left = [re.search(r"\((.*) so far, about (.*) left\)", line).groups() for line in lines]
    assert left == [("10 s", "20 s"), ("20 s", "10 s"), ("30 s", "0 s")]
