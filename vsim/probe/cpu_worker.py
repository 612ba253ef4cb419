"""One CPU probe worker, a process of its own: ``python -m vsim.probe.cpu_worker``.

Each tick k it sleeps until ``start + k * period`` (absolute CLOCK_MONOTONIC),
then does a fixed amount of CPU work (``spin`` of a calibrated number of
iterations) and records when the tick was due, when the work started and when
it ended; it also saves the CPU time its ticks used in all, which shows how
much CPU a tick's work really took under contention. A tick that ends after
the next one is due makes the next one start late; ticks are never skipped,
but a worker that has fallen behind stops at the end of the schedule
(``start + ticks * period``) with the ticks it has not begun left out, so a
starved worker cannot outlast the probe. The parent puts the worker in its
cgroup before it execs, so every tick runs under the group's weight and quota.
"""

import argparse
import time

import numpy as np

from vsim.probe.clock import NS, now_ns, sleep_until_ns


def spin(iterations):
    """A fixed amount of pure-Python CPU work: ``iterations`` additions."""
    total = 0
    for value in range(iterations):
        total += value
    return total


def calibrate(work_ms, repeats=5):
    """(iterations that take ``work_ms`` of CPU, measured ms per million iterations).

    Each trial's time is CPU time of this process (CLOCK_PROCESS_CPUTIME_ID),
    so that time the process waits for a CPU does not count; the fastest of
    ``repeats`` trials of a 50 ms loop is kept.
    """
    trial = 200_000
    while True:
        began = time.process_time()
        spin(trial)
        if time.process_time() - began >= 0.05:
            break
        trial *= 2
    best = float("inf")
    for _ in range(repeats):
        began = time.process_time()
        spin(trial)
        best = min(best, time.process_time() - began)
    ms_per_million = 1e3 * best / (trial / 1e6)
    return max(1, round(work_ms / ms_per_million * 1e6)), ms_per_million


def run_ticks(iterations, period_ns, start_ns, ticks):
    """Run up to ``ticks`` ticks; an array of rows (due, start, end) in CLOCK_MONOTONIC ns, one per tick
    begun before the schedule's end."""
    rows = np.zeros((ticks, 3), dtype=np.int64)
    end_ns = start_ns + ticks * period_ns
    for tick in range(ticks):
        due = start_ns + tick * period_ns
        sleep_until_ns(due)
        if now_ns() >= end_ns:
            return rows[:tick]
        began = now_ns()
        spin(iterations)
        rows[tick] = (due, began, now_ns())
    return rows


def main(argv=None):
    """Command line of the CPU worker process a probe starts."""
    parser = argparse.ArgumentParser(prog="python -m vsim.probe.cpu_worker")
    parser.add_argument("--iterations", type=int, required=True)
    parser.add_argument("--period", type=float, required=True)
    parser.add_argument("--start-ns", type=int, required=True)
    parser.add_argument("--ticks", type=int, required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    cpu_before = time.process_time()
    rows = run_ticks(args.iterations, int(round(args.period * NS)), args.start_ns, args.ticks)
    np.savez(args.out, rows=rows, cpu_s=time.process_time() - cpu_before)


if __name__ == "__main__":
    main()
