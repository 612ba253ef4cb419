"""The same periodic-wakeup measurement as ``timer``, taken by rt-tests' ``cyclictest``.

cyclictest's verbose mode (``-v``) prints one line per wake-up,
``thread: cycle: latency`` (``-N``: latency in ns), which becomes the same
``TimerRun`` as a Python measurement, so the two traces compare tick by
tick. It runs with ``--policy=other`` (the ordinary scheduler, as the Python
threads), ``--distance=0`` (every thread on the same period) and
``--laptop`` (it leaves /dev/cpu_dma_latency alone, as Python does).
"""

import numpy as np

from vsim.probe.timer import TimerRun


def command(tool, period_s, threads, duration_s):
    """cyclictest's argument list for ``threads`` threads of ``period_s`` for ``duration_s``."""
    return [tool, f"--threads={threads}", f"--interval={int(round(period_s * 1e6))}", "--distance=0",
            f"--duration={max(1, int(round(duration_s)))}", "--policy=other", "--laptop", "--nsecs",
            "--verbose"]


def parse_verbose(text, period_s, threads):
    """A ``TimerRun`` from cyclictest's ``-v -N`` output; other lines (its banner) are skipped."""
    cycles = [[] for _ in range(threads)]
    latencies = [[] for _ in range(threads)]
    for line in text.splitlines():
        fields = line.split(":")
        if len(fields) != 3:
            continue
        try:
            thread, cycle, latency_ns = (int(field) for field in fields)
        except ValueError:
            continue
        if 0 <= thread < threads:
            cycles[thread].append(cycle)
            latencies[thread].append(latency_ns)
    return TimerRun([np.asarray(c, dtype=float) * period_s for c in cycles],
                    [np.asarray(v, dtype=float) / 1e9 for v in latencies])
