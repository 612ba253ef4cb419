"""``vsim probe steal``: record the steal time of each CPU of this (virtual) machine as a ``steal`` trace.

Nothing is set up and nothing needs root: the probe only reads /proc/stat on
a fixed grid (``vsim.probe.steal``) while the machine does whatever it does.
The trace is a measured input for a scenario's host (``host.steal_trace``),
the time an outer hypervisor took from each CPU.
"""

import time

from vsim.core.errors import InputError
from vsim.probe import machine
from vsim.probe.guard import Guard
from vsim.probe.steal import sample, trace_columns
from vsim.validate.vsim_trace import write_trace

MARGIN_S = 15.0  # hard deadline: the duration plus this


def command_line(args):
    """The full command that reproduces this run, every option spelt out."""
    return f"vsim probe steal --interval {args.interval:g} --duration {args.duration:g} --out {args.out}"


def run(args, note):
    """Sample the steal counters as ``args`` says, write the trace and return its summary line."""
    if args.interval > args.duration:
        raise InputError("--interval", None, f"expected at most --duration ({args.duration:g} s), so that the "
                                             f"trace has an interval, got {args.interval:g} s")
    meta = machine.facts_before(command_line(args))
    note(f"vsim: probe steal: every CPU's steal time every {args.interval:g} s for {args.duration:g} s")
    began = time.monotonic()
    with Guard(args.duration + MARGIN_S):
        series = sample(args.interval, args.duration)
    meta.update(machine.facts_after(meta, time.monotonic() - began))
    totals = [sum(series.stolen_s[cpu]) for cpu in series.cpus]
    span = series.times_s[-1]
    meta.update({
        "interval_s": f"{args.interval:g}",
        "duration_s": f"{args.duration:g}",
        "source": "/proc/stat, field 8 (steal) of each cpuN line, in clock ticks",
        "steal_resolution_s": f"{series.resolution_s:g}",
        "cpu_numbers": " ".join(str(cpu) for cpu in series.cpus),
        "steal_s_per_cpu": " ".join(f"{total:.2f}" for total in totals),
    })
    write_trace(args.out, "steal", trace_columns(series), meta)
    share = 100 * sum(totals) / (span * len(totals)) if span > 0 else 0.0
    return (f"steal: {len(series.times_s) - 1} intervals of {args.interval:g} s on {len(totals)} CPUs, "
            f"{sum(totals):.2f} s stolen ({share:.2f} % of the CPUs); wrote {args.out}")
