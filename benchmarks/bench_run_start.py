"""What a short run costs as a whole process, beside the same run with ``scipy.signal`` loaded.

Every replication is its own process (``vsim run`` directly, or each worker of a pool), so the
imports are paid once per replication: a run of ``configs/voip-vsphere5/fig3.toml`` at
``--instances`` (12) for ``--duration`` (10) simulated seconds is timed ``--repeat`` times as
``python -m vsim run ...``, interleaved with the same command after ``import scipy.signal``
(what each run process paid while the jitter filters used ``lfilter``). Reported: the median
wall and CPU time (user + system of the finished child) of each, the median of
the paired ratios, and whether the run itself loaded scipy. Target: the run loads no scipy.
Exits 0 on pass, 1 on a miss or a failed run, 2 on unusable arguments.

Run: ``python benchmarks/bench_run_start.py [--repeat 5] [--duration 10] [--instances 12]``
"""

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "configs" / "voip-vsphere5" / "fig3.toml"
# Runs vsim's command line as ``python -m vsim`` does, then says whether scipy was loaded.
LAUNCH = ("import atexit, runpy, sys\n{preload}"
          "atexit.register(lambda: sys.stderr.write('scipy loaded: %s\\n' % ('scipy' in sys.modules)))\n"
          "sys.argv = ['vsim'] + sys.argv[1:]\n"
          "runpy.run_module('vsim', run_name='__main__', alter_sys=True)\n")


def time_process(argv):
    """(wall s, CPU s, exit status, stderr) of one run of ``argv``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.returncode, done.stderr


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs of each command")
    parser.add_argument("--duration", type=float, default=10.0, help="simulated seconds")
    parser.add_argument("--instances", type=int, default=12)
    args = parser.parse_args(argv)
    if args.repeat < 1 or not args.duration > 0 or args.instances < 1:
        print("bench_run_start: --repeat and --instances must be at least 1, --duration above 0",
              file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        command = ["run", str(CONFIG), "--set", f"vm.instances={args.instances}",
                   "--duration", str(args.duration), "--json", str(Path(tmp) / "run.json")]
        lines = {"run": LAUNCH.format(preload=""),
                 "run after import scipy.signal": LAUNCH.format(preload="import scipy.signal\n")}
        runs = {name: [] for name in lines}
        for _ in range(args.repeat):
            for name, code in lines.items():
                runs[name].append(time_process([sys.executable, "-c", code, *command]))
    report = {name: {"wall_s": round(statistics.median(r[0] for r in rs), 4),
                     "cpu_s": round(statistics.median(r[1] for r in rs), 4),
                     "ok": all(r[2] == 0 for r in rs),
                     "scipy_loaded": any("scipy loaded: True" in r[3] for r in rs)}
              for name, rs in runs.items()}
    pairs = zip(runs["run"], runs["run after import scipy.signal"])
    ratios = [a[0] / b[0] for a, b in pairs]
    report["wall ratio run / with scipy.signal"] = round(statistics.median(ratios), 4)
    print(json.dumps({"python": sys.executable, "repeat": args.repeat,
                      "duration_s": args.duration, "instances": args.instances, **report},
                     indent=2))
    good = report["run"]["ok"] and report["run after import scipy.signal"]["ok"] \
        and not report["run"]["scipy_loaded"]
    print(f"{'PASS' if good else 'FAIL'}: the run loads no scipy; "
          f"{report['run']['wall_s']:.3f} s wall against {report['run after import scipy.signal']['wall_s']:.3f} s "
          f"with scipy.signal (ratio {report['wall ratio run / with scipy.signal']:.3f})")
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
