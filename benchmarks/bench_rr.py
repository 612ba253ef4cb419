"""Speed of request/response traffic: netioc-vsphere6 Fig 6's twelve netperf TCP_RR VMs.

One replication of ``configs/netioc-vsphere6/fig6.toml`` (or ``--config``, a
scenario with one request/response group, e.g.
``configs/whatif/netperf_beside_voice.toml``: netperf VMs beside a media
server; ``--set KEY=VALUE`` changes one of its keys as ``vsim run --set`` does) for
``--duration`` simulated seconds (default 2) for each uplink
(``multiqueue``, the default scheduler, and ``netioc``), pinned to one logical CPU, timed by
the process's CPU time (the machine's other load stretches wall time, not
CPU time; wall time is printed too) and reported as CPU seconds per
simulated second, with the scenario's mean one-way latency and
transactions/s. Each run is repeated ``--repeat`` times and the fastest
kept. With ``--before REV`` the same runs are made, interleaved, with the
code of git revision ``REV`` (extracted with ``git archive`` into a
temporary directory and run in a child process on the same CPU, on this
tree's scenario), and the ratio of the two costs is printed.

Targets: every uplink at most ``MAX_CPU_PER_S`` CPU seconds per simulated
second; with ``--before`` on the Fig 6 scenario, NetIOC at least
``MIN_SPEEDUP`` times cheaper than ``REV`` (on another scenario the ratio is
reported, not judged). Exits 1 when a target is missed, 2 when ``REV`` cannot be extracted.

Run: ``python benchmarks/bench_rr.py [--config PATH] [--set KEY=VALUE]... [--duration 2] [--uplinks netioc] [--before REV]``
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
CONFIG = Path("configs") / "netioc-vsphere6" / "fig6.toml"
MAX_CPU_PER_S = 0.6
MIN_SPEEDUP = 10.0
SPEEDUP_UPLINKS = ("netioc",)
"""Uplinks the speed-up target applies to (the default scheduler's closed loops were cheap)."""


def pin_to_one_cpu():
    """Restrict this process (and its children) to one logical CPU; return its number."""
    cpu = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})
    return cpu


def measure(config, overrides, uplink, seed, duration):
    """CPU and wall seconds of one replication of scenario ``config`` with ``overrides``
    (``KEY=VALUE`` strings; the code imported is whatever ``vsim`` this process imports), with
    its request/response group's results."""
    from vsim.build.load import load_scenario
    from vsim.engines.simulation import simulate

    loaded = load_scenario(Path(config), overrides).with_value("host.uplink", uplink)
    start, start_cpu = time.perf_counter(), time.process_time()
    summary = simulate(loaded, seed, duration=duration)
    wall, cpu = time.perf_counter() - start, time.process_time() - start_cpu
    # as JSON data: the code imported may be an earlier revision (--before), whose summary was a dict
    plain = summary.to_json() if hasattr(summary, "to_json") else summary
    (rr,) = plain["uplink"]["request_response"].values()
    return {"uplink": uplink, "cpu_s": cpu, "wall_s": wall,
            "cpu_s_per_simulated_s": cpu / duration,
            "one_way_latency_mean_us": rr["one_way_latency_mean_us"],
            "transactions_per_s": rr["transactions_per_s"]}


def measure_before(tree, config, overrides, uplink, seed, duration):
    """``measure`` in a child process importing the code of ``tree`` (an extracted revision)."""
    sets = [arg for override in overrides for arg in ("--set", override)]
    out = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--child", "--uplinks", uplink,
         "--seed", str(seed), "--duration", str(duration), "--config", str(config), *sets],
        cwd=tree, env={**os.environ, "PYTHONPATH": str(tree)}, check=True,
        capture_output=True, text=True).stdout
    return json.loads(out)


def extract(rev, into):
    """The tree of git revision ``rev`` of this repository, written under ``into``."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return Path(into)


def fastest(runs):
    """The run of least CPU time."""
    return min(runs, key=lambda run: run["cpu_s"])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", type=Path, default=CONFIG,
                        help="scenario with one request/response group (default: %(default)s)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="change a key of the scenario, as vsim run --set does")
    parser.add_argument("--duration", type=float, default=2.0, help="simulated seconds")
    parser.add_argument("--uplinks", nargs="+", default=["multiqueue", "netioc"])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=2, help="runs per uplink; the fastest kept")
    parser.add_argument("--before", metavar="REV", help="git revision to compare with")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    config = (ROOT / args.config).resolve()
    if args.child:
        print(json.dumps(measure(config, args.set, args.uplinks[0], args.seed, args.duration)))
        return 0
    cpu = pin_to_one_cpu()
    import vsim
    with tempfile.TemporaryDirectory() as scratch:
        tree = None
        if args.before:
            try:
                tree = extract(args.before, scratch)
            except subprocess.CalledProcessError as error:
                print(f"cannot extract revision {args.before!r}: {error}", file=sys.stderr)
                return 2
        results = []
        for uplink in args.uplinks:
            after, before = [], []
            for _ in range(args.repeat):
                after.append(measure(config, args.set, uplink, args.seed, args.duration))
                if tree is not None:
                    before.append(measure_before(tree, config, args.set, uplink, args.seed,
                                                 args.duration))
            result = {"uplink": uplink, "after": fastest(after)}
            if before:
                result["before"] = fastest(before)
                result["speedup_cpu"] = result["before"]["cpu_s"] / result["after"]["cpu_s"]
            results.append(result)
    print(json.dumps({"config": str(args.config), "set": args.set, "duration": args.duration,
                      "seed": args.seed,
                      "repeat": args.repeat, "before": args.before, "pinned_cpu": cpu,
                      "vsim": vsim.__version__, "results": results}, indent=2))
    ok = True
    for result in results:
        cost = result["after"]["cpu_s_per_simulated_s"]
        passed = cost <= MAX_CPU_PER_S
        ok &= passed
        print(f"{'PASS' if passed else 'FAIL'} {result['uplink']} {cost:.3f} CPU s per simulated "
              f"s <= {MAX_CPU_PER_S:g}")
        if "speedup_cpu" in result and result["uplink"] in SPEEDUP_UPLINKS and args.config == CONFIG:
            passed = result["speedup_cpu"] >= MIN_SPEEDUP
            ok &= passed
            print(f"{'PASS' if passed else 'FAIL'} {result['uplink']} {result['speedup_cpu']:.1f}x "
                  f"cheaper than {args.before} >= {MIN_SPEEDUP:g}x")
        elif "speedup_cpu" in result:
            print(f"INFO {result['uplink']} {result['speedup_cpu']:.2f}x cheaper than {args.before}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
