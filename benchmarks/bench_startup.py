"""Start-up of the ``vsim`` command: ``--version`` and each command's ``--help``.

Each command line is run ``--repeat`` times as its own process (``python -m vsim ...`` with
this interpreter), its output thrown away; reported per command line: the median wall time and
the median CPU time of the process (user + system, from ``getrusage`` of the finished child,
which other load on the machine does not inflate), and the same for ``python -c pass``, the
interpreter's own floor. Target: every median wall time at most ``--budget`` seconds (0.3).
Exits 0 on pass, 1 on a miss or a command that failed, 2 on unusable arguments.

Run: ``python benchmarks/bench_startup.py [--repeat 5] [--budget 0.3]``
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = ("run", "reproduce", "sweep", "capacity", "cluster", "describe", "jitter", "validate",
            "probe")
LINES = (("--version",),) + tuple((command, "--help") for command in COMMANDS)


def time_process(argv):
    """(wall s, CPU s, exit status) of one run of ``argv`` as its own process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.returncode


def measure(argv, repeat):
    """The medians of ``repeat`` runs of ``argv`` and whether every run exited 0."""
    runs = [time_process(argv) for _ in range(repeat)]
    return {"wall_s": round(statistics.median(run[0] for run in runs), 4),
            "cpu_s": round(statistics.median(run[1] for run in runs), 4),
            "ok": all(run[2] == 0 for run in runs)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs of each command line")
    parser.add_argument("--budget", type=float, default=0.3, help="median wall-time target, s")
    args = parser.parse_args(argv)
    if args.repeat < 1 or not args.budget > 0:
        print("bench_startup: --repeat must be at least 1 and --budget above 0", file=sys.stderr)
        return 2
    floor = measure([sys.executable, "-c", "pass"], args.repeat)
    lines = {" ".join(line): measure([sys.executable, "-m", "vsim", *line], args.repeat)
             for line in LINES}
    print(json.dumps({"python": sys.executable, "repeat": args.repeat, "budget_s": args.budget,
                      "pure_python": bool(os.environ.get("VSIM_PURE_PYTHON")),
                      "python -c pass": floor, "vsim": lines}, indent=2))
    passed = True
    for line, result in lines.items():
        good = result["ok"] and result["wall_s"] <= args.budget
        passed &= good
        what = f"{result['wall_s']:.3f} s wall, {result['cpu_s']:.3f} s CPU"
        print(f"{'PASS' if good else 'FAIL'}: vsim {line} {what}"
              + ("" if result["ok"] else " (exit status not 0)"))
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
