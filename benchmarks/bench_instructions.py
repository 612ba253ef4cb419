"""Interpreter instructions per simulated second at 12 instances, under valgrind.

Wall-clock speed on a shared machine wanders by a third from run to run; the
number of instructions a run executes does not. This runs one replication of
``configs/voip-vsphere5/fig3.toml`` at ``--instances`` for a short and a long
duration under ``valgrind --tool=cachegrind`` and reports the difference per
simulated second, so start-up, imports and the summary cancel out. Use it to
compare two versions of the code; ``bench_instance12.py`` measures the speed
target itself.

Run: ``python benchmarks/bench_instructions.py [--short 2 --long 6]``
(about a minute; needs valgrind). Exits 2 when valgrind is missing.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "configs" / "voip-vsphere5" / "fig3.toml"
RUN_ONE = (
    "import sys\n"
    "from vsim.build.load import load_scenario\n"
    "from vsim.engines.simulation import simulate\n"
    "loaded = load_scenario(sys.argv[1], [f'vm.instances={sys.argv[2]}'])\n"
    "simulate(loaded, 1, duration=float(sys.argv[3]))\n"
)
# numpy's BLAS threads would spin under valgrind's serialised threads and make the count wander
QUIET_ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
             "PYTHONHASHSEED": "0"}


def instructions(duration, instances):
    """Instructions executed by a whole process that simulates ``duration`` seconds."""
    result = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
         sys.executable, "-c", RUN_ONE, str(CONFIG), str(instances), str(duration)],
        capture_output=True, text=True, env={**os.environ, **QUIET_ENV}, check=True)
    match = re.search(r"I\s+refs:\s+([\d,]+)", result.stderr)
    if match is None:
        raise RuntimeError(f"no instruction count in valgrind's output:\n{result.stderr[-2000:]}")
    return int(match.group(1).replace(",", ""))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--short", type=float, default=2.0, help="simulated seconds, short run")
    parser.add_argument("--long", type=float, default=6.0, help="simulated seconds, long run")
    parser.add_argument("--instances", type=int, default=12)
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        print("bench_instructions: valgrind not found on PATH", file=sys.stderr)
        return 2
    if not args.long > args.short > 0:
        print("bench_instructions: expected --long > --short > 0", file=sys.stderr)
        return 2
    short, long = instructions(args.short, args.instances), instructions(args.long, args.instances)
    per_second = (long - short) / (args.long - args.short)
    print(json.dumps({
        "config": str(CONFIG.relative_to(ROOT)),
        "instances": args.instances,
        "short_s": args.short,
        "long_s": args.long,
        "instructions_short": short,
        "instructions_long": long,
        "million_instructions_per_simulated_s": round(per_second / 1e6, 1),
    }, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
