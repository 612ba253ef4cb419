"""Throughput of the executors on an over-commit grid, against the sum of its single runs.

Builds a grid of ``configs/whatif/overcommit.toml`` points (its ``vm.instances`` values in turn, one
replication each, ``--duration`` simulated seconds), runs every task once serially to learn
each single run's time, then the same tasks with two local processes (``--jobs 2``) and on a
local Dask cluster of two workers, and reports each executor's throughput as the share of two
idle cores it used: (sum of the single runs' times) / (2 x its wall time). It also times
writing every summary into a store (``--store``), as a share of the single runs' time.
Targets: throughput >= 0.90 of two cores; store overhead < 2 %. Exits 0 on pass, 1 on a miss.
The serial pass runs on one core while the other is idle, so on a busy machine the ratios
read low; quote them measured in one run on an idle one.

Run: ``python benchmarks/bench_executors.py [--points 200] [--duration 20]``
"""

import argparse
import json
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "configs" / "whatif" / "overcommit.toml"


def grid_tasks(points, duration):
    """``points`` tasks of the over-commit what-if: its instance counts in turn, each with a seed
    of its own; and the loaded scenario."""
    from vsim.build.load import load_scenario
    from vsim.sweep.executor import sweep_tasks

    loaded = load_scenario(CONFIG)
    tasks = sweep_tasks(CONFIG, loaded, duration, min(2.0, duration / 4), 1)
    return [replace(tasks[i % len(tasks)], seed=tasks[0].seed + i) for i in range(points)], loaded


def timed(executor, tasks):
    """Wall seconds for ``executor`` to run ``tasks``, and each task's own seconds."""
    from vsim.sweep.executor import run_task

    start = time.perf_counter()
    seconds = {index: outcome[1] for index, outcome in executor.outcomes(run_task, tasks)}
    return time.perf_counter() - start, seconds


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--points", type=int, default=200, help="grid points (default 200)")
    parser.add_argument("--duration", type=float, default=20.0, help="simulated s per run (default 20, --quick)")
    args = parser.parse_args(argv)
    if args.points < 2 or args.duration <= 0:
        print("bench_executors: --points must be at least 2 and --duration above 0", file=sys.stderr)
        return 2
    from vsim.sweep.dask_executor import DaskDistributed
    from vsim.sweep.executor import LocalProcesses, Serial, run_task
    from vsim.sweep.store import Store, sweep_keys

    tasks, loaded = grid_tasks(args.points, args.duration)
    serial_wall, singles = timed(Serial(), tasks)
    single_sum = sum(singles.values())
    walls = {"local processes, 2": timed(LocalProcesses(2), tasks)[0],
             "Dask LocalCluster, 2 workers": timed(DaskDistributed(workers=2), tasks)[0]}
    with tempfile.TemporaryDirectory(prefix="vsim-bench-store-") as folder:
        store, keys = Store(folder, lambda line: None), sweep_keys(loaded, tasks)
        summaries = [run_task(task)[0] for task in tasks[:min(len(tasks), 8)]]
        start = time.perf_counter()
        for index, task in enumerate(tasks):
            store.write(keys[index], task, summaries[index % len(summaries)])
        store_s = time.perf_counter() - start
    throughput = {name: single_sum / (2 * wall) for name, wall in walls.items()}
    store_share = store_s / single_sum
    print(json.dumps({"points": args.points, "duration_s": args.duration, "serial_wall_s": round(serial_wall, 2),
                      "single_runs_sum_s": round(single_sum, 2),
                      "wall_s": {name: round(wall, 2) for name, wall in walls.items()},
                      "throughput_of_two_cores": {name: round(share, 3) for name, share in throughput.items()},
                      "store_overhead": round(store_share, 4)}, indent=2))
    passed = min(throughput.values()) >= 0.90 and store_share < 0.02
    for name, share in throughput.items():
        print(f"{name}: {share:.0%} of two idle cores")
    print(f"store: {store_share:.2%} of the run time ({'pass' if passed else 'miss'}: targets >= 90 %, < 2 %)")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
