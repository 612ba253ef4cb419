"""Wall time of netioc-vsphere6 Experiment 3 (1 to 100 VMs, default scheduler and NetIOC).

Runs ``vsim sweep`` on ``configs/netioc-vsphere6/exp3_default.toml`` and
``exp3_netioc.toml`` at their own length (27 VM counts each, up to 100 VMs
of TCP streams) with ``--jobs``, one after the other in subprocesses,
writing into a temporary directory, and reports the wall time of the two
together. Target: at most 120 s with ``--jobs 2``. Exits 0 on pass, 1 on a
miss or a failed run.

Run: ``python benchmarks/bench_exp3.py [--jobs 2] [--budget 120]``
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VSIM = [sys.executable, "-m", "vsim"]
CONFIGS = ("configs/netioc-vsphere6/exp3_default.toml", "configs/netioc-vsphere6/exp3_netioc.toml")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--budget", type=float, default=120.0, help="wall-time target in seconds")
    args = parser.parse_args(argv)
    walls, failed = {}, []
    with tempfile.TemporaryDirectory(prefix="vsim-bench-exp3-") as tmp:
        for config in CONFIGS:
            out = Path(tmp) / (Path(config).stem + ".json")
            command = VSIM + ["sweep", config, "--jobs", str(args.jobs), "--quiet", "--json", str(out)]
            start = time.perf_counter()
            done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
            walls[config] = round(time.perf_counter() - start, 1)
            if done.returncode != 0 or not out.is_file():
                failed.append(config)
                print(done.stderr[-4000:], file=sys.stderr)
    total = sum(walls.values())
    print(json.dumps({"jobs": args.jobs, "wall_s": walls, "total_wall_s": round(total, 1),
                      "budget_s": args.budget, "failed": failed}, indent=2))
    if failed:
        print("FAIL: a sweep did not complete")
        return 1
    passed = total <= args.budget
    print(f"Experiment 3 (2 x 27 points, 1-100 VMs) in {total:.0f} s with --jobs {args.jobs} "
          f"({'within' if passed else 'over'} the {args.budget:g} s target)")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
