"""vsim against the naive per-packet model: speed ratio and statistical agreement.

Both models run the same short scenario (one instance of
``configs/voip-vsphere5/fig3.toml``, 120 load streams plus the measuring
conference) for several seeds each, interleaved in this one process so that
the wall times are comparable. Reported:

- wall time of each model (whole replications: building, running,
  summarising; after one short untimed replication of each, so that what a
  process pays once, such as a first import, is left out, and with the
  garbage collected before each) and the speed ratio naive / vsim (target:
  at least 100), and
  the same ratio of CPU time, which other load on the machine does not skew;
- mean and 99th-percentile jitter of each, their differences, and Welch's t
  test on the per-seed values: seeds are independent replications, so these
  tests are valid; they decide the verdict (differ when p < ``--alpha``);
- a two-sample Kolmogorov-Smirnov test on the pooled jitter samples, thinned
  to every ``THIN``-th packet of each stream. RFC 3550 jitter is a running
  average, so consecutive samples are strongly correlated and a KS test on
  all samples rejects even two sets of vsim seeds; the thinned test is
  informative only, printed next to the same test between two disjoint sets
  of vsim seeds as a calibration of what it gives when nothing differs;
- loss of each (all voice frames dropped in the vNIC rings or the uplink),
  with Fisher's exact test on the pooled counts (differ when p < ``--alpha``).

vsim runs with its default engine choice: on this scenario (five worlds on
eight cores, nothing ever waits for a CPU) that is the closed form of
``vsim.engines.closed_form``, which gives the same packets as the event
engine; ``--engine events`` times the SimPy event engine instead.

Exits 1 when the ratio is below target or jitter or loss differ, after
printing everything.

Run: ``python benchmarks/bench_vs_naive.py [--duration 30] [--seeds 5]``
"""

import argparse
import gc
import json
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent))

from naive_packet_model import run_naive  # noqa: E402
import vsim  # noqa: E402
from vsim.metrics.jitter import stream_jitter_samples  # noqa: E402
from vsim.build.load import load_scenario  # noqa: E402
from vsim.engines.simulation import Simulation  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "configs" / "voip-vsphere5" / "fig3.toml"
THIN = 32
CONTROL_SEED_OFFSET = 1000
WARM_UP_RUN_S = 2.0  # simulated seconds of the untimed replication of each model before the timed ones


def timed_vsim(loaded, seed, duration, warmup, engine="auto"):
    """One vsim replication: ((wall, CPU) seconds, summary, pooled jitter samples in seconds)."""
    gc.collect()  # each model's replication starts without the garbage of the last one
    start, start_cpu = time.perf_counter(), time.process_time()
    sim = Simulation(loaded, seed, engine=engine)
    summary = sim.run(duration, warmup).to_json()  # as JSON data, as the naive model reports it
    wall, cpu_time = time.perf_counter() - start, time.process_time() - start_cpu
    streams, send, recv = sim.client.arrays()
    received = ~np.isnan(recv)
    samples = stream_jitter_samples(send[received], recv[received], streams[received], warmup)
    return (wall, cpu_time), summary, samples


def timed_naive(loaded, seed, duration, warmup):
    """One naive replication: ((wall, CPU) seconds, summary, pooled jitter samples in seconds)."""
    gc.collect()
    start, start_cpu = time.perf_counter(), time.process_time()
    summary = run_naive(loaded, seed, duration, warmup)
    wall, cpu_time = time.perf_counter() - start, time.process_time() - start_cpu
    return (wall, cpu_time), summary, summary.pop("jitter_samples_s")


def thinned(samples_per_seed):
    """Every THIN-th sample, pooled over seeds (samples run stream by stream, so per stream too)."""
    return np.concatenate([samples[::THIN] for samples in samples_per_seed])


def model_stats(runs):
    """Times, jitter (per seed and averaged over seeds) and voice loss of one model's runs."""
    walls = [wall for (wall, _), _, _ in runs]
    cpu_time = sum(cpu for (_, cpu), _, _ in runs)
    means = [summary["jitter"]["mean_ms"] for _, summary, _ in runs]
    p99s = [summary["jitter"]["p99_ms"] for _, summary, _ in runs]
    emitted = sum(summary["voice"]["packets_emitted"] for _, summary, _ in runs)
    dropped = sum(summary["voice"]["packets_dropped"] for _, summary, _ in runs)
    return {
        "wall_s": round(sum(walls), 3),
        "wall_s_per_seed": [round(w, 3) for w in walls],
        "cpu_s": round(cpu_time, 3),
        "mean_jitter_ms": float(np.mean(means)),
        "mean_jitter_ms_per_seed": [round(m, 4) for m in means],
        "p99_jitter_ms": float(np.mean(p99s)),
        "p99_jitter_ms_per_seed": [round(p, 4) for p in p99s],
        "packets_emitted": int(emitted),
        "packets_dropped": int(dropped),
        "loss_fraction": dropped / emitted if emitted else 0.0,
    }


