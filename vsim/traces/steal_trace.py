"""Steal traces: how much CPU time an outer hypervisor took from each CPU, interval by interval.

A ``steal`` trace (``vsim.traces.vsim_trace``, written by ``vsim probe
steal``) has one row per CPU and sample interval: the CPU, the interval's
start and end, and the CPU time stolen from it in that interval. Beyond the
columns' types, a usable trace must add up:

- CPUs are numbered 0..N-1, every one of them present;
- each CPU's rows are in time order, each interval starting where the
  previous one ended (``CONTIGUOUS_S``) and lasting a positive time;
- every CPU covers the same span, from the trace's first start to its last end,
  so the trace can be replayed and looped as one;
- no interval steals a negative time, or more than its own length plus the
  counter's resolution (``# steal_resolution_s:``, 0 when absent): the kernel
  counts steal in whole clock ticks, so an interval can be charged one tick
  that was stolen just before it;
- no CPU loses more than the whole span.

``read_steal_trace`` returns a ``StealTrace`` (times from the trace's start)
or raises ``InputError`` naming the file, the line (or key) and what was
expected.
"""

from dataclasses import dataclass, field

import numpy as np

from vsim.core.errors import InputError, excerpt
from vsim.traces.text_file import read_text
from vsim.traces.vsim_trace import parse_trace, row_lines

KIND = "steal"
CONTIGUOUS_S = 1e-9  # an interval starting this close to the previous one's end continues it


@dataclass(frozen=True)
class StealTrace:
    """Per CPU, the sample intervals (s from the trace's start) and the time stolen in each.

    ``starts[c]``, ``ends[c]`` and ``stolen[c]`` are NumPy arrays of CPU
    ``c``'s intervals; ``span_s`` is the time every CPU covers.
    """

    starts: tuple = field(repr=False)
    ends: tuple = field(repr=False)
    stolen: tuple = field(repr=False)
    span_s: float
    resolution_s: float = 0.0
    meta: dict = field(default_factory=dict, repr=False)

    @property
    def cpus(self):
        return len(self.stolen)

    def total_s(self, cpu):
        """CPU time stolen from ``cpu`` over the whole trace, s."""
        return float(np.sum(self.stolen[cpu]))


def _resolution(meta, path):
    text = meta.get("steal_resolution_s")
    if text is None:
        return 0.0
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 <= value < float("inf"):
        raise InputError(path, "steal_resolution_s", f"expected a non-negative number of seconds, got {excerpt(repr(text))}")
    return value


def steal_trace_of(trace, path="<trace>", lines=None):
    """Check a parsed ``Trace`` of kind ``steal`` and turn it into a ``StealTrace``.

    ``lines`` gives each row's line number in the file, for the errors
    (default: rows counted from 1).
    """
    if trace.kind != KIND:
        raise InputError(path, "kind", f"expected a steal trace ('# kind: steal'), got a {trace.kind} trace")
    rows = len(trace)
    if rows == 0:
        raise InputError(path, "rows", "expected at least one sample row after the header, found none "
                                       "(truncated?)")
    lines = list(range(1, rows + 1)) if lines is None else lines
    cpu = trace.columns["cpu"]
    start = trace.columns["start_s"]
    end = trace.columns["end_s"]
    stolen = trace.columns["steal_s"]
    start_list, end_list, stolen_list = start.tolist(), end.tolist(), stolen.tolist()  # plain floats for messages
    resolution = _resolution(trace.meta, path)
    count = int(cpu.max()) + 1
    last_end = {}
    for row, (c, begin, finish, steal) in enumerate(zip(cpu.tolist(), start_list, end_list, stolen_list)):
        where = f"line {lines[row]}"
        if finish <= begin:
            raise InputError(path, where, f"expected end_s after start_s ({begin!r}), got {finish!r}")
        if c in last_end and abs(begin - last_end[c]) > CONTIGUOUS_S:
            raise InputError(path, where, f"expected CPU {c}'s next interval to start at {last_end[c]!r} "
                                          f"(where its previous one ended), got {begin!r}")
        last_end[c] = finish
        if steal > finish - begin + resolution + CONTIGUOUS_S:
            raise InputError(path, where, f"expected steal_s at most the interval's "
                                          f"{finish - begin:.6g} s plus the counter's resolution "
                                          f"({resolution:g} s), got {steal!r}")
    missing = sorted(set(range(count)) - set(last_end))
    if missing:
        raise InputError(path, "cpu", f"expected rows for every CPU 0..{count - 1}, none for CPU {missing[0]}")
    first = [float(start[cpu == c][0]) for c in range(count)]
    final = [last_end[c] for c in range(count)]
    for c in range(1, count):
        if abs(first[c] - first[0]) > CONTIGUOUS_S or abs(final[c] - final[0]) > CONTIGUOUS_S:
            raise InputError(path, "cpu", f"expected every CPU to cover {first[0]!r}..{final[0]!r} s "
                                          f"like CPU 0, CPU {c} covers {first[c]!r}..{final[c]!r} s")
    origin, span = first[0], final[0] - first[0]
    per_cpu = [cpu == c for c in range(count)]
    trace_of = StealTrace(starts=tuple(start[m] - origin for m in per_cpu),
                          ends=tuple(end[m] - origin for m in per_cpu),
                          stolen=tuple(stolen[m].copy() for m in per_cpu),
                          span_s=float(span), resolution_s=resolution, meta=dict(trace.meta))
    for c in range(count):
        if trace_of.total_s(c) > span + CONTIGUOUS_S:
            raise InputError(path, "cpu", f"expected at most the trace's span ({span:.6g} s) stolen from "
                                          f"CPU {c}, got {trace_of.total_s(c):.6g} s")
    return trace_of


def parse_steal_trace(text, path="<trace>"):
    """Parse and check the text of a steal trace; ``InputError`` naming ``path`` on any defect."""
    return steal_trace_of(parse_trace(text, path), path, row_lines(text))


def read_steal_trace(path):
    """Read and check a steal trace file; ``InputError`` (path, line or key, expectation) on any defect."""
    return parse_steal_trace(read_text(path, "a text vsim steal trace", encoding="utf-8-sig"), path)
