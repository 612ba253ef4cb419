"""``vsim probe timer``: wake-up lateness of periodic threads, idle or with every CPU busy.

Like rt-tests' cyclictest, each of ``threads`` threads sleeps until absolute
deadlines ``start + k * period`` on CLOCK_MONOTONIC (``clock.sleep_until_ns``,
clock_nanosleep with TIMER_ABSTIME) and, on waking, reads the clock: the
difference is the tick's lateness. The next deadline follows the schedule,
not the wake-up, so lateness does not accumulate. With ``load="cpu"`` one
busy-loop process per CPU runs for the whole measurement, so the threads
compete with CPU-bound work in the ordinary (CFS/EEVDF) scheduler.

What Python adds to the kernel's lateness: the threads are Python threads,
so after the kernel wakes one it must return from ctypes and take back the
GIL (held meanwhile by another probe thread that woke at the same deadline)
before it can read the clock; and the interpreter's work around each sleep.
``cyclictest`` (``--via cyclictest``) measures the same schedule in C; the
difference between the two traces on the same machine is that offset.
"""

import threading
from dataclasses import dataclass

import numpy as np

from vsim.probe.clock import NS, now_ns, sleep_until_ns

START_DELAY_NS = 100_000_000  # first deadline: 0.1 s after the threads are started


@dataclass(frozen=True)
class TimerRun:
    """A timer measurement: per thread, the scheduled times and lateness of each tick, in s."""

    scheduled_s: list
    lateness_s: list


def _periodic(deadlines_ns, lateness_ns, stop):
    for tick, deadline in enumerate(deadlines_ns):
        if stop.is_set():
            return
        sleep_until_ns(int(deadline))
        lateness_ns[tick] = now_ns() - int(deadline)


def measure(period_s, threads, duration_s):
    """Run ``threads`` periodic threads for ``duration_s``; the ticks they completed.

    Threads are daemons that stop at their last deadline; if the caller is
    interrupted they are told to stop and abandoned at their next wake-up.
    """
    period_ns = int(round(period_s * NS))
    ticks = max(1, int(duration_s / period_s))
    start_ns = now_ns() + START_DELAY_NS
    deadlines = start_ns + period_ns * np.arange(ticks, dtype=np.int64)
    stop = threading.Event()
    results = [np.full(ticks, -1, dtype=np.int64) for _ in range(threads)]
    workers = [threading.Thread(target=_periodic, args=(deadlines, result, stop), daemon=True,
                                name=f"vsim-timer-{index}")
               for index, result in enumerate(results)]
    try:
        for worker in workers:
            worker.start()
        for worker in workers:
            while worker.is_alive():  # short joins keep the main thread responsive to signals
                worker.join(0.2)
    finally:
        stop.set()
    scheduled, lateness = [], []
    for result in results:
        done = result >= 0
        scheduled.append((deadlines[done] - start_ns) / NS)
        lateness.append(result[done] / NS)
    return TimerRun(scheduled, lateness)