def welch(a, b):
    """Welch's t test p-value; 1.0 when both samples are constant and equal."""
    if np.ptp(a) == 0 and np.ptp(b) == 0 and a[0] == b[0]:
        return 1.0
    return float(stats.ttest_ind(a, b, equal_var=False).pvalue)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=30.0, help="simulated seconds per replication")
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--seeds", type=int, default=5, help="replications of each model")
    parser.add_argument("--streams", type=int, default=120, help="load streams of the one instance")
    parser.add_argument("--alpha", type=float, default=0.01)
    parser.add_argument("--min-ratio", type=float, default=100.0)
    parser.add_argument("--engine", choices=Simulation.ENGINES, default="auto",
                        help="vsim engine (auto: the closed form where nothing waits for a CPU)")
    args = parser.parse_args(argv)
    if args.seeds < 3:
        parser.error("--seeds: Welch's test on per-seed values needs at least 3 seeds per model")
    loaded = load_scenario(CONFIG, ["vm.instances=1", f"vm.streams_per_instance={args.streams}",
                                    "vm.background_burst=0", "params.host.socket_contention=0"])
    # One short untimed replication of each model first: what a process pays once (the first
    # import of scipy.signal, which the jitter estimator uses, takes 0.07-0.15 s, as long as
    # three of vsim's replications) is not the cost of a simulation.
    timed_vsim(loaded, 0, WARM_UP_RUN_S, WARM_UP_RUN_S / 2, args.engine)
    timed_naive(loaded, 0, WARM_UP_RUN_S, WARM_UP_RUN_S / 2)
    seeds = list(range(1, args.seeds + 1))
    vsim_runs, naive_runs, control_runs = [], [], []
    for seed in seeds:
        vsim_runs.append(timed_vsim(loaded, seed, args.duration, args.warmup, args.engine))
        naive_runs.append(timed_naive(loaded, seed, args.duration, args.warmup))
        control_runs.append(timed_vsim(loaded, seed + CONTROL_SEED_OFFSET, args.duration, args.warmup,
                                       args.engine))
    v, n = model_stats(vsim_runs), model_stats(naive_runs)
    ratio = n["wall_s"] / v["wall_s"]
    p_mean = welch(v["mean_jitter_ms_per_seed"], n["mean_jitter_ms_per_seed"])
    p_p99 = welch(v["p99_jitter_ms_per_seed"], n["p99_jitter_ms_per_seed"])
    v_thin = thinned([s for _, _, s in vsim_runs])
    ks = stats.ks_2samp(v_thin, thinned([s for _, _, s in naive_runs]))
    ks_control = stats.ks_2samp(v_thin, thinned([s for _, _, s in control_runs]))
    loss_table = [[v["packets_dropped"], v["packets_emitted"] - v["packets_dropped"]],
                  [n["packets_dropped"], n["packets_emitted"] - n["packets_dropped"]]]
    p_loss = float(stats.fisher_exact(loss_table).pvalue)
    report = {
        "scenario": {"config": str(CONFIG.relative_to(ROOT)), "instances": 1,
                     "streams": args.streams, "duration_s": args.duration,
                     "warmup_s": args.warmup, "seeds": seeds},
        "vsim_engine": Simulation(loaded, seeds[0], engine=args.engine).engine,
        "vsim_scheduler": vsim.SCHEDULER_BUILD,
        "vsim": v,
        "naive": n,
        "speed_ratio_naive_over_vsim": round(ratio, 1),
        "cpu_time_ratio_naive_over_vsim": round(n["cpu_s"] / v["cpu_s"], 1),
        "jitter_comparison": {
            "mean_ms_difference_naive_minus_vsim": n["mean_jitter_ms"] - v["mean_jitter_ms"],
            "mean_welch_p": p_mean,
            "p99_ms_difference_naive_minus_vsim": n["p99_jitter_ms"] - v["p99_jitter_ms"],
            "p99_welch_p": p_p99,
            "ks_thinned_every": THIN,
            "ks_thinned_p": float(ks.pvalue),
            "ks_thinned_statistic": float(ks.statistic),
            "ks_thinned_control_vsim_vs_vsim_other_seeds_p": float(ks_control.pvalue),
            "ks_samples_per_model": int(v_thin.size),
        },
        "loss_comparison": {"fisher_exact_p": p_loss},
    }
    print(json.dumps(report, indent=2))
    checks = [
        (f"speed ratio {ratio:.1f}x (target >= {args.min_ratio:g}x)", ratio >= args.min_ratio),
        (f"mean jitter {v['mean_jitter_ms']:.4f} vs {n['mean_jitter_ms']:.4f} ms, "
         f"Welch p = {p_mean:.3g} (differs if < {args.alpha:g})", p_mean >= args.alpha),
        (f"p99 jitter {v['p99_jitter_ms']:.4f} vs {n['p99_jitter_ms']:.4f} ms, "
         f"Welch p = {p_p99:.3g} (differs if < {args.alpha:g})", p_p99 >= args.alpha),
        (f"loss {v['loss_fraction']:.2e} vs {n['loss_fraction']:.2e}, "
         f"Fisher p = {p_loss:.3g} (differs if < {args.alpha:g})", p_loss >= args.alpha),
    ]
    for text, passed in checks:
        print(f"{'PASS' if passed else 'FAIL'}  {text}")
    return 0 if all(passed for _, passed in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
