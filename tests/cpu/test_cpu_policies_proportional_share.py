"""The proportional-share policy: its wake rule (the virtual clock is the lowest runnable virtual
time) and its entitlements (shares, reservations and limits water-filled over the host)."""

import math

import pytest
import simpy
from hypothesis import assume, given, strategies as st

from vsim.cpu.machine import Machine
from vsim.cpu.policies import make_policy
from vsim.cpu.policies.proportional_share import share_price
from vsim.cpu.policies.protocol import host_shares
from vsim.cpu.topology import Topology
from vsim.cpu.world import Group, World


def machine_with(n_lcpus=1, wake_credit=0.001):
    env = simpy.Environment()
    policy = make_policy("proportional_share", wake_credit=wake_credit, wake_granularity=0.001)
    machine = Machine(env, Topology(1, n_lcpus, 1, 1.0), policy, quantum=0.05)
    return env, machine, policy


def world(machine, name, shares=1000.0):
    group = Group(name, shares=shares)
    w = World(name, group)
    machine.add_group(group)
    return w


def test_a_sleeper_wakes_just_below_the_lowest_runnable_virtual_time():
    env, machine, policy = machine_with(n_lcpus=2)
    hog_low, hog_high, sleeper = (world(machine, n) for n in ("low", "high", "sleeper"))
    hog_high.vtime = 5.0
    for hog in (hog_low, hog_high):
        machine.submit(hog, 10.0, lambda _w: None)
    env.run(until=0.3)
    env.timeout(0).callbacks.append(lambda _e: machine.submit(sleeper, 0.001, lambda _w: None))
    env.run(until=0.3 + 1e-9)
    # The lowest runnable virtual time is the low hog's: 0.3 s of running at reference shares.
    assert sleeper.vtime == pytest.approx(0.3 - 0.001, abs=1e-9)


def test_the_virtual_clock_never_moves_back():
    env, machine, policy = machine_with(n_lcpus=2)
    hog, early, late = world(machine, "hog"), world(machine, "early"), world(machine, "late")
    machine.submit(hog, 0.2, lambda _w: None)
    env.run(until=0.1)
    machine.submit(early, 0.01, lambda _w: None)
    assert early.vtime == pytest.approx(0.1 - 0.001)
    env.run(until=0.5)
    assert hog.state == early.state == 0
    # Nothing is runnable now: the clock keeps its last value instead of falling to zero.
    machine.submit(late, 0.01, lambda _w: None)
    assert policy.vclock == pytest.approx(0.1)
    assert late.vtime == pytest.approx(0.1 - 0.001)


def test_a_sleeper_does_not_wait_out_a_hogs_quantum():
    """Two hogs share one CPU; a 0.5 ms job every 20 ms starts within a few ms, not 50."""
    env, machine, _ = machine_with()
    a, b, sleeper = world(machine, "a"), world(machine, "b"), world(machine, "sleeper")
    for hog in (a, b):
        machine.submit(hog, 1.0, lambda _w: 1.0)
    delays = []

    def tick(_event=None):
        if sleeper.state == 0:
            woke = env.now
            machine.submit(sleeper, 0.0005, lambda _w, woke=woke: delays.append(env.now - woke) and None)
        env.timeout(0.02).callbacks.append(tick)

    env.timeout(0.013).callbacks.append(tick)
    env.run(until=5.0)
    assert len(delays) > 200
    assert sum(delays) / len(delays) < 0.005


# ------------------------------------------------------------- entitlements
def groups_of(specs):
    """Groups from (shares, reservation, limit, worlds) tuples."""
    groups = []
    for i, (shares, reservation, limit, worlds) in enumerate(specs):
        group = Group(f"g{i}", shares=shares, reservation=reservation, limit=limit)
        for j in range(worlds):
            World(f"g{i}.{j}", group)
        groups.append(group)
    return groups


def allotted(group, price):
    return min(group.limit, len(group.worlds), max(group.reservation, price * group.shares))


def test_share_price_without_reservations_is_capacity_over_shares():
    groups = groups_of([(1000.0, 0.0, math.inf, 4), (3000.0, 0.0, math.inf, 4)])
    assert share_price(groups, 4.0) == pytest.approx(4.0 / 4000.0)
    assert share_price(groups, 8.0) == math.inf  # every group gets all its worlds can use


@given(st.lists(st.tuples(st.floats(1.0, 1e5), st.floats(0.0, 1.0), st.floats(0.5, 8.0),
                          st.integers(1, 4)), min_size=1, max_size=6),
       st.floats(1.0, 16.0))
def test_entitlements_fill_the_host_and_honour_reservations_and_caps(specs, capacity):
    """Each group gets at least its reservation (when the reservations fit) and at most its
    limit and world count, groups held back by neither get CPUs in proportion to their
    shares, and the entitlements add up to the host's capacity when it is contended."""
    specs = [(s, min(r, l, w), l, w) for s, r, l, w in specs]  # reservation within limit and worlds
    assume(sum(r for _, r, _, _ in specs) <= capacity)
    groups = groups_of(specs)
    price = share_price(groups, capacity)
    caps = [min(g.limit, len(g.worlds)) for g in groups]
    if price == math.inf:
        assert sum(caps) <= capacity
        return
    got = [allotted(g, price) for g in groups]
    assert sum(got) == pytest.approx(capacity, rel=1e-9)
    for g, e, cap in zip(groups, got, caps):
        assert g.reservation - 1e-9 <= e <= cap + 1e-9
        if g.reservation < price * g.shares < cap:
            assert e == pytest.approx(price * g.shares)


def test_entitle_gives_a_reservation_above_its_share_the_shares_that_would_give_it():
    env, machine, policy = machine_with(n_lcpus=1)
    small, big = Group("small", shares=1000.0, reservation=0.6), Group("big", shares=9000.0)
    World("small.0", small)
    World("big.0", big)
    machine.add_group(small)
    machine.add_group(big)
    # one CPU: the reservation takes 0.6, the 9000 shares the other 0.4
    assert small.worlds[0].share / big.worlds[0].share == pytest.approx(0.6 / 0.4)
    within = Group("within", shares=1000.0, reservation=0.01)  # its share is 0.04
    World("within.0", within)
    machine.add_group(within)
    assert within.worlds[0].share == 1000.0


def test_host_shares_are_the_groups_shares_at_the_host_s_price_within_limit_and_worlds():
    """Three single-world groups of 1000, 1000 and 2000 shares on two CPUs, the first limited to
    0.25: it takes its limit, the 2000-share one its one world's CPU, the third the 0.75 left,
    which sets the price (0.75 CPUs per 1000 shares). The policy answers for the groups asked
    about only."""
    _, machine, policy = machine_with(n_lcpus=2)
    for name, shares in (("a", 1000.0), ("b", 1000.0), ("c", 2000.0)):
        world(machine, name, shares)
    machine.groups[0].limit = 0.25
    assert host_shares(policy, machine, machine.groups) == pytest.approx(
        {"a": 0.25, "b": 0.75, "c": 1.0})
    assert set(host_shares(policy, machine, machine.groups[1:])) == {"b", "c"}


@pytest.mark.parametrize("variant", ["cfs", "eevdf"])
def test_a_policy_without_share_arithmetic_names_no_share_of_the_host(variant):
    policy = make_policy("linux_fair", variant=variant)
    machine = Machine(simpy.Environment(), Topology(1, 2, 1, 1.0), policy, quantum=0.05)
    world(machine, "a")
    assert host_shares(policy, machine, machine.groups) is None
