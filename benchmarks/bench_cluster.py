"""Wall time of netioc-vsphere6 Fig 2's whole time series across both hosts, on one core.

Two measurements, the process pinned to one logical CPU (its children too):

- ``vsim cluster configs/netioc-vsphere6/fig2.toml --json FILE --out DIR`` as its own process:
  start-up and imports, loading the cluster and its models, the 1200 s run (two hosts, three
  VMs, two faults, two vMotions), the report, the JSON and the figure;
- in this process, every replication of the same file as ``vsim reproduce netioc-vsphere6``
  runs it (``run.replications``, each drawing DRS's phase), loading included.

Each is the fastest of ``--repeat`` runs. Target: the command at most 30 s wall. Exits 0 on
pass, 1 on a miss or a failed run.

Run: ``python benchmarks/bench_cluster.py [--repeat 3] [--budget 30]``
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONFIG = "configs/netioc-vsphere6/fig2.toml"
VSIM = [sys.executable, "-m", "vsim"]


def pin_to_one_cpu():
    """Restrict this process (and what it starts) to one logical CPU; return its number."""
    cpu = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})
    return cpu


def time_command(repeat):
    """The fastest wall time of ``vsim cluster`` on the Fig 2 file, and whether every run worked."""
    walls, ok = [], True
    for _ in range(repeat):
        with tempfile.TemporaryDirectory(prefix="vsim-bench-cluster-") as tmp:
            command = VSIM + ["cluster", CONFIG, "--json", str(Path(tmp) / "fig2.json"),
                              "--out", str(Path(tmp) / "out")]
            start = time.perf_counter()
            done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
            walls.append(time.perf_counter() - start)
            if done.returncode != 0 or not (Path(tmp) / "out" / "fig2.png").is_file():
                ok = False
                print(done.stderr[-4000:], file=sys.stderr)
    return min(walls), ok


def time_replications(repeat):
    """The fastest wall time of every replication of the Fig 2 file, and how many there are."""
    from vsim.cluster.replications import run_cluster_sweep
    walls, runs = [], 0
    for _ in range(repeat):
        start = time.perf_counter()
        sweep = run_cluster_sweep("fig2", CONFIG, ROOT, "netioc-vsphere6")
        walls.append(time.perf_counter() - start)
        runs = len(sweep.runs)
    return min(walls), runs


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--budget", type=float, default=30.0, help="wall-time target of the command, s")
    args = parser.parse_args(argv)
    cpu = pin_to_one_cpu()
    command_s, ok = time_command(args.repeat)
    replications_s, runs = time_replications(args.repeat)
    passed = ok and command_s <= args.budget
    print(json.dumps({"config": CONFIG, "pinned_cpu": cpu, "repeat": args.repeat,
                      "command_wall_s": round(command_s, 3), "replications": runs,
                      "replications_wall_s": round(replications_s, 3), "budget_s": args.budget,
                      "failed": not ok}, indent=2))
    if not ok:
        print("FAIL: vsim cluster did not complete")
        return 1
    print(f"Fig 2 across both hosts (1200 s) in {command_s:.2f} s wall on one core, the command "
          f"whole ({'within' if passed else 'over'} the {args.budget:g} s target); its {runs} "
          f"replications in {replications_s:.2f} s")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
