"""Per-CPU steal time from /proc/stat, sampled on a fixed grid of absolute deadlines.

The kernel of a virtual machine counts, per CPU, the time its hypervisor ran
something else while that vCPU wanted to run (the ``steal`` field, the 8th
number of each ``cpuN`` line of /proc/stat, in clock ticks of ``USER_HZ``).
``sample`` reads those counters every ``interval_s`` and turns the
differences into stolen seconds per CPU and interval. The counters are
whole ticks, so one interval's value is exact only to a tick
(``resolution_s``); the sum over any run of intervals is exact to one tick.
"""

from dataclasses import dataclass

from vsim.probe.clock import NS, now_ns, sleep_until_ns
from vsim.probe.machine import USER_HZ

STEAL_FIELD = 8  # index of the steal counter on a "cpuN" line, the name being field 0


def cpu_steal_ticks(stat_text):
    """``{cpu index: steal ticks}`` of every ``cpuN`` line of /proc/stat's text."""
    ticks = {}
    for line in stat_text.splitlines():
        fields = line.split()
        if fields and fields[0].startswith("cpu") and fields[0][3:].isdigit():
            ticks[int(fields[0][3:])] = int(fields[STEAL_FIELD]) if len(fields) > STEAL_FIELD else 0
    if not ticks:
        raise ValueError("no per-CPU 'cpuN' line in /proc/stat")
    return ticks


def read_stat():
    """The text of /proc/stat now."""
    with open("/proc/stat", encoding="ascii") as stat:
        return stat.read()


@dataclass(frozen=True)
class StealSeries:
    """Per CPU, the stolen seconds of each interval; ``times_s`` are the interval boundaries
    (s from the first read), one more than the intervals."""

    cpus: tuple
    times_s: list
    stolen_s: dict  # cpu -> list of seconds per interval

    @property
    def resolution_s(self):
        return 1.0 / USER_HZ


def sample(interval_s, duration_s, read=read_stat, clock=now_ns, sleep_until=sleep_until_ns):
    """Read the steal counters every ``interval_s`` for ``duration_s``: a ``StealSeries``.

    The reads are due on a grid of absolute deadlines from the first one;
    each interval runs from one actual read to the next (its clock time is
    taken right after the read), so the intervals are contiguous even when a
    read is late. A CPU that goes offline during the run is an error
    (``RuntimeError``): its counter would be lost.
    """
    step = round(interval_s * NS)
    previous = cpu_steal_ticks(read())
    first = clock()
    cpus = tuple(sorted(previous))
    times, stolen = [0.0], {cpu: [] for cpu in cpus}
    intervals = max(1, round(duration_s / interval_s))
    for index in range(1, intervals + 1):
        sleep_until(first + index * step)
        current = cpu_steal_ticks(read())
        at = clock()
        for cpu in cpus:
            if cpu not in current:
                raise RuntimeError(f"CPU {cpu} left /proc/stat during the run (went offline?)")
            stolen[cpu].append((current[cpu] - previous[cpu]) / USER_HZ)
        times.append((at - first) / NS)
        previous = current
    return StealSeries(cpus, times, stolen)


def trace_columns(series):
    """The ``steal`` trace columns of a ``StealSeries``: interval by interval, CPUs in order."""
    columns = {"cpu": [], "start_s": [], "end_s": [], "steal_s": []}
    for index in range(len(series.times_s) - 1):
        for position, cpu in enumerate(series.cpus):
            columns["cpu"].append(position)
            columns["start_s"].append(series.times_s[index])
            columns["end_s"].append(series.times_s[index + 1])
            columns["steal_s"].append(series.stolen_s[cpu][index])
    return columns
