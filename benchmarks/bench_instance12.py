"""Speed and memory of the heaviest point of Figures 3 and 4, on one core.

One replication of ``configs/voip-vsphere5/fig3.toml`` at 12 instances
(1440 load streams, 48 vCPUs on 16 logical CPUs) for ``--duration``
simulated seconds (default 300, the paper's length). The process is pinned
to one logical CPU, so the wall time is what one core achieves. Reported:
simulated seconds per wall second (target: at least 20; the same per CPU
second of this process is printed too, which other load on the machine does
not inflate) and the peak resident
set size of the whole process, interpreter and libraries included, from
``getrusage`` (target: at most 1024 MiB). Exits 1 when a target is missed.

Run: ``python benchmarks/bench_instance12.py [--duration 60]``
"""

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

import vsim
from vsim.build.load import load_scenario
from vsim.engines.simulation import simulate

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "configs" / "voip-vsphere5" / "fig3.toml"
MIN_SPEED = 20.0
MAX_PEAK_MIB = 1024.0


def pin_to_one_cpu():
    """Restrict this process to one logical CPU; return its number."""
    cpu = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})
    return cpu


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=300.0, help="simulated seconds")
    parser.add_argument("--instances", type=int, default=12)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    cpu = pin_to_one_cpu()
    loaded = load_scenario(CONFIG, [f"vm.instances={args.instances}"])
    start, start_cpu = time.perf_counter(), time.process_time()
    summary = simulate(loaded, args.seed, duration=args.duration)
    wall, cpu_time = time.perf_counter() - start, time.process_time() - start_cpu
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    speed = args.duration / wall
    ok_speed, ok_memory = speed >= MIN_SPEED, peak_mib <= MAX_PEAK_MIB
    print(json.dumps({
        "config": str(CONFIG.relative_to(ROOT)),
        "instances": args.instances,
        "streams": args.instances * loaded.scenario.vm.streams_per_instance,
        "seed": args.seed,
        "pinned_cpu": cpu,
        "scheduler": vsim.SCHEDULER_BUILD,
        "simulated_s": args.duration,
        "wall_s": round(wall, 3),
        "sim_per_wall": round(speed, 2),
        "cpu_s": round(cpu_time, 3),
        "sim_per_cpu_s": round(args.duration / cpu_time, 2),
        "peak_rss_mib": round(peak_mib, 1),
        "host_cpu_util_pct": round(summary.host.cpu_util_pct, 2),
        "mean_jitter_ms": summary.jitter.mean_ms,
    }, indent=2))
    print(f"speed {speed:.1f}x real time (target >= {MIN_SPEED:g}x): {'PASS' if ok_speed else 'FAIL'}")
    print(f"peak memory {peak_mib:.0f} MiB (target <= {MAX_PEAK_MIB:g} MiB): "
          f"{'PASS' if ok_memory else 'FAIL'}")
    return 0 if ok_speed and ok_memory else 1


if __name__ == "__main__":
    sys.exit(main())
