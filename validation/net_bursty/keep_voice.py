"""Keep a packets trace's voice rows and all its metadata: python keep_voice.py TRACE OUT.

The flood's rows are most of a trace (20,000 of 25,000 here) and the validation compares the
voice class only; the flood's counts stay in the metadata (summary_flood, qdisc_dropped), and
its write pattern is summarized there from its send times: each wake-up's lateness (its first
write after the last 1 ms boundary; log-normal fitted by maximum likelihood), the spacing of
the writes within a batch (gaps under 200 us), and its stalls: gaps between wake-ups longer
than 1.5 periods (the sender kept off a CPU), their share of the wake-ups and their mean
length beyond the period.
"""

import sys

import numpy as np

from vsim.traces.vsim_trace import read_trace

WAKEUP_S = 1e-3
IN_BATCH_S = 2e-4


def write_pattern(send_s):
    """Metadata lines of the flood's wake-up lateness and write spacing from its sorted send times."""
    gaps = np.diff(send_s)
    first = send_s[np.concatenate(([True], gaps >= IN_BATCH_S))]
    late = first % WAKEUP_S
    late = late[late > 0]
    logs = np.log(late)
    spacing = gaps[gaps < IN_BATCH_S]
    between = np.diff(first)
    stalls = between[between > 1.5 * WAKEUP_S] - WAKEUP_S
    return {"flood_wakeups": str(first.size),
            "flood_packets_per_wakeup": f"{send_s.size / first.size:.2f}",
            "flood_wake_lateness_us": " ".join(f"p{q}={v:.1f}" for q, v in
                                               zip((10, 50, 90, 99), 1e6 * np.percentile(late, [10, 50, 90, 99]))),
            "flood_wake_lateness_lognormal": f"median={np.exp(logs.mean()):.4g} s sigma={logs.std():.3f}",
            "flood_write_spacing_us": f"median={1e6 * np.median(spacing):.2f} mean={1e6 * spacing.mean():.2f}",
            "flood_stalls": (f"share={stalls.size / max(1, between.size):.5f} of wake-ups, mean "
                             f"{1e3 * stalls.mean() if stalls.size else 0.0:.3f} ms beyond the period, "
                             f"{np.sum(stalls) / (send_s[-1] - send_s[0]):.4f} of the time")}


def main(source, out):
    from vsim.traces.vsim_trace import write_trace
    trace = read_trace(source)
    klass = np.asarray(trace.columns["class"])
    meta = {k: v for k, v in trace.meta.items() if k != "kind"}
    flood = np.sort(np.asarray(trace.columns["send_s"], dtype=float)[klass == "flood"])
    if flood.size > 1:
        meta.update(write_pattern(flood))
    keep = klass == "voice"
    columns = {name: np.asarray(values)[keep] for name, values in trace.columns.items()}
    write_trace(out, trace.kind, columns, {**meta, "rows_kept": "voice only (keep_voice.py)"})


if __name__ == "__main__":
    main(*sys.argv[1:3])
