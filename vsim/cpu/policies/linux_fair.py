"""Linux's fair scheduling class on a KVM host: EEVDF (6.6 and later) or CFS (up to 6.5),
with cgroup v2 ``cpu.weight`` and ``cpu.max``.

Every world is a task (a vCPU thread, a vhost thread) and every group a cgroup
whose ``shares`` are its ``cpu.weight`` (1-10000, default 100; a cgroup v1
``cpu.shares`` of 1024 is weight 100). The kernel turns a weight into a load
of ``weight * 1024 / 100`` (``cpu_weight_write_u64``, kernel/sched/core.c) and
splits it over the cgroup's runnable tasks; a task's virtual runtime advances
by ``delta_exec * NICE_0_LOAD / weight`` (``calc_delta_fair``, kernel/sched/fair.c).
``cpu.max`` is the group's ``limit`` (CPUs) over the machine's ``period``: the
machine throttles a group that used ``limit * period`` in a period until the
next one, as CFS bandwidth control does, and tells this policy through its
``on_block`` and ``on_unthrottle`` hooks, so a throttled cgroup leaves the
run queue (keeping its lag) and is placed again when its quota is refilled.

To model a host: ``Machine(env, topology, make_policy("linux_fair",
variant="eevdf"), quantum=tick, period=cpu_max_period)`` and one
``Group(name, shares=cpu_weight, limit=quota / period)`` per cgroup with a
``World`` per thread; a scheduler model file gives the same through
``SchedulerModel.policy_params()`` (``models/schedulers/linux_eevdf.toml``).

The variants: ``vsim.cpu.policies.linux_eevdf`` and ``vsim.cpu.policies.linux_cfs``,
over the run queue they share, ``vsim.cpu.policies.fair_queue``.
"""

from typing import Any

from vsim.cpu.policies.linux_cfs import Cfs
from vsim.cpu.policies.linux_eevdf import Eevdf


def linux_fair(variant: str = "eevdf", **params: Any) -> Eevdf | Cfs:
    """Linux's fair class: ``variant`` "eevdf" (6.6 and later) or "cfs" (up to 6.5)."""
    if variant == "eevdf":
        return Eevdf(**params)
    if variant == "cfs":
        return Cfs(**params)
    raise ValueError(f"expected variant 'eevdf' or 'cfs', got {variant!r}")
