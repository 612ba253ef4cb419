"""Aligned wake-ups of N workers: what the probe measured and what the model gives.

    python validation/cpu_aligned/analyse.py            # the measured table (data/*.csv)
    python validation/cpu_aligned/analyse.py --model    # and the model's, configs/validation/cpu_aligned.toml

Per setting (N workers, work per tick) and round: the CPU a tick cost a worker (the probe's own
accounting, ``cpu_ms_per_tick_vm0``), and per aligned tick (all N due at one instant) when the
first of the N started (the wake-up's lateness), when the last started and when the last ended,
each after the tick was due; medians and 90th percentiles over the run's ticks after its first
second. The model is run on the same scenario with ``vm.instances`` = N (one worker each) and the work per tick the
probe's own accounting gave (less the wake-up cost the model adds on its own).
"""

import argparse
import re
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SETTINGS = [(n, w) for n in (1, 2, 4, 8, 16) for w in ("0.01", "1")]
WARMUP_S = 1.0


def tick_rounds(columns):
    """(first start, last start, last end) after due, ms, per aligned tick after the warm-up."""
    tick, due = np.asarray(columns["tick"]), np.asarray(columns["scheduled_s"], dtype=float)
    start, end = np.asarray(columns["start_s"], dtype=float), np.asarray(columns["end_s"], dtype=float)
    rows = []
    for k in np.unique(tick):
        mine = tick == k
        if due[mine][0] < WARMUP_S:
            continue
        d = due[mine][0]
        rows.append((start[mine].min() - d, start[mine].max() - d, end[mine].max() - d))
    return 1e3 * np.asarray(rows)


def serial_spacing_ms(rounds, n):
    """How far apart, ms, the aligned workers start on one CPU: (last start - first start) over
    the N / 2 - 1 workers that wait on each of the 2 CPUs, median over the ticks (N >= 4)."""
    return float(np.median((rounds[:, 1] - rounds[:, 0]) / (n / 2 - 1))) if n >= 4 else float("nan")


def measured():
    """{(n, work): [(cpu ms per tick, load average before, rounds array) per round]}."""
    from vsim.traces.vsim_trace import read_trace
    found = {}
    for n, work in SETTINGS:
        for path in sorted((HERE / "data").glob(f"n{n}_w{work}_r*.csv")):
            trace = read_trace(path)
            cpu = float(re.match(r"[\d.]+", trace.meta["cpu_ms_per_tick_vm0"]).group())
            load = float(trace.meta["loadavg_before"].split()[0])
            found.setdefault((n, work), []).append((cpu, load, tick_rounds(trace.columns)))
    return found


def simulated(n, cpu_ms, seed):
    """The model's rounds for N workers whose tick costs ``cpu_ms`` in all (wake-up included)."""
    from vsim.build.load import load_scenario
    from vsim.engines.simulation import Simulation
    from vsim.results.simulation_trace import cpu_ticks_trace
    config = Path(__file__).resolve().parents[2] / "configs" / "validation" / "cpu_aligned.toml"
    overhead = load_scenario(config).models["workload"].values.tick_overhead
    loaded = load_scenario(config, [f"vm.instances={n}",
                                    f"params.workload.frame_cost={max(1e-7, cpu_ms * 1e-3 - overhead)}"])
    sim = Simulation(loaded, seed, engine="events")
    sim.record_ticks()
    sim.run(8.0, 0.0)
    return tick_rounds(cpu_ticks_trace(sim, {}).columns)


def line(label, rounds):
    p = lambda col, q: float(np.percentile(rounds[:, col], q))  # noqa: E731
    return (f"{label:<28} first start p50 {p(0, 50):6.3f} p90 {p(0, 90):6.3f} | last start p50 {p(1, 50):6.3f} "
            f"| last end p50 {p(2, 50):6.3f} p90 {p(2, 90):6.3f}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", action="store_true", help="also run the model on each setting")
    args = parser.parse_args(argv)
    found = measured()
    wake = [cpu - 0.01 for cpu, _, _ in found.get((1, "0.01"), []) + found.get((2, "0.01"), [])
            + found.get((4, "0.01"), []) + found.get((8, "0.01"), []) + found.get((16, "0.01"), [])]
    spacing = [serial_spacing_ms(rounds, n) - cpu for n in (8, 16) for cpu, load, rounds in found.get((n, "0.01"), [])
               if load < 10]
    if spacing:
        print(f"Start spacing on a CPU beyond the CPU per tick (N = 8, 16 at 0.01 ms, load below 10): median "
              f"{1e3 * np.median(spacing):.0f} us, range {1e3 * min(spacing):.0f}-{1e3 * max(spacing):.0f} us "
              f"over {len(spacing)} runs")
    if wake:
        print(f"CPU per wake-up (0.01 ms runs, less the 0.01 ms of work): median {1e3 * np.median(wake):.0f} us, "
              f"range {1e3 * min(wake):.0f}-{1e3 * max(wake):.0f} us over {len(wake)} runs\n")
    for (n, work), runs in found.items():
        for index, (cpu, load, rounds) in enumerate(runs, 1):
            print(line(f"N={n:<2} work {work:>4} ms r{index}", rounds)
                  + f" | spacing {serial_spacing_ms(rounds, n):.3f} | cpu/tick {cpu:.3f} ms, load {load:.1f}")
        if args.model:
            cpu = float(np.median([c for c, _, _ in runs]))
            rounds = simulated(n, cpu, 1)
            print(line(f"N={n:<2} work {work:>4} ms model", rounds)
                  + f" | spacing {serial_spacing_ms(rounds, n):.3f} | cpu/tick {cpu:.3f} ms")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
