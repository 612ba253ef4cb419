"""Facts about the machine a probe runs on, and the checks a probe needs before it starts.

A measured trace is only useful if the machine that took it is known: the
kernel, the number of CPUs, how much CPU time the hypervisor stole from this
(virtual) machine while it ran, and how loaded it was. ``facts_before`` and
``facts_after`` return those as trace metadata; a probe records both.
"""

import os
import platform
import shutil
import time

from vsim.core.errors import InputError

USER_HZ = os.sysconf("SC_CLK_TCK")


def steal_seconds(stat_text=None):
    """CPU time stolen by the hypervisor, summed over CPUs, in s (the 8th field of /proc/stat's cpu line)."""
    if stat_text is None:
        with open("/proc/stat", encoding="ascii") as stat:
            stat_text = stat.read()
    for line in stat_text.splitlines():
        fields = line.split()
        if fields and fields[0] == "cpu":
            return int(fields[8]) / USER_HZ if len(fields) > 8 else 0.0
    raise ValueError("no aggregate 'cpu' line in /proc/stat")


def load_average():
    """The 1, 5 and 15 minute load averages as one string."""
    with open("/proc/loadavg", encoding="ascii") as loadavg:
        return " ".join(loadavg.read().split()[:3])


def facts_before(command):
    """Metadata recorded when a probe starts: the command, the machine and its state."""
    return {
        "command": command,
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "kernel": platform.release(),
        "machine": platform.machine(),
        "cpus_online": os.cpu_count(),
        "cpus_usable": len(os.sched_getaffinity(0)),
        "python": platform.python_version(),
        "loadavg_before": load_average(),
        "steal_s_before": f"{steal_seconds():.2f}",
    }


def facts_after(before, elapsed_s):
    """Metadata recorded when a probe ends: load, steal seen since ``before`` (s, to the counter's resolution)
    and its percentage of the CPUs' time (3 significant digits, so that a small share does not read 0)."""
    steal = steal_seconds()
    stolen = steal - float(before["steal_s_before"])
    cpus = before["cpus_online"] or 1
    return {
        "loadavg_after": load_average(),
        "steal_s_after": f"{steal:.2f}",
        "steal_s_during": f"{stolen:.2f}",
        "steal_pct_of_cpus": f"{100 * stolen / (elapsed_s * cpus):.3g}" if elapsed_s > 0 else "n/a",
        "elapsed_s": f"{elapsed_s:.3f}",
    }


def require_root(probe):
    """``InputError`` unless this process is root (namespaces, tc and cgroups need it)."""
    if os.geteuid() != 0:
        raise InputError(f"vsim probe {probe}", None,
                         "needs root (it creates namespaces, qdiscs or cgroups); run it as root")


def require_tools(probe, *tools, hint=""):
    """The full paths of ``tools``; ``InputError`` naming the first one missing from PATH."""
    paths = []
    for tool in tools:
        path = shutil.which(tool)
        if path is None:
            raise InputError(f"vsim probe {probe}", None,
                             f"needs '{tool}' on PATH, not found{'; ' + hint if hint else ''}")
        paths.append(path)
    return paths
