"""Peak memory of short runs against ``vsim.build.memory``'s estimate.

Each run is one replication of ``configs/voip-vsphere5/fig3.toml`` with some
VMs, vCPUs per VM, streams and duration, in a fresh Python process, whose
peak resident set (interpreter and libraries included) is
compared with the estimate the command line checks before simulating. The
peak is the child's ``VmHWM``, the high-water mark of its own address space
(``getrusage``'s ``ru_maxrss`` counts the parent's size at the fork too). The
grid spans what the estimator's coefficients were measured on: VMs (1..400),
vCPUs per VM (1..8), streams (30, 120), duration (1..300 s) and both engines.
Prints one JSON line per run and exits 1 if any run needed more than its
estimate (the estimate must be an upper bound).

Run: ``python benchmarks/bench_memory.py [--short]`` (``--short``: the few
cheapest runs of the grid, a few seconds in all)
"""

import argparse
import json
import subprocess
import sys
from pathlib import Path

from vsim.build.load import load_scenario
from vsim.build.memory import MIB, estimate_bytes

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "configs" / "voip-vsphere5" / "fig3.toml"

# (instances, vcpus, streams per VM, duration in s)
GRID = [(1, 4, 120, 300.0), (1, 4, 120, 40.0), (12, 4, 120, 10.0), (12, 4, 120, 60.0), (12, 4, 30, 10.0),
        (100, 4, 120, 1.0), (100, 4, 120, 8.0), (100, 1, 120, 2.0), (100, 8, 120, 2.0), (400, 4, 120, 1.0)]
SHORT = [(1, 4, 120, 40.0), (12, 4, 120, 10.0), (60, 2, 120, 1.0)]

# The child reads its peak from VmHWM (/proc/self/status), the high-water mark of its own address
# space: getrusage's ru_maxrss would also count the parent's size at fork (Linux keeps it across exec).
CHILD = """
import sys
from vsim.build.load import load_scenario
from vsim.engines.simulation import simulate
loaded = load_scenario(sys.argv[1], sys.argv[3:])
simulate(loaded, 1, duration=float(sys.argv[2]))
hwm = next(line for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(int(hwm.split()[1]) * 1024)
"""


def overrides(instances, vcpus, streams):
    return [f"vm.instances={instances}", f"vm.vcpus={vcpus}", f"vm.streams_per_instance={streams}"]


def measure(instances, vcpus, streams, duration, config=CONFIG):
    """(peak RSS in bytes of a fresh process running it, the estimate in bytes) of one replication."""
    options = overrides(instances, vcpus, streams)
    out = subprocess.run([sys.executable, "-c", CHILD, str(config), str(duration), *options],
                         capture_output=True, text=True, check=True).stdout
    estimate = estimate_bytes(load_scenario(config, options), duration)
    return int(out.split()[-1]), estimate


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--short", action="store_true", help="only the cheapest runs")
    args = parser.parse_args(argv)
    missed = 0
    for instances, vcpus, streams, duration in SHORT if args.short else GRID:
        peak, estimate = measure(instances, vcpus, streams, duration)
        missed += peak > estimate
        print(json.dumps({"instances": instances, "vcpus": vcpus, "streams": streams,
                          "duration": duration, "peak_mib": round(peak / MIB, 1),
                          "estimate_mib": round(estimate / MIB, 1), "upper_bound": peak <= estimate}))
    print(f"{'PASS' if not missed else 'FAIL'}: the estimate bounds {'every' if not missed else 'not every'} "
          f"run's peak memory")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
