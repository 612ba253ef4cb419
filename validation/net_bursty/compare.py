"""Each measured run of validation/net_bursty against the model, before and after the write pattern.

    python validation/net_bursty/compare.py > validation/net_bursty/model.txt

For every run whose voice rows were kept (the flood on 1 ms wake-ups), ``vsim validate`` on
``configs/validation/net_bursty.toml`` at the run's flood rate (its ``flood_target_pps``), 3 x 8 s:

- before: the flood evenly paced (``arrivals = "paced"``, what the model had), every packet at
  its own instant;
- after: ``arrivals = "batched"`` with the run's own write pattern from the flood's send log
  (``keep_voice.py``: the wake-ups' log-normal lateness, the writes' mean spacing, the stalls'
  share and mean), the wake-ups on the run's clock (``wakeup_phase = 0``). Round 1's traces were
  kept before ``keep_voice.py`` recorded the pattern; they get the median of the other runs'.

It prints, per run, the voice loss (mean over the 12 streams) and the medians of transit and
RFC 3550 jitter, measured / before / after. Nothing is fitted: the write pattern is an input
taken from the flood's own log, as its rate is.
"""

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "validation" / "net_bursty" / "data"
CONFIG = ROOT / "configs" / "validation" / "net_bursty.toml"


def meta_of(path):
    """The trace's '# key: value' lines."""
    meta = {}
    for line in path.read_text().splitlines():
        if not line.startswith("# "):
            break
        key, _, value = line[2:].partition(": ")
        meta[key] = value
    return meta


def pattern_of(meta):
    """(median s, sigma, spacing s, stall share, stall mean s) from keep_voice.py's lines; None without."""
    if "flood_stalls" not in meta:
        return None
    median, sigma = (float(x) for x in re.findall(r"median=([\d.e+-]+) s sigma=([\d.]+)",
                                                   meta["flood_wake_lateness_lognormal"])[0])
    spacing = float(re.search(r"mean=([\d.]+)", meta["flood_write_spacing_us"]).group(1)) * 1e-6
    share = float(re.search(r"share=([\d.]+)", meta["flood_stalls"]).group(1))
    mean = float(re.search(r"mean ([\d.]+) ms", meta["flood_stalls"]).group(1)) * 1e-3
    return median, sigma, spacing, share, mean


def simulated(trace, params):
    """(loss mean, transit p50, jitter p50): measured and simulated, from ``vsim validate``."""
    table = "{" + ", ".join(f"{k} = {json.dumps(v)}" for k, v in params.items()) + "}"
    out = subprocess.run([sys.executable, "-m", "vsim", "validate", str(trace), "--scenario", str(CONFIG),
                          "--set", f"group.flood.traffic.params={table}", "--replications", "3", "--quiet",
                          "--json", "-"], capture_output=True, text=True, cwd=ROOT)
    metrics = json.loads(out.stdout)["metrics"]
    picks = (("loss_fraction", "mean"), ("transit_ms", "p50"), ("jitter_ms", "p50"))
    return ([metrics[m][s]["measured"] for m, s in picks], [metrics[m][s]["simulated"] for m, s in picks])


def main():
    runs = sorted(DATA.glob("*.voice.csv"), key=lambda p: (float(re.search(r"load([\d.]+)_", p.name).group(1)),
                                                             p.name))
    patterns = [p for p in (pattern_of(meta_of(run)) for run in runs) if p is not None]
    pooled = tuple(float(np.median([p[i] for p in patterns])) for i in range(5))
    print("pooled write pattern (median over the runs that recorded it): lateness median "
          f"{pooled[0] * 1e6:.1f} us sigma {pooled[1]:.3f}, spacing {pooled[2] * 1e6:.2f} us, stalls "
          f"{pooled[3]:.4f} of wake-ups, mean {pooled[4] * 1e3:.2f} ms\n")
    print(f"{'run':<28} {'voice loss meas/before/after':>30} {'transit p50 ms':>24} {'jitter p50 ms':>22}")
    for run in runs:
        meta = meta_of(run)
        pps = float(meta["flood_target_pps"])
        own = pattern_of(meta)
        median, sigma, spacing, share, mean = own if own is not None else pooled
        paced = {"pps": pps, "ip_bytes": 1028, "arrivals": "paced"}
        batched = {"pps": pps, "ip_bytes": 1028, "arrivals": "batched", "wakeup": 1e-3, "wakeup_median": median,
                   "wakeup_sigma": sigma, "write_spacing": spacing, "stall_share": share, "stall_mean": mean,
                   "wakeup_phase": 0.0}
        measured, before = simulated(run, paced)
        _, after = simulated(run, batched)
        cells = ["/".join(f"{x:.3f}" if i == 0 else f"{x:.2f}" for x in (measured[i], before[i], after[i]))
                 for i in range(3)]
        note = "" if own is not None else " (pooled pattern)"
        print(f"{run.name.replace('.voice.csv', ''):<28} {cells[0]:>30} {cells[1]:>24} {cells[2]:>22}{note}")


if __name__ == "__main__":
    main()
