"""``vsim probe cpu``: periodic CPU work of "VMs" made of cgroups, under cpu weights and quotas.

Each VM is a cgroup under the probe's parent group (whose own weight,
``parent_weight``, sets the VMs' share against the machine's other work, as
a hypervisor's share of a shared host); each of its ``workers``
worker processes (``cpu_worker``; processes, since Python threads would
share one GIL; pinned to no CPU) does ``work_ms`` of calibrated CPU work
every ``period``. Per tick the trace records when it was due, when the work
started (start - due: the lateness) and when it ended (end - due: when a
media server would emit its packets, whose spread is the emission jitter).
A VM whose workers ran no tick (too little CPU to start before the schedule's
end) is reported as such; a run in which no VM ran one writes no trace.
"""

import os
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

import numpy as np

from vsim.core.errors import InputError
from vsim.probe import cgroups, cleanup, machine
from vsim.probe.cgroups import MAX_QUOTA_US, MIN_QUOTA_US, quota_us_of
from vsim.probe.clock import NS, now_ns
from vsim.probe.cpu_worker import calibrate
from vsim.probe.guard import Guard
from vsim.probe.limits import MAX_WORKERS
from vsim.probe.names import cgroup_name, tmp_prefix
from vsim.probe.run_length import check_period
from vsim.probe.stats import summary_us
from vsim.traces.vsim_trace import write_trace

START_DELAY_S = 1.0  # first tick: this long after the workers are launched, plus PER_WORKER_S each
PER_WORKER_S = 0.2
MARGIN_S = 30.0  # hard deadline: start delay + duration + this
MAX_WEIGHT = 10000


def per_vm(text, vms, option, parse):
    """One value per VM from ``text``: a single value for all, or exactly ``vms`` comma-separated ones."""
    parts = [part.strip() for part in text.split(",")]
    if len(parts) not in (1, vms):
        raise InputError("vsim probe cpu", option, f"expected 1 or {vms} comma-separated values "
                                                   f"(one per VM), got {len(parts)}")
    values = [parse(part, option) for part in parts]
    return values * vms if len(values) == 1 else values


def parse_weight(text, option):
    """A cpu.weight: an integer 1..10000."""
    try:
        weight = int(text)
    except ValueError:
        weight = 0
    if not 1 <= weight <= MAX_WEIGHT:
        raise InputError("vsim probe cpu", option, f"expected a weight 1-{MAX_WEIGHT}, got {text!r}")
    return weight


def parse_quota(text, option):
    """A quota in CPUs (a number > 0) or None for 'max'."""
    if text == "max":
        return None
    try:
        quota = float(text)
    except ValueError:
        quota = 0.0
    if not 0 < quota < float("inf"):
        raise InputError("vsim probe cpu", option, f"expected a quota in CPUs > 0 or 'max', got {text!r}")
    return quota


def check_quotas(quotas, period_us):
    """``InputError`` for a quota that the kernel cannot enforce at ``period_us``: below its smallest
    quota per period (it would raise it without a word) or above its largest."""
    lowest, highest = MIN_QUOTA_US / period_us, MAX_QUOTA_US / period_us
    for quota in quotas:
        if quota is not None and quota_us_of(quota, period_us) < MIN_QUOTA_US:
            raise InputError("vsim probe cpu", "--quota", f"expected at least {lowest:g} CPUs (the kernel's "
                                                          f"smallest quota, {MIN_QUOTA_US} us per --quota-period-us "
                                                          f"{period_us}), got {quota:g}")
        if quota is not None and quota_us_of(quota, period_us) > MAX_QUOTA_US:
            raise InputError("vsim probe cpu", "--quota", f"expected at most {highest:g} CPUs (the kernel's "
                                                          f"largest quota) or 'max', got {quota:g}")


def check_workers(vms, workers):
    """``InputError`` for more than ``MAX_WORKERS`` worker processes in all."""
    if vms * workers > MAX_WORKERS:
        raise InputError("vsim probe cpu", "--workers", f"expected at most {MAX_WORKERS} worker processes in "
                                                        f"all VMs (each a Python process, started "
                                                        f"{PER_WORKER_S:g} s apart), got --vms {vms} x "
                                                        f"--workers {workers} = {vms * workers}")


