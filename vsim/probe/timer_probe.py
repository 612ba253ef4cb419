"""``vsim probe timer``: measure periodic-wakeup lateness and write it as a ``timer`` trace."""

import subprocess
import time

import numpy as np

from vsim.probe import cyclictest, machine
from vsim.probe.guard import Guard
from vsim.probe.load import start_cpu_load
from vsim.probe.run_length import check_period
from vsim.probe.stats import summary_us
from vsim.probe.timer import measure
from vsim.traces.vsim_trace import write_trace

MARGIN_S = 15.0  # hard deadline: the duration plus this


def command_line(args):
    """The full command that reproduces this run, every option spelt out."""
    return (f"vsim probe timer --period {args.period:g} --threads {args.threads} "
            f"--duration {args.duration:g} --load {args.load} --via {args.via} --out {args.out}")


def _timer_slack_ns():
    try:
        with open("/proc/self/timerslack_ns", encoding="ascii") as slack:
            return slack.read().strip()
    except OSError:
        return "unknown"


def trace_columns(run, period_s):
    """The ``timer`` trace columns of a ``TimerRun``."""
    threads, ticks, scheduled, lateness = [], [], [], []
    for thread, (when, late) in enumerate(zip(run.scheduled_s, run.lateness_s)):
        threads += [thread] * len(when)
        ticks += list(np.rint(np.asarray(when) / period_s).astype(np.int64))
        scheduled += list(when)
        lateness += list(late)
    return {"thread": threads, "tick": ticks, "scheduled_s": scheduled, "lateness_s": lateness}


def run(args, note):
    """Take the measurement described by ``args``, write the trace and return its summary line."""
    check_period("vsim probe timer", args.period, args.duration, "each thread wakes")
    tool = None
    if args.via == "cyclictest":
        tool, = machine.require_tools("timer", "cyclictest",
                                      hint="install rt-tests (apt-get install rt-tests)")
    meta = machine.facts_before(command_line(args))
    meta.update({"period_s": f"{args.period:g}", "threads": args.threads, "duration_s": f"{args.duration:g}",
                 "load": args.load, "via": args.via, "timer_slack_ns": _timer_slack_ns(),
                 "scheduler_policy": "SCHED_OTHER"})
    note(f"vsim: probe timer: {args.threads} thread(s) every {args.period:g} s for {args.duration:g} s "
         f"via {args.via}, load {args.load}")
    began = time.monotonic()
    with Guard(args.duration + MARGIN_S) as guard:
        if args.load == "cpu":
            meta["load_processes"] = f"{start_cpu_load(guard)} busy loops (python -c 'while True: pass')"
            time.sleep(0.2)  # let the load spread over the CPUs before the first tick
        else:
            meta["load_processes"] = "0"
        if tool is None:
            meta["sleep"] = "ctypes clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME) in Python threads"
            result = measure(args.period, args.threads, args.duration)
        else:
            argv = cyclictest.command(tool, args.period, args.threads, args.duration)
            meta["sleep"] = "cyclictest: " + " ".join(argv)
            meta["tool_version"] = subprocess.run([tool, "--help"], capture_output=True,
                                                  text=True).stdout.splitlines()[0].strip()
            child = guard.start(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            output, _ = child.communicate()
            result = cyclictest.parse_verbose(output, args.period, args.threads)
    meta.update(machine.facts_after(meta, time.monotonic() - began))
    lateness = np.concatenate(result.lateness_s) if result.lateness_s else np.array([])
    meta["lateness_summary"] = summary_us(lateness)
    write_trace(args.out, "timer", trace_columns(result, args.period), meta)
    return f"timer ({args.via}, load {args.load}): {meta['lateness_summary']}; wrote {args.out}"
