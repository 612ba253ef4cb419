"""A policy that only follows the protocol (no ``PolicyCalls`` base) is called through
``ForwardedCalls`` and schedules exactly as the same policy called natively."""

import pytest

from vsim.core.environment import Environment
from vsim.cpu.machine import Machine
from vsim.cpu.policies import make_policy
from vsim.cpu.policies.calls import ForwardedCalls, PolicyCalls, calls_of
from vsim.cpu.topology import Topology
from vsim.cpu.world import Group, World


class Delegating:
    """The protocol's methods and flags, each passed on to ``inner``: not a ``PolicyCalls``."""

    def __init__(self, inner):
        self.inner = inner

    def __getattr__(self, name):
        return getattr(self.inner, name)


def run(policy_name, wrap):
    env = Environment()
    policy = make_policy(policy_name)
    machine = Machine(env, Topology(1, 2, 2, 0.6), Delegating(policy) if wrap else policy)
    ends = []
    for index, shares in enumerate((500.0, 1000.0, 2000.0)):
        group = Group(f"vm{index}", shares=shares)
        worlds = [World(f"vm{index}.{i}", group) for i in range(3)]
        machine.add_group(group)
        for world in worlds:
            machine.submit(world, 0.05 + 0.01 * index, lambda w: ends.append((w.name, env.now)) or None)
    env.run(until=2.0)
    return ends, [(w.name, w.used) for w in machine.worlds]


@pytest.mark.parametrize("policy_name", ["proportional_share", "xen_credit"])
def test_a_protocol_only_policy_schedules_as_the_policy_itself(policy_name):
    assert isinstance(calls_of(make_policy(policy_name)), PolicyCalls)
    assert isinstance(calls_of(Delegating(make_policy(policy_name))), ForwardedCalls)
    assert run(policy_name, wrap=True) == run(policy_name, wrap=False)
