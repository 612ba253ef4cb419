"""vCPU scheduling policies, one module each, looked up by name.

A policy decides; ``vsim.cpu.machine.Machine`` carries the decision out. A
new scheduler is one module with a class offering ``entitle`` (called when
groups with reservations join the machine), ``on_wake``, ``pick``,
``preempt_victim``, ``preempts_at_quantum`` and ``charge``, plus an entry in
``POLICIES``.
"""

from vsim.cpu.policies.proportional_share import ProportionalShare

POLICIES = {
    "proportional_share": ProportionalShare,
}


def make_policy(name, **params):
    """Instantiate the policy registered under ``name``."""
    try:
        cls = POLICIES[name]
    except KeyError:
        raise ValueError(f"unknown scheduler {name!r}; expected one of {sorted(POLICIES)}") from None
    return cls(**params)
