"""Outer worlds (an outer hypervisor's steal) ahead of the host's own scheduler, which never sees them."""

import pytest
import simpy
from hypothesis import given, settings, strategies as st

from busy_worlds import add_busy_worlds
from vsim.core.environment import scheduler_for
from vsim.cpu.machine import Machine
from vsim.cpu.policies import make_policy
from vsim.cpu.policies.outer_first import OuterFirst
from vsim.cpu.topology import Topology
from vsim.cpu.world import IDLE, RUN, Group, World

EEVDF = {"variant": "eevdf", "tunable_scaling": "log", "base_slice": 7e-4, "place_lag": True,
         "run_to_parity": True}


def host(cpus, linux, threads=1, ht_rate=1.0):
    inner = make_policy("linux_fair", **EEVDF) if linux else make_policy("proportional_share")
    policy = OuterFirst(inner)
    return Machine(simpy.Environment(), Topology(1, cpus, threads, ht_rate), policy, quantum=0.004), policy


def outer_world(machine, policy, lcpu):
    group = Group(f"outer{lcpu}", cosched=False)
    world = World(f"outer{lcpu}", group, affinity=(lcpu,))
    policy.add_outer(world)
    machine.add_group(group)
    return world


def used(world, now):
    return world.used + (now - world.run_start if world.state == RUN else 0.0)


@pytest.mark.parametrize("linux", [False, True])
def test_an_outer_world_takes_its_cpu_at_once_and_keeps_it(linux):
    machine, policy = host(2, linux)
    busy = add_busy_worlds(machine, 3, linux)
    outer = outer_world(machine, policy, 1)
    starts = []
    outer.on_start = lambda world: starts.append(machine.env.now)
    machine.env.run(until=0.1)
    machine.submit(outer, 0.05, lambda _w: None)
    assert outer.state == RUN and outer.lcpu == 1 and starts == [0.1]
    machine.env.run(until=0.15 - 1e-9)
    assert outer.state == RUN and starts == [0.1]  # ticks every 4 ms never took it back
    machine.env.run(until=0.16)
    assert outer.state == IDLE and outer.used == pytest.approx(0.05)
    assert machine.lcpu_world[1] in busy  # the host's worlds have the CPU again


@pytest.mark.parametrize("linux", [False, True])
def test_an_outer_world_on_an_idle_cpu_just_runs(linux):
    machine, policy = host(2, linux)
    outer = outer_world(machine, policy, 0)
    machine.submit(outer, 0.01, lambda _w: None)
    assert machine.lcpu_world[0] is outer
    machine.env.run(until=0.02)
    assert outer.state == IDLE and outer.used == pytest.approx(0.01)


def test_an_outer_world_must_be_pinned_to_one_cpu():
    machine, policy = host(2, False)
    with pytest.raises(ValueError, match="pinned to one logical CPU"):
        policy.add_outer(World("loose", Group("loose")))


@settings(max_examples=12, deadline=None)
@given(st.booleans(), st.integers(3, 5), st.sampled_from([0.25, 0.5, 0.75]))
def test_the_host_shares_what_is_left_fairly(linux, count, fraction):
    """Half a CPU (or a quarter, or three) taken in 20 ms blocks from CPU 0 of two: the host's
    equal worlds still share the rest equally, and the rest is all they get."""
    machine, policy = host(2, linux)
    busy = add_busy_worlds(machine, count, linux)
    outer = outer_world(machine, policy, 0)
    period = 0.02
    call_later = scheduler_for(machine.env)

    def block(_arg):
        machine.submit(outer, fraction * period, lambda _w: None)
        call_later(period, block, None)

    call_later(0.0, block, None)
    machine.env.run(until=4.0)
    shares = [used(world, 4.0) for world in busy]
    assert sum(shares) == pytest.approx(4.0 * (2 - fraction), rel=1e-3)
    assert max(shares) - min(shares) <= 0.03 * max(shares)


class Spy:
    """A policy that notes, at every call, whether it could see an outer world, then asks ``real``."""

    def __init__(self, real, outer):
        self.real, self.outer, self.calls, self.seen = real, outer, 0, []

    def _look(self, machine, name, *worlds):
        self.calls += 1
        visible = [w for w in (*machine.lcpu_world, *machine.ready, *worlds) if w is not None]
        if name == "entitle":  # the only call that reads the groups
            visible += [w for group in machine.groups for w in group.worlds]
        self.seen += [(name, w.name) for w in visible if w in self.outer]

    def __getattr__(self, name):
        method = getattr(self.real, name)
        if not callable(method):  # a capability (``CpuPolicy.run_queue_hooks``, ...): as it is
            return method

        def call(machine, *args):
            self._look(machine, name, *(a for a in args if isinstance(a, World)),
                       *(w for a in args if isinstance(a, list) for w in a))
            return method(machine, *args)
        return call


@pytest.mark.parametrize("linux", [False, True])
def test_the_inner_policy_never_sees_an_outer_world(linux):
    outer = set()
    real = make_policy("linux_fair", **EEVDF) if linux else make_policy("proportional_share")
    spy = Spy(real, outer)
    policy = OuterFirst(spy)
    machine = Machine(simpy.Environment(), Topology(1, 2, 1, 1.0), policy, quantum=0.004)
    group = Group("outer0", cosched=False)
    world = World("outer0", group, affinity=(0,))
    policy.add_outer(world)
    outer.add(world)
    machine.add_group(group)
    add_busy_worlds(machine, 3, linux)
    call_later = scheduler_for(machine.env)

    def sleeper(_arg):  # a world that wakes every 3 ms, so the inner policy is asked often
        if napper.state == IDLE:
            machine.submit(napper, 0.001, lambda _w: None)
        call_later(0.003, sleeper, None)

    nap_group = Group("napper", shares=100.0 if linux else 1000.0, cosched=False)
    napper = World("napper", nap_group)
    machine.add_group(nap_group)
    call_later(0.0, sleeper, None)
    for start in (0.01, 0.05, 0.09):
        call_later(start, lambda _a: machine.submit(world, 0.02, lambda _w: None), None)
    machine.env.run(until=0.2)
    assert world.used == pytest.approx(0.06)
    assert spy.calls > 50 and spy.seen == []


def test_entitlements_leave_the_outer_groups_out():
    outer = set()
    spy = Spy(make_policy("proportional_share"), outer)
    policy = OuterFirst(spy)
    machine = Machine(simpy.Environment(), Topology(1, 2, 1, 1.0), policy, quantum=0.004)
    reserved = Group("reserved", reservation=0.5, cosched=False)
    World("reserved.0", reserved)
    machine.add_group(reserved)
    group = Group("outer1", cosched=False)
    world = World("outer1", group, affinity=(1,))
    policy.add_outer(world)
    outer.add(world)
    machine.add_group(group)  # entitles again, with the outer group registered
    assert spy.calls == 2 and spy.seen == []
    assert machine.groups == [reserved, group]
