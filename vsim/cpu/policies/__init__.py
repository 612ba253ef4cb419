"""vCPU scheduling policies, one module each, looked up by name.

A policy decides; ``vsim.cpu.machine.Machine`` carries the decision out. A
new scheduler is one module with a class offering ``entitle`` (called when
groups with reservations join the machine), ``on_wake``, ``pick``,
``preempt_victim``, ``preempts_at_quantum`` and ``charge``, plus an entry in
``POLICIES``; one that keeps a run queue of its own may also offer the
machine's ``on_block`` and ``on_unthrottle`` hooks.
"""

from vsim.cpu.policies.linux_fair import linux_fair
from vsim.cpu.policies.proportional_share import ProportionalShare

POLICIES = {
    "proportional_share": ProportionalShare,
    "linux_fair": linux_fair,
}


def make_policy(name, **params):
    """Instantiate the policy registered under ``name``."""
    try:
        cls = POLICIES[name]
    except KeyError:
        raise ValueError(f"unknown scheduler {name!r}; expected one of {sorted(POLICIES)}") from None
    return cls(**params)
