"""The proportional-share policy's wake rule: the virtual clock is the lowest runnable virtual time."""

import simpy
import pytest

from vsim.cpu.machine import Machine
from vsim.cpu.policies import make_policy
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