def command_line(args):
    """The full command that reproduces this run, every option spelt out."""
    return (f"vsim probe cpu --vms {args.vms} --workers {args.workers} --work-ms {args.work_ms:g} "
            f"--period {args.period:g} --weight {args.weight} --quota {args.quota} "
            f"--parent-weight {args.parent_weight} "
            f"--quota-period-us {args.quota_period_us} --duration {args.duration:g} --out {args.out}")


def _cpu_stat(group):
    return " ".join((group / "cpu.stat").read_text().split())


def vm_summary(rows, period_s):
    """(lateness summary, overrun count, emission jitter in ms) of a VM's (due, start, end) rows in s."""
    due, start, end = rows[:, 0], rows[:, 1], rows[:, 2]
    emission = end - due
    return summary_us(start - due), int(np.sum(end > due + period_s)), 1e3 * float(np.std(emission))


def _create_groups(guard, hierarchy, args, weights, quotas, meta):
    """The parent group and one group per VM, removed when ``guard`` ends; their settings into ``meta``."""
    parent_files = cgroups.settings(hierarchy.version, args.parent_weight, None, args.quota_period_us)
    parent = cgroups.create_parent(hierarchy, cgroup_name(os.getpid()), parent_files)
    guard.on_exit(f"remove cgroup {parent}", cgroups.remove_tree, parent)
    meta["cgroup_parent"] = " ".join([str(parent)] + [f"{file}={value}"
                                                      for file, value in parent_files.items()])
    groups = []
    for vm, (weight, quota) in enumerate(zip(weights, quotas)):
        files = cgroups.settings(hierarchy.version, weight, quota, args.quota_period_us)
        groups.append(cgroups.create_group(hierarchy, parent, f"vm{vm}", files))
        meta[f"cgroup_vm{vm}"] = " ".join(f"{file}={value}" for file, value in files.items())
    return groups


def _run_workers(guard, groups, args, iterations, ticks, start_ns, tmp):
    """Start every VM's workers in its group, wait for them; [(vm, worker, rows in s)] and CPU s per VM."""
    children = []
    for vm, group in enumerate(groups):
        for worker in range(args.workers):
            out = tmp / f"vm{vm}-{worker}.npz"
            argv = [sys.executable, "-m", "vsim.probe.cpu_worker", "--iterations", str(iterations),
                    "--period", repr(args.period), "--start-ns", str(start_ns), "--ticks", str(ticks),
                    "--out", str(out)]
            child = guard.start(argv, before_exec=partial(cgroups.join, group), stdin=subprocess.DEVNULL)
            children.append((f"vm{vm}", worker, child, out))
    results, cpu_s = [], {}
    for vm, worker, child, out in children:
        if child.wait() != 0:
            raise RuntimeError(f"worker {worker} of {vm} failed with exit code {child.returncode}")
        with np.load(out) as saved:
            results.append((vm, worker, (saved["rows"] - start_ns) / NS))
            cpu_s[vm] = cpu_s.get(vm, 0.0) + float(saved["cpu_s"])
    return results, cpu_s


def vm_lines(rows, planned, cpu_s, period_s):
    """(summary, CPU per tick) of one VM's ticks: their (due, start, end) ``rows`` in s out of ``planned``,
    and its workers' CPU time ``cpu_s``; plain words when it ran no tick."""
    if len(rows) == 0:
        return (f"no tick ran: all {planned} were never begun by the schedule's end (its workers got too "
                "little CPU to start in time)", "none: no tick ran")
    lateness, overruns, jitter_ms = vm_summary(rows, period_s)
    return (f"lateness {lateness}; overruns {overruns} of {len(rows)} ticks run "
            f"({planned - len(rows)} of {planned} never begun by the schedule's end); "
            f"emission jitter (std of end - due) {jitter_ms:.3f} ms",
            f"{1e3 * cpu_s / len(rows):.3f} (the workers' CPU time over the ticks they ran)")


