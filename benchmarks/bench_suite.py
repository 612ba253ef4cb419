"""The default test suite's wall time, on the workers it uses by default and on one process.

Runs ``python -m pytest`` (the README's second command without the install: as many workers as
``-n auto`` gives, the probes' tests on one of them) and then ``python -m pytest -n 0`` (one
process), each as its own process from the repository root, its output thrown away; reports each
wall time, their ratio, and whether both passed. Target: the default run within ``--budget``
seconds (300).
Exits 0 on pass, 1 on a miss or a failed run, 2 on unusable arguments.

Run: ``python benchmarks/bench_suite.py [--budget 300] [--default-only]``
"""

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def time_suite(extra):
    """(wall s, passed) of one run of the suite with the extra pytest arguments ``extra``."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *extra], cwd=ROOT,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return round(time.perf_counter() - start, 1), done.returncode == 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", type=float, default=300.0, help="wall-time target of the default run, s")
    parser.add_argument("--default-only", action="store_true", help="skip the one-process run")
    args = parser.parse_args(argv)
    if not args.budget > 0:
        print("bench_suite: --budget must be above 0", file=sys.stderr)
        return 2
    default_s, default_ok = time_suite([])
    result = {"budget_s": args.budget, "default": {"wall_s": default_s, "passed": default_ok}}
    serial_ok = True
    if not args.default_only:
        serial_s, serial_ok = time_suite(["-n", "0"])
        result["one_process"] = {"wall_s": serial_s, "passed": serial_ok}
        result["ratio_default_to_one_process"] = round(default_s / serial_s, 3)
    print(json.dumps(result, indent=2))
    good = default_ok and serial_ok and default_s <= args.budget
    print(f"{'PASS' if good else 'FAIL'}: the default suite {default_s:.0f} s wall"
          + ("" if default_ok else " (failed)")
          + (f", {result['ratio_default_to_one_process']:.2f} of one process's {serial_s:.0f} s"
             if not args.default_only else ""))
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
