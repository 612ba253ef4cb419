"""Benchmark: ``vsim validate`` on a short variant (20 s x 2 replications), target <= 60 s wall.

Makes a measured stand-in with ``vsim run CONFIG --trace`` (seed 7), then
times ``vsim validate TRACE --scenario CONFIG --duration 20 --replications 2
--out DIR --json PATH`` as a separate process (start-up, imports, the
replications, the statistics and every figure included), in a temporary
directory. Prints JSON, then one PASS/FAIL line; exits 1 when the target is
missed or the command fails.

    .venv/bin/python benchmarks/bench_validate.py     # --config, --set, --duration, --replications, --budget
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=str(REPO / "configs" / "voip-vsphere5" / "fig2.toml"))
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--duration", type=float, default=20.0)
    parser.add_argument("--replications", type=int, default=2)
    parser.add_argument("--budget", type=float, default=60.0, help="target wall seconds")
    args = parser.parse_args(argv)
    vsim = str(Path(sys.executable).with_name("vsim"))
    overrides = [item for assignment in args.set for item in ("--set", assignment)]
    with tempfile.TemporaryDirectory() as tmp:
        trace, out, results = Path(tmp) / "measured.csv", Path(tmp) / "out", Path(tmp) / "results.json"
        subprocess.run([vsim, "run", args.config, *overrides, "--duration", str(args.duration), "--seed", "7",
                        "--trace", str(trace)], check=True, stdout=subprocess.DEVNULL)
        began = time.perf_counter()
        done = subprocess.run([vsim, "validate", str(trace), "--scenario", args.config, *overrides,
                               "--duration", str(args.duration), "--replications", str(args.replications),
                               "--tolerance", "jitter_ms.ks=0.3", "--out", str(out), "--json", str(results),
                               "--quiet"], stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - began
        doc = json.loads(results.read_text()) if results.exists() else {}
        figures = len(list(out.glob("*.png"))) if out.exists() else 0
    jitter = doc.get("metrics", {}).get("jitter_ms", {})
    print(json.dumps({"config": args.config, "overrides": args.set, "duration_s": args.duration,
                      "replications": args.replications, "exit_code": done.returncode, "wall_s": round(wall, 3),
                      "figures_png": figures, "jitter_ks": jitter.get("ks", {}).get("statistic"),
                      "samples": jitter.get("samples")}, indent=2))
    ok = done.returncode in (0, 1) and wall <= args.budget
    print(f"{'PASS' if ok else 'FAIL'}: vsim validate ({args.replications} x {args.duration:g} s) took "
          f"{wall:.2f} s (target <= {args.budget:g} s)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
