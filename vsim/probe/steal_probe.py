"""``vsim probe steal``: record the steal time of each CPU of this (virtual) machine as a ``steal`` trace.

Nothing is set up and nothing needs root: the probe only reads /proc/stat on
a fixed grid (``vsim.probe.steal``) while the machine does whatever it does.
The trace is a measured input for a scenario's host (``host.steal_trace``),
the time an outer hypervisor took from each CPU.

Two measures of steal end up in the trace's header and in the summary line,
under the same names: what the sampled per-CPU counters add up to over the
span sampled (``steal_s_per_cpu``, ``steal_s_sampled``,
``steal_pct_sampled``), and what the aggregate ``cpu`` line moved by over the
whole run, set-up included, like every probe's (``steal_s_during``,
``steal_pct_of_cpus``, ``vsim.probe.machine``). They can differ by a tick or
two: each line is rounded down to whole ticks on its own, and the run is
longer than the span sampled.
"""

import time

from vsim.core.errors import InputError
from vsim.probe import machine
from vsim.probe.guard import Guard
from vsim.probe.steal import sample, trace_columns
from vsim.traces.vsim_trace import write_trace

MARGIN_S = 15.0  # hard deadline: the duration plus this


def command_line(args):
    """The full command that reproduces this run, every option spelt out."""
    return f"vsim probe steal --interval {args.interval:g} --duration {args.duration:g} --out {args.out}"


def sampled_figures(series):
    """{header key: value} of the steal the sampled counters add up to: seconds per CPU and in all (to the
    counters' resolution), and as a percentage of the CPUs' time over the span sampled."""
    totals = [sum(series.stolen_s[cpu]) for cpu in series.cpus]
    span = series.times_s[-1]
    share = 100 * sum(totals) / (span * len(totals)) if span > 0 else 0.0
    return {"sampled_span_s": f"{span:.3f}", "steal_s_per_cpu": " ".join(f"{total:.2f}" for total in totals),
            "steal_s_sampled": f"{sum(totals):.2f}", "steal_pct_sampled": f"{share:.3g}"}


def summary_line(meta, intervals, out):
    """The printed summary: the header's steal figures, each under its header key."""
    return (f"steal: {intervals} intervals of {meta['interval_s']} s on {len(meta['cpu_numbers'].split())} CPUs, "
            f"sampled_span_s {meta['sampled_span_s']}: steal_s_sampled {meta['steal_s_sampled']} s "
            f"(steal_s_per_cpu {meta['steal_s_per_cpu']}), steal_pct_sampled {meta['steal_pct_sampled']} % of "
            f"the CPUs' time; whole run, aggregate cpu line: steal_s_during {meta['steal_s_during']} s, "
            f"steal_pct_of_cpus {meta['steal_pct_of_cpus']} %; wrote {out}")


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
    meta.update({
        "interval_s": f"{args.interval:g}",
        "duration_s": f"{args.duration:g}",
        "source": "/proc/stat, field 8 (steal) of each cpuN line, in clock ticks",
        "steal_resolution_s": f"{series.resolution_s:g}",
        "cpu_numbers": " ".join(str(cpu) for cpu in series.cpus),
        **sampled_figures(series),
    })
    write_trace(args.out, "steal", trace_columns(series), meta)
    return summary_line(meta, len(series.times_s) - 1, args.out)
