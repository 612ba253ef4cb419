"""Speed of the voip-vsphere5 Fig 6 scenario: 120 voice streams beside a 390 K packets/s flood.

One replication of ``configs/voip-vsphere5/fig6.toml`` for ``--duration``
simulated seconds (default 600, the study's length, the flood running the
second half), for each uplink (``fifo``: without NetIOC; ``netioc``), pinned
to one logical CPU. The flood is a fluid, so its cost is the voice frames
meeting a full queue, not its packets. To isolate that cost, each uplink is
also run with the flood cut to the last 1 % of the run; the flood's
real-time factor is the extra flood time over the extra wall time. Reported
per uplink: wall and CPU time of both runs, the whole run's and the flood's
real-time factors, and the voice loss while the flood runs. Targets: the
flood at least 30 times faster than real time, and the whole run (voice
alone, then beside the flood) at least 100 times, both judged on the
process's CPU time (the machine's other load stretches wall time but not
CPU time; the wall-time factors are printed too). Exits 1 when a target is
missed. (The run as a whole process, imports included, is timed from outside:
``vsim run configs/voip-vsphere5/fig6.toml --json /dev/null``.)

Run: ``python benchmarks/bench_fig6.py [--duration 120] [--uplinks fifo]``
"""

import argparse
import json
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

import vsim
from vsim.build.load import load_scenario
from vsim.engines.simulation import simulate

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "configs" / "voip-vsphere5" / "fig6.toml"
MIN_SPEED = 30.0
MIN_RUN_SPEED = 100.0
QUIET_FROM = 0.99
"""Fraction of the run after which the flood starts in the comparison run."""


def pin_to_one_cpu():
    """Restrict this process to one logical CPU; return its number."""
    cpu = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})
    return cpu


def flood_from(loaded, fraction):
    """``loaded`` with every traffic group starting at ``fraction`` of the run."""
    groups = tuple(replace(group, traffic=replace(group.traffic, active_from=fraction))
                   if group.traffic is not None else group for group in loaded.scenario.group)
    return replace(loaded, scenario=replace(loaded.scenario, group=groups))


def timed(loaded, seed, duration):
    """(summary, wall seconds, CPU seconds) of one replication."""
    start, start_cpu = time.perf_counter(), time.process_time()
    summary = simulate(loaded, seed, duration=duration)
    return summary, time.perf_counter() - start, time.process_time() - start_cpu


def factor(simulated, spent):
    """Simulated seconds per second spent; None when the difference of two timings is not
    positive (other load on the machine outweighed it)."""
    return simulated / spent if spent > 0 else None


def measure(uplink, seed, duration):
    """Timings and loss of one uplink, with the flood as configured and nearly without it."""
    loaded = load_scenario(CONFIG).with_value("host.uplink", uplink)
    active = loaded.scenario.group[0].traffic
    summary, wall, cpu = timed(loaded, seed, duration)
    _, quiet_wall, quiet_cpu = timed(flood_from(loaded, QUIET_FROM), seed, duration)
    flood_seconds = (QUIET_FROM - active.active_from) * duration
    during = summary.uplink.during_traffic
    return {
        "uplink": uplink,
        "wall_s": wall, "cpu_s": cpu,
        "quiet_wall_s": quiet_wall, "quiet_cpu_s": quiet_cpu,
        "run_realtime_factor_wall": duration / wall,
        "run_realtime_factor_cpu": duration / cpu,
        "flood_realtime_factor_wall": factor(flood_seconds, wall - quiet_wall),
        "flood_realtime_factor_cpu": factor(flood_seconds, cpu - quiet_cpu),
        "voice_loss_pps": during.voice_loss_pps,
        "voice_loss_fraction": during.voice_loss_fraction,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=600.0, help="simulated seconds")
    parser.add_argument("--uplinks", nargs="+", default=["fifo", "netioc"])
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    cpu = pin_to_one_cpu()
    results = [measure(uplink, args.seed, args.duration) for uplink in args.uplinks]
    print(json.dumps({"config": str(CONFIG.relative_to(ROOT)), "duration": args.duration,
                      "seed": args.seed, "pinned_cpu": cpu, "vsim": vsim.__version__,
                      "results": results}, indent=2))
    ok = True
    for result in results:
        speed = result["flood_realtime_factor_cpu"]
        passed = speed is not None and speed >= MIN_SPEED
        ok &= passed
        shown = "unmeasurable" if speed is None else f"{speed:.1f}"
        print(f"{'PASS' if passed else 'FAIL'} {result['uplink']} flood real-time factor (CPU) "
              f"{shown} >= {MIN_SPEED:g}")
        run_speed = result["run_realtime_factor_cpu"]
        ok &= run_speed >= MIN_RUN_SPEED
        print(f"{'PASS' if run_speed >= MIN_RUN_SPEED else 'FAIL'} {result['uplink']} whole run's "
              f"real-time factor (CPU) {run_speed:.1f} >= {MIN_RUN_SPEED:g}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
