"""Keep a packets trace's voice rows and all its metadata: python keep_voice.py TRACE OUT.

The flood's rows are most of a trace (20,000 of 25,000 here) and the validation compares the
voice class only; the flood's counts stay in the metadata (summary_flood, qdisc_dropped), and
its write pattern is summarized there from its send times: each wake-up's lateness (its first
write after the last 1 ms boundary; log-normal fitted by maximum likelihood), the spacing of
the writes within a batch (gaps under 200 us), and its stalls: gaps between wake-ups longer
than 1.5 periods (the sender kept off a CPU), their share of the wake-ups and their mean
length beyond the period. The voice sender's own pattern is summarized too: the mean gap between
the packets of one tick (its ``sendto`` per stream, one after another), from rounds 4-6 on.

From rounds 4-6 on, a gap that began while the flood's socket was full is a block, not a stall:
replaying both classes' send times through the class's FIFO (``fifo_check.replay_fifo``), the
last write before it left at least ``SEND_BUFFER`` of the flood's packets waiting (its 212992 B
send buffer over 2304 B a datagram, ``validation/socket_buffer``), less ``REPLAY_SLACK`` (the
replay's count is a packet or two off the kernel's, whose htb dequeues on its own timer; in the
pilot the 20 ms blocks began at 91-95 waiting, the other gaps at 24-88), so its send waited for the
queue (the model plays that itself: ``send_buffer``). Those are counted apart
(``flood_blocks``), and ``flood_stalls`` are the others: the sender kept off a CPU.
"""

import re
import sys

import numpy as np

from fifo_check import replay_fifo

from vsim.traces.vsim_trace import read_trace

WAKEUP_S = 1e-3
IN_BATCH_S = 2e-4
SEND_BUFFER = 212992 / 2304
REPLAY_SLACK = 3


def write_pattern(send_s, blocked=None):
    """Metadata lines of the flood's wake-up lateness and write spacing from its sorted send times;
    ``blocked`` marks the writes after which its socket was full (their gaps are blocks)."""
    gaps = np.diff(send_s)
    starts = np.concatenate(([True], gaps >= IN_BATCH_S))
    first = send_s[starts]
    late = first % WAKEUP_S
    late = late[late > 0]
    logs = np.log(late)
    spacing = gaps[gaps < IN_BATCH_S]
    between = np.diff(first)
    long_gap = between > 1.5 * WAKEUP_S
    lines = {}
    if blocked is not None:
        last_before = np.flatnonzero(starts)[1:] - 1  # the last write before each batch
        block = long_gap & blocked[last_before]
        long_gap &= ~block
        blocks = between[block] - WAKEUP_S
        lines["flood_blocks"] = (f"{blocks.size} gaps after a write that left {SEND_BUFFER - REPLAY_SLACK:.2f} or "
                                 f"more of its packets waiting, mean {1e3 * blocks.mean() if blocks.size else 0.0:.3f} ms "
                                 f"beyond the period")
    stalls = between[long_gap] - WAKEUP_S
    return {**lines, "flood_wakeups": str(first.size),
            "flood_packets_per_wakeup": f"{send_s.size / first.size:.2f}",
            "flood_wake_lateness_us": " ".join(f"p{q}={v:.1f}" for q, v in
                                               zip((10, 50, 90, 99), 1e6 * np.percentile(late, [10, 50, 90, 99]))),
            "flood_wake_lateness_lognormal": f"median={np.exp(logs.mean()):.4g} s sigma={logs.std():.3f}",
            "flood_write_spacing_us": f"median={1e6 * np.median(spacing):.2f} mean={1e6 * spacing.mean():.2f}",
            "flood_stalls": (f"share={stalls.size / max(1, between.size):.5f} of wake-ups, mean "
                             f"{1e3 * stalls.mean() if stalls.size else 0.0:.3f} ms beyond the period, "
                             f"{np.sum(stalls) / (send_s[-1] - send_s[0]):.4f} of the time")}


def tick_gaps(send_s, period):
    """The gaps between consecutive voice packets of one tick, every tick's, from their send times."""
    tick = np.floor(send_s / period)
    gaps = [np.diff(np.sort(send_s[tick == t])) for t in np.unique(tick)]
    return np.concatenate([g for g in gaps if g.size]) if gaps else np.zeros(0)


def voice_spacing(send_s, period):
    """Metadata line of the mean gap between consecutive voice packets of one tick."""
    gaps = tick_gaps(send_s, period)
    return {"voice_write_spacing_us": f"median={1e6 * np.median(gaps):.2f} mean={1e6 * gaps.mean():.2f}"}


def main(source, out):
    from vsim.traces.vsim_trace import write_trace
    trace = read_trace(source)
    klass = np.asarray(trace.columns["class"])
    meta = {k: v for k, v in trace.meta.items() if k != "kind"}
    send_s = np.asarray(trace.columns["send_s"], dtype=float)
    is_flood = klass == "flood"
    if np.count_nonzero(is_flood) > 1:
        rate, limit = (float(x) for x in re.search(r"rate=([\d.e+]+)bit/s limit=(\d+)", meta["bottleneck"]).groups())
        size = np.asarray(trace.columns["size_bytes"], dtype=float)
        waiting = replay_fifo(send_s, size, is_flood, rate, int(limit))[1]
        order = np.argsort(send_s[is_flood], kind="stable")
        meta.update(write_pattern(send_s[is_flood][order], (waiting[is_flood] >= SEND_BUFFER - REPLAY_SLACK)[order]))
    voice = np.asarray(trace.columns["send_s"], dtype=float)[klass == "voice"]
    if voice.size > 1:
        meta.update(voice_spacing(voice, float(trace.meta["period_s"])))
    keep = klass == "voice"
    columns = {name: np.asarray(values)[keep] for name, values in trace.columns.items()}
    write_trace(out, trace.kind, columns, {**meta, "rows_kept": "voice only (keep_voice.py)"})


if __name__ == "__main__":
    main(*sys.argv[1:3])
