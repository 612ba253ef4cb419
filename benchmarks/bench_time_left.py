"""The time-left estimate of a progress line against a recorded paper-length ``vsim reproduce``.

``data/reproduce_progress.log`` is the progress of ``vsim reproduce --jobs 2`` at paper length
(every study, 237 runs): each line names a run and the seconds it took. This script builds the
same runs' tasks as ``vsim reproduce`` does, with their cost (``vsim.sweep.executor.run_cost``),
and replays them one after the other through the progress of ``run_tasks`` on a clock that
advances by each run's recorded seconds, so the estimate after each run (the finished runs'
seconds per unit of cost, times the cost left) can be set against the seconds the runs left
then took. Reported: the worst ratio of estimate to truth, either way, from the first tenth of
the work (by recorded time) on, where more than 30 s remain. Target: within a factor of 1.5.
Exits 0 on pass, 1 on a miss, 2 when the log does not match the studies' runs.

Run: ``python benchmarks/bench_time_left.py [--log benchmarks/data/reproduce_progress.log]``
"""

import argparse
import json
import re
import sys
from collections import defaultdict, deque
from pathlib import Path
from unittest.mock import patch

ROOT = Path(__file__).resolve().parents[1]
LOG = ROOT / "benchmarks" / "data" / "reproduce_progress.log"
LINE = re.compile(r"^\[\d+/\d+\] (?P<label>.+?)  (?P<seconds>[0-9.]+) s  \(")
FACTOR = 1.5


def recorded_seconds(path):
    """{run label: deque of seconds, in the order the log has them}."""
    seconds = defaultdict(deque)
    for line in path.read_text(encoding="utf-8").splitlines():
        match = LINE.match(line)
        if match:
            seconds[match["label"]].append(float(match["seconds"]))
    return seconds


def reproduce_tasks():
    """Every run ``vsim reproduce`` makes at paper length, as tasks with their cost."""
    from vsim.build.load import load_scenario
    from vsim.config.run_length import RunPlan
    from vsim.experiments.reproduce import REPO, recipe
    from vsim.experiments.registry import STUDIES
    from vsim.sweep.executor import sweep_tasks

    tasks = []
    for name in sorted(STUDIES):
        if getattr(recipe(name), "evaluate", None) is not None:
            continue  # a closed form: no runs
        for relative in recipe(name).CONFIGS.values():
            loaded = load_scenario(REPO / relative)
            length = RunPlan().resolve(loaded.scenario.run)
            tasks += sweep_tasks(REPO / relative, loaded, length.duration, length.warmup, length.replications)
    return tasks


def replay(tasks, seconds):
    """(estimate, truth) after each run, the runs one at a time on a clock of recorded seconds."""
    from vsim.sweep import executor

    walls = [seconds[task.label()].popleft() for task in tasks]
    wall_of = {id(task): wall for task, wall in zip(tasks, walls)}  # run_tasks hands over these tasks
    clock = [0.0]

    def runner(task):
        clock[0] += wall_of[id(task)]
        return None, wall_of[id(task)]

    lines = []
    with patch.object(executor.time, "perf_counter", lambda: clock[0]):
        executor.run_tasks(tasks, jobs=1, progress=lines.append, runner=runner)
    said = [_seconds(re.search(r"about (.*) left", line).group(1)) for line in lines[1:]]
    return [(estimate, sum(walls[done:]), sum(walls[:done])) for done, estimate in enumerate(said, start=1)], walls


def _seconds(text):
    minutes = re.match(r"(\d+) min (\d+) s", text)
    return int(minutes[1]) * 60 + int(minutes[2]) if minutes else int(text.removesuffix(" s"))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--log", type=Path, default=LOG, help="a reproduce progress log (default: the recorded one)")
    args = parser.parse_args(argv)
    seconds = recorded_seconds(args.log)
    tasks = reproduce_tasks()
    missing = [task.label() for task in tasks if not seconds.get(task.label())]
    if missing or sum(map(len, seconds.values())) != len(tasks):
        print(f"bench_time_left: {args.log}: its runs are not the studies' runs "
              f"({len(missing)} of {len(tasks)} missing, e.g. {missing[:1]})", file=sys.stderr)
        return 2
    rows, walls = replay(tasks, seconds)
    total = sum(walls)
    judged = [(estimate, truth) for estimate, truth, elapsed in rows if elapsed >= total / 10 and truth > 30]
    worst = max(max(estimate / truth, truth / max(estimate, 1e-9)) for estimate, truth in judged)
    print(json.dumps({"runs": len(tasks), "recorded_s": round(total, 1), "judged_lines": len(judged),
                      "worst_factor": round(worst, 3)}, indent=2))
    passed = worst <= FACTOR
    print(f"time left within a factor of {worst:.2f} of the truth from a tenth of the work on "
          f"({'pass' if passed else 'miss'}: target <= {FACTOR})")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
