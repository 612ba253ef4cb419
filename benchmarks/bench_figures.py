"""Wall time of reproducing the voip-vsphere5 study at paper length on two cores.

Times ``vsim reproduce voip-vsphere5 --jobs 2`` (Figures 2-4: every point 5
replications of 300 s, the paper's length; Fig 6 and Table 2: 5 of 600 s per
uplink) in a subprocess, writing its claims JSON and
figures into a temporary directory so the repository's ``figures/`` is left
alone. Target: at most 300 s of wall time. Exits 0 on pass, 1 on a miss or a
failed run, 2 when this ``vsim`` has no ``reproduce`` command.

Run: ``python benchmarks/bench_figures.py [--jobs 2] [--budget 300]``
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
STUDY = "voip-vsphere5"


def reproduce_available():
    """Whether ``vsim reproduce`` exists and takes ``--jobs``, ``--json`` and ``--figures``."""
    probe = subprocess.run(VSIM + ["reproduce", "--help"], cwd=ROOT, capture_output=True, text=True)
    return probe.returncode == 0 and all(flag in probe.stdout for flag in ("--jobs", "--json", "--figures"))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--budget", type=float, default=300.0, help="wall-time target in seconds")
    args = parser.parse_args(argv)
    if not reproduce_available():
        print("bench_figures: `vsim reproduce` is not available in this checkout; nothing timed")
        return 2
    with tempfile.TemporaryDirectory(prefix="vsim-bench-figures-") as tmp:
        claims = Path(tmp) / "claims.json"
        command = VSIM + ["reproduce", STUDY, "--jobs", str(args.jobs), "--quiet",
                          "--json", str(claims), "--figures", str(Path(tmp) / "figures")]
        start = time.perf_counter()
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        wall = time.perf_counter() - start
        written = claims.is_file() and bool(json.loads(claims.read_text()))
    print(json.dumps({
        "command": " ".join(["vsim"] + command[len(VSIM):]),
        "jobs": args.jobs,
        "exit_code": done.returncode,
        "claims_json_written": written,
        "wall_s": round(wall, 1),
        "budget_s": args.budget,
    }, indent=2))
    if done.returncode != 0 or not written:
        print(done.stderr[-4000:], file=sys.stderr)
        print("FAIL: the reproduce run did not complete")
        return 1
    passed = wall <= args.budget
    print(f"voip-vsphere5 (Figures 2-4, Fig 6, Table 2) at paper length in {wall:.0f} s with --jobs {args.jobs} "
          f"(target <= {args.budget:g} s): {'PASS' if passed else 'FAIL'}")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