def check_ran(results):
    """``InputError`` when no worker of [(vm, worker, rows)] ran a tick: the run measured nothing."""
    if not any(len(rows) for _, _, rows in results):
        raise InputError("vsim probe cpu", None, "no VM ran a tick before the schedule's end (their workers got "
                                                 "too little CPU to start in time), so no trace was written; "
                                                 "give them more CPU (--quota, --weight) or time (--duration)")


def _summaries(results, cpu_s, ticks, period_s, meta):
    """Per VM: lateness, overruns, ticks never begun, emission jitter, CPU per tick (into ``meta``); lines."""
    lines = []
    for vm in dict.fromkeys(name for name, _, _ in results):
        rows = np.concatenate([r for name, _, r in results if name == vm])
        planned = ticks * sum(1 for name, _, _ in results if name == vm)
        meta[f"summary_{vm}"], meta[f"cpu_ms_per_tick_{vm}"] = vm_lines(rows, planned, cpu_s[vm], period_s)
        lines.append(f"{vm}: {meta[f'summary_{vm}']}")
    return lines


def trace_columns(results):
    """The ``cpu_ticks`` trace columns of [(vm, worker, rows of (due, start, end) in s)]."""
    columns = {name: [] for name in ("vm", "worker", "tick", "scheduled_s", "start_s", "end_s")}
    for vm, worker, rows in results:
        columns["vm"] += [vm] * len(rows)
        columns["worker"] += [worker] * len(rows)
        columns["tick"] += list(range(len(rows)))
        columns["scheduled_s"] += list(rows[:, 0])
        columns["start_s"] += list(rows[:, 1])
        columns["end_s"] += list(rows[:, 2])
    return columns


def run(args, note):
    """Create the groups, run and collect the workers, remove the groups, write the trace."""
    weights = per_vm(args.weight, args.vms, "--weight", parse_weight)
    parse_weight(str(args.parent_weight), "--parent-weight")
    quotas = per_vm(args.quota, args.vms, "--quota", parse_quota)
    check_quotas(quotas, args.quota_period_us)
    check_workers(args.vms, args.workers)
    check_period("vsim probe cpu", args.period, args.duration, "each worker ticks")
    machine.require_root("cpu")
    hierarchy = cgroups.find_cpu_hierarchy()
    if hierarchy is None:
        raise InputError("vsim probe cpu", None, "needs a mounted cgroup hierarchy with the cpu controller "
                                                 "(cgroup v2, or v1 'cpu'); found none in /proc/mounts")
    cleanup.remove_dead("cpu", note)
    meta = machine.facts_before(command_line(args))
    iterations, ms_per_million = calibrate(args.work_ms)
    meta.update({"vms": args.vms, "workers_per_vm": args.workers, "work_ms": f"{args.work_ms:g}",
                 "period_s": f"{args.period:g}", "duration_s": f"{args.duration:g}",
                 "calibration": f"{iterations} iterations of spin() for {args.work_ms:g} ms: fastest of 5 "
                                f"trials {ms_per_million:.3f} ms CPU per million iterations",
                 "cgroup_interface": f"v{hierarchy.version} at {hierarchy.root}",
                 "workers": "one process per worker, not pinned"})
    note(f"vsim: probe cpu: {args.vms} VM(s) x {args.workers} worker(s), {meta['calibration']}; "
         f"running {args.duration:g} s")
    ticks = max(1, int(args.duration / args.period))
    delay_s = START_DELAY_S + PER_WORKER_S * args.vms * args.workers
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=tmp_prefix(os.getpid(), "cpu")) as tmp, \
            Guard(delay_s + args.duration + MARGIN_S) as guard:
        groups = _create_groups(guard, hierarchy, args, weights, quotas, meta)
        start_ns = now_ns() + int(delay_s * NS)
        results, cpu_s = _run_workers(guard, groups, args, iterations, ticks, start_ns, Path(tmp))
        for vm, group in enumerate(groups):
            meta[f"cpu_stat_vm{vm}"] = _cpu_stat(group)
    meta.update(machine.facts_after(meta, time.monotonic() - began))
    check_ran(results)
    lines = _summaries(results, cpu_s, ticks, args.period, meta)
    write_trace(args.out, "cpu_ticks", trace_columns(results), meta)
    return "\n".join(lines + [f"wrote {args.out}"])
