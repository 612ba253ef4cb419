"""Background CPU load for a probe: one busy-loop process per CPU, for as long as the probe runs."""

import os
import subprocess
import sys

BUSY_LOOP = "while True: pass"


def start_cpu_load(guard, cpus=None):
    """Start ``cpus`` (default: every online CPU) busy loops under ``guard``; their count."""
    count = cpus or os.cpu_count() or 1
    for _ in range(count):
        guard.start([sys.executable, "-c", BUSY_LOOP], stdin=subprocess.DEVNULL)
    return count
