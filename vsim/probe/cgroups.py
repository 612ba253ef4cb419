"""CPU cgroups for the CPU probe: one parent group per probe, one child group per "VM".

cgroup v2 is used when its hierarchy has the cpu controller (cpu.weight,
cpu.max). On hybrid machines where the cpu controller is bound to a cgroup
v1 hierarchy instead, the same settings are written as v1 files the way the
kernel relates them: cpu.shares = weight * 1024 / 100 (weight 100, the
default, is 1024 shares) and cpu.cfs_quota_us / cpu.cfs_period_us for
cpu.max (-1 for 'max'). The trace records which interface was used. The
kernel takes a period of 1 ms to 1 s and a quota of at least 1 ms per period
(and below 2^44 us); the CPU probe refuses values outside those bounds.
"""

import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

DEFAULT_WEIGHT = 100
DEFAULT_SHARES = 1024
MIN_PERIOD_US = 1000
MAX_PERIOD_US = 1_000_000
MIN_QUOTA_US = 1000
MAX_QUOTA_US = 2**44 - 1


@dataclass(frozen=True)
class Hierarchy:
    """The mounted hierarchy holding the cpu controller: cgroup version (1 or 2) and mount point."""

    version: int
    root: Path


def find_cpu_hierarchy(mounts_text=None, controllers=None):
    """The hierarchy with the cpu controller, v2 preferred; None if there is none.

    ``mounts_text`` is /proc/mounts' text and ``controllers(root)`` returns a
    v2 root's cgroup.controllers (both read from the system by default).
    """
    if mounts_text is None:
        mounts_text = Path("/proc/mounts").read_text()
    if controllers is None:
        def controllers(root):
            return (root / "cgroup.controllers").read_text().split()
    v1 = None
    for line in mounts_text.splitlines():
        fields = line.split()
        if len(fields) < 4:
            continue
        root, fstype, options = Path(fields[1]), fields[2], fields[3].split(",")
        if fstype == "cgroup2" and "cpu" in controllers(root):
            return Hierarchy(2, root)
        if fstype == "cgroup" and "cpu" in options and v1 is None:
            v1 = Hierarchy(1, root)
    return v1


def shares_of_weight(weight):
    """cgroup v1 cpu.shares for a v2 cpu.weight (weight 100 = 1024 shares)."""
    return max(2, round(weight * DEFAULT_SHARES / DEFAULT_WEIGHT))


def quota_us_of(quota_cpus, period_us):
    """The cpu.max quota, us per period of ``period_us``, that gives ``quota_cpus`` CPUs."""
    return round(quota_cpus * period_us)


def settings(version, weight, quota_cpus, period_us):
    """{file: value} that set a group's weight and quota (``quota_cpus`` None: no limit)."""
    quota_us = None if quota_cpus is None else quota_us_of(quota_cpus, period_us)
    if version == 2:
        return {"cpu.weight": str(weight),
                "cpu.max": f"{'max' if quota_us is None else quota_us} {period_us}"}
    return {"cpu.shares": str(shares_of_weight(weight)), "cpu.cfs_period_us": str(period_us),
            "cpu.cfs_quota_us": str(-1 if quota_us is None else quota_us)}


def create_parent(hierarchy, name, files=None):
    """Create the probe's parent group (v2: with the cpu controller enabled for its children) and write
    its ``files`` (its own weight against the rest of the machine)."""
    parent = hierarchy.root / name
    parent.mkdir()
    if hierarchy.version == 2:
        (hierarchy.root / "cgroup.subtree_control").write_text("+cpu")
        (parent / "cgroup.subtree_control").write_text("+cpu")
    for file, value in (files or {}).items():
        (parent / file).write_text(value)
    return parent


def create_group(hierarchy, parent, name, files):
    """Create the child group ``name`` under ``parent`` and write its ``files``; its path."""
    group = parent / name
    group.mkdir()
    for file, value in files.items():
        (group / file).write_text(value)
    return group


def join(group, pid=0):
    """Move process ``pid`` (0: the caller) into ``group``."""
    (group / "cgroup.procs").write_text(str(pid or os.getpid()))


def _pids(group):
    try:
        return [int(pid) for pid in (group / "cgroup.procs").read_text().split()]
    except FileNotFoundError:
        return []


def _kill_all(pids):
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _remove_group(path, deadline):
    """Kill the processes in ``path`` and remove it, again and again until ``deadline`` (a killed
    process takes a moment to leave, and one may join meanwhile: a child the probe was starting);
    whether it is gone, and why not."""
    while True:
        _kill_all(_pids(path))
        try:
            path.rmdir()
            return True, None
        except FileNotFoundError:
            return True, None
        except OSError as exc:
            if time.monotonic() > deadline:
                return False, exc.strerror or str(exc)
            time.sleep(0.01)


def _and(items):
    items = [str(item) for item in items]
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def remove_tree(group, timeout_s=5.0):
    """Kill every process in ``group`` and its descendants, then remove the groups, deepest first.

    A group that is still there after ``timeout_s`` (its processes would not die, say) is
    left, and so are the groups above it, while the others are still removed; then a
    ``RuntimeError`` names each group that remains, why, and the processes still in them.
    """
    if not group.exists():
        return
    groups = sorted((path for path in group.rglob("*") if path.is_dir()), key=lambda p: len(p.parts),
                    reverse=True) + [group]
    deadline = time.monotonic() + timeout_s
    reasons = {}
    for path in groups:
        gone, reason = _remove_group(path, deadline)
        if not gone:
            reasons[reason] = None
    remaining = [path for path in groups if path.exists()]
    if remaining:
        held = [f"{pid} in {path}" for path in remaining for pid in _pids(path)]
        raise RuntimeError(f"{_and(remaining)} remain{'s' if len(remaining) == 1 else ''} "
                           f"({'; '.join(reasons)}{'; processes ' + ', '.join(held) if held else ''})")
