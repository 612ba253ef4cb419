"""vCPU scheduling policies, one module each, looked up by name.

A policy decides; ``vsim.cpu.machine.Machine`` carries the decision out. A
new scheduler is one module with a class offering what
``vsim.cpu.policies.protocol.CpuPolicy`` lists: ``entitle`` (called when
groups with reservations join the machine), ``on_wake``, ``pick``,
``preempt_victim``, ``slice_end``, ``preempts_at_quantum`` and ``charge``; the
run-queue hooks ``on_block`` and ``on_unthrottle``, called only if it sets
``run_queue_hooks`` (one that keeps a run queue of its own); and the
capabilities ``tick_every_cpu``, ``tick_on_grid`` and ``preempts_when_released``. Plus an entry
in ``POLICIES``, which mypy checks against the protocol.
"""

from typing import Any, Dict

from vsim.cpu.policies.linux_fair import linux_fair
from vsim.cpu.policies.proportional_share import ProportionalShare
from vsim.cpu.policies.protocol import CpuPolicy, PolicyFactory
from vsim.cpu.policies.xen_credit import XenCredit

POLICIES: Dict[str, PolicyFactory] = {
    "proportional_share": ProportionalShare,
    "linux_fair": linux_fair,
    "xen_credit": XenCredit,
}


def make_policy(name: str, **params: Any) -> CpuPolicy:
    """Instantiate the policy registered under ``name``."""
    try:
        cls = POLICIES[name]
    except KeyError:
        raise ValueError(f"unknown scheduler {name!r}; expected one of {sorted(POLICIES)}") from None
    return cls(**params)
