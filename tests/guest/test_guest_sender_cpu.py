"""A traffic VM's CPU: sender threads that spin while it sends and a transmit world paid per frame."""

import pytest

from vsim.core.environment import Environment
from vsim.cpu.machine import Machine
from vsim.cpu.policies import make_policy
from vsim.cpu.topology import Topology
from vsim.cpu.world import Group, World
from vsim.guest.sender_cpu import CHUNK, SenderCpu


def sender(rates, vcpus=2, tx_cost=2e-6, cores=4):
    """A SenderCpu on a host of ``cores`` cores; ``rates`` is a mutable [frames/s]."""
    env = Environment()
    machine = Machine(env, Topology(1, cores, 1, 1.0), make_policy("proportional_share"))
    group = Group("flood", shares=1000.0 * vcpus)
    worlds = [World(f"flood.vcpu{i}", group) for i in range(vcpus)]
    machine.add_group(group)
    tx_group = Group("flood.vnic-tx", cosched=False)
    tx = World("flood.vnic-tx", tx_group)
    machine.add_group(tx_group)
    return env, worlds, tx, SenderCpu(env, machine, worlds, tx, tx_cost, lambda: rates[0])


def used(world, now):
    return world.used + (now - world.run_start if world.lcpu is not None else 0.0)


def test_silent_sender_uses_nothing():
    env, worlds, tx, cpu = sender([0.0])
    cpu.wake()
    env.run(until=1.0)
    assert all(used(w, 1.0) == 0 for w in worlds + [tx])


def test_sender_threads_spin_and_frames_cost_while_it_sends():
    rates = [100_000.0]
    env, worlds, tx, cpu = sender(rates)
    cpu.wake()
    env.run(until=2.0)
    assert [used(w, 2.0) for w in worlds] == [pytest.approx(2.0)] * 2
    # the frames of every whole chunk so far, each costing tx_cost
    assert used(tx, 2.0) == pytest.approx(100_000 * 2e-6 * 2.0, abs=100_000 * 2e-6 * 2 * CHUNK)


def test_a_stopped_sender_goes_idle():
    rates = [50_000.0]
    env, worlds, tx, cpu = sender(rates)
    cpu.wake()
    env.run(until=1.0)
    rates[0] = 0.0
    cpu.wake()
    env.run(until=3.0)
    assert [used(w, 3.0) for w in worlds] == [pytest.approx(1.0, abs=CHUNK)] * 2
    assert used(tx, 3.0) == pytest.approx(50_000 * 2e-6 * 1.0, abs=50_000 * 2e-6 * 2 * CHUNK)


def test_a_busy_host_slows_the_senders():
    env, worlds, tx, cpu = sender([10_000.0], vcpus=4, cores=2)
    cpu.wake()
    env.run(until=2.0)
    assert sum(used(w, 2.0) for w in worlds + [tx]) == pytest.approx(2 * 2.0, rel=1e-6)
