"""Each measured run of validation/net_bursty against the model, before and after the write pattern.

    python validation/net_bursty/compare.py > validation/net_bursty/model.txt

For every run whose voice rows were kept (the flood on 1 ms wake-ups), ``vsim validate`` on
``configs/validation/net_bursty.toml`` at the run's flood rate (its ``flood_target_pps``), 3 x 8 s,
the voice sender writing each stream's packet in turn (``emission = "per_stream"``) at the run's
own gap between the packets of a tick (``frame_cost``, the mean over the trace's voice send times),
with the flood

- paced: evenly paced (``arrivals = "paced"``), every packet at its own instant;
- batched: ``arrivals = "batched"`` with the run's own write pattern from the flood's send log
  (``keep_voice.py``: the wake-ups' log-normal lateness, the writes' mean spacing, the stalls'
  share and mean), the wake-ups on the run's clock (``wakeup_phase = 0``). Round 1's traces were
  kept before ``keep_voice.py`` recorded the pattern; they get the median of rounds 2-3'.
  Where ``keep_voice.py`` told the socket's blocks from the stalls (``flood_blocks``, rounds 4-6),
  the stalls are the others and the model's flood socket blocks by itself (``send_buffer``,
  ``keep_voice.SEND_BUFFER``); rounds 1-3 recorded both as stalls and run without it.

It prints, per run, the voice loss (mean over the 12 streams) and the medians of transit and
RFC 3550 jitter, measured / paced / batched. Nothing is fitted: the write patterns are inputs
taken from the senders' own logs, as the flood's rate is.
"""

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np

from keep_voice import SEND_BUFFER, tick_gaps
from vsim.traces.vsim_trace import read_trace

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


def send_buffer_of(meta):
    """The flood socket's buffer in packets where the run told its blocks apart, else 0."""
    return SEND_BUFFER if "flood_blocks" in meta else 0.0


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


def voice_gap_s(trace):
    """The mean gap between consecutive voice packets of one tick, from the trace's send times."""
    loaded = read_trace(trace)
    return float(tick_gaps(np.asarray(loaded.columns["send_s"], dtype=float), float(loaded.meta["period_s"])).mean())


def simulated(trace, params, voice_gap):
    """(loss mean, transit p50, jitter p50): measured and simulated, from ``vsim validate``."""
    table = "{" + ", ".join(f"{k} = {json.dumps(v)}" for k, v in params.items()) + "}"
    out = subprocess.run([sys.executable, "-m", "vsim", "validate", str(trace), "--scenario", str(CONFIG),
                          "--set", f"group.flood.traffic.params={table}",
                          "--set", f"params.workload.frame_cost={voice_gap!r}", "--replications", "3", "--quiet",
                          "--json", "-"], capture_output=True, text=True, cwd=ROOT)
    metrics = json.loads(out.stdout)["metrics"]
    picks = (("loss_fraction", "mean"), ("transit_ms", "p50"), ("jitter_ms", "p50"))
    return ([metrics[m][s]["measured"] for m, s in picks], [metrics[m][s]["simulated"] for m, s in picks])


def main():
    runs = sorted(DATA.glob("*.voice.csv"), key=lambda p: (float(re.search(r"load([\d.]+)_", p.name).group(1)),
                                                             p.name))
    patterns = [p for p in (pattern_of(meta_of(run)) for run in runs if "flood_blocks" not in meta_of(run))
                if p is not None]
    pooled = tuple(float(np.median([p[i] for p in patterns])) for i in range(5))
    print("pooled write pattern (median over rounds 2-3): lateness median "
          f"{pooled[0] * 1e6:.1f} us sigma {pooled[1]:.3f}, spacing {pooled[2] * 1e6:.2f} us, stalls "
          f"{pooled[3]:.4f} of wake-ups, mean {pooled[4] * 1e3:.2f} ms\n")
    print(f"{'run':<28} {'voice gap us':>12} {'voice loss meas/paced/batched':>30} {'transit p50 ms':>24} "
          f"{'jitter p50 ms':>22}")
    for run in runs:
        meta = meta_of(run)
        pps = float(meta["flood_target_pps"])
        own = pattern_of(meta)
        median, sigma, spacing, share, mean = own if own is not None else pooled
        paced = {"pps": pps, "ip_bytes": 1028, "arrivals": "paced"}
        batched = {"pps": pps, "ip_bytes": 1028, "arrivals": "batched", "wakeup": 1e-3, "wakeup_median": median,
                   "wakeup_sigma": sigma, "write_spacing": spacing, "stall_share": share, "stall_mean": mean,
                   "wakeup_phase": 0.0, "send_buffer": send_buffer_of(meta)}
        gap = voice_gap_s(run)
        measured, before = simulated(run, paced, gap)
        _, after = simulated(run, batched, gap)
        cells = ["/".join(f"{x:.3f}" if i == 0 else f"{x:.2f}" for x in (measured[i], before[i], after[i]))
                 for i in range(3)]
        note = "" if own is not None else " (pooled pattern)"
        print(f"{run.name.replace('.voice.csv', ''):<28} {gap * 1e6:>12.1f} {cells[0]:>30} {cells[1]:>24} "
              f"{cells[2]:>22}{note}")


if __name__ == "__main__":
    main()
