"""A traffic VM's CPU: spinning or paced senders, their interrupts, a transmit world paid per frame."""

import math

import pytest
from hypothesis import given, strategies as st

from vsim.core.environment import Environment
from vsim.cpu.machine import Machine
from vsim.cpu.policies import make_policy
from vsim.cpu.topology import Topology
from vsim.cpu.world import Group, World
from vsim.guest.sender_cpu import CHUNK, MAX_OWED, SenderCpu


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


def test_a_flood_faster_than_its_transmit_world_is_handed_over_at_the_worlds_pace():
    """A flood asks for 1 M frames/s of a transmit world that forwards 333 K/s (3 us each): its
    threads keep spinning, and once the world is behind the flood offers what the world
    forwards, not its nominal rate in bursts between pauses."""
    nominal, tx_cost = 1_000_000.0, 3e-6
    env, worlds, tx, cpu = sender([nominal], tx_cost=tx_cost)
    offered = []
    cpu.rate = lambda: min(nominal, cpu.allowance)
    cpu.on_allowance = lambda allowance: offered.append((env.now, min(nominal, allowance)))
    cpu.wake()
    env.run(until=2.0)
    assert [used(w, 2.0) for w in worlds] == [pytest.approx(2.0)] * 2
    assert used(tx, 2.0) == pytest.approx(2.0, abs=2 * CHUNK)  # the world never idles
    steady = [pps for when, pps in offered if when > 0.1]
    assert steady and max(steady) <= 1.02 / tx_cost and min(steady) >= 0.98 / tx_cost
    assert cpu.transmit.owed(env.now) <= MAX_OWED + CHUNK


def test_a_busy_host_slows_the_senders():
    env, worlds, tx, cpu = sender([10_000.0], vcpus=4, cores=2)
    cpu.wake()
    env.run(until=2.0)
    assert sum(used(w, 2.0) for w in worlds + [tx]) == pytest.approx(2 * 2.0, rel=1e-6)


class StepInterrupts:
    """A vNIC's completion interrupts: ``before``/s, then ``after``/s from ``changed``."""

    def __init__(self, before, after=None, changed=math.inf):
        self.before, self.after, self.changed = before, before if after is None else after, changed

    def raised(self, t):
        return self.before * min(t, self.changed) + self.after * max(t - self.changed, 0.0)


def one_vcpu_host():
    """(env, machine, vCPU, transmit world) of a one-vCPU VM on an otherwise idle 4-core host."""
    env = Environment()
    machine = Machine(env, Topology(1, 4, 1, 1.0), make_policy("proportional_share"))
    group = Group("sender", shares=1000.0)
    vcpu = World("sender.vcpu0", group)
    machine.add_group(group)
    tx_group = Group("sender.vnic-tx", cosched=False)
    tx = World("sender.vnic-tx", tx_group)
    machine.add_group(tx_group)
    return env, machine, vcpu, tx


def one_vcpu_sender(rate, interrupts, *, spin, tx_cost=3e-6, frame_cost=1e-6,
                    interrupt_cost=5e-6):
    """A one-vCPU sender raising ``interrupts``/s on an otherwise idle 4-core host."""
    env, machine, vcpu, tx = one_vcpu_host()
    cpu = SenderCpu(env, machine, [vcpu], tx, tx_cost, lambda: rate, spin=spin,
                    interrupts=StepInterrupts(interrupts), interrupt_cost=interrupt_cost,
                    frame_cost=frame_cost)
    return env, vcpu, tx, cpu


@given(st.floats(1e3, 2e5), st.floats(0, 4000))  # both worlds under one core
def test_a_paced_sender_uses_what_its_frames_and_interrupts_cost(pps, per_s):
    env, vcpu, tx, cpu = one_vcpu_sender(pps, per_s, spin=False)
    cpu.wake()
    env.run(until=1.0 + CHUNK / 2)
    # the work of the 100 chunks of the first second, the last one's still running at most
    assert cpu.interrupts == pytest.approx(per_s * 1.0)
    work = pps * 1e-6 + per_s * 5e-6
    assert used(vcpu, env.now) == pytest.approx(work, abs=work * CHUNK + 1e-12)
    assert used(tx, env.now) == pytest.approx(pps * 3e-6, abs=pps * 3e-6 * CHUNK)


def test_a_spinning_sender_counts_interrupts_but_pays_nothing_more():
    env, vcpu, tx, cpu = one_vcpu_sender(1e5, 2000, spin=True, tx_cost=0.0)
    cpu.wake()
    env.run(until=1.0 + CHUNK / 2)
    assert cpu.interrupts == pytest.approx(2000.0)
    assert used(vcpu, env.now) == pytest.approx(env.now, rel=1e-6)


# ------------------------------------------------------- accounting phases
@pytest.mark.parametrize("phase", [-0.1, 1.0, 1.5])
def test_a_phase_outside_the_period_is_refused(phase):
    env = Environment()
    machine = Machine(env, Topology(1, 1, 1, 1.0), make_policy("proportional_share"))
    group = Group("sender", shares=1000.0)
    vcpu = World("sender.vcpu0", group)
    machine.add_group(group)
    with pytest.raises(ValueError, match="phase"):
        SenderCpu(env, machine, [vcpu], vcpu, 1e-6, lambda: 1.0, phase=phase)


@given(st.floats(0.0, 0.999), st.floats(1e3, 1e5), st.integers(0, 20))
def test_a_sender_hands_over_the_work_of_every_second_it_sent_whatever_its_phase(phase, pps, ticks):
    """The first hand-over, ``(1 - phase) * CHUNK`` after the start, carries the frames of that
    span; each later one a whole ``CHUNK``'s: nothing is lost or counted twice."""
    env, worlds, tx, cpu = sender([pps], vcpus=1)
    cpu = SenderCpu(env, cpu.machine, worlds, tx, 2e-6, lambda: pps, spin=False, phase=phase)
    cpu.wake()
    accounted = (1.0 - phase) * CHUNK + ticks * CHUNK
    env.run(until=accounted + CHUNK / 2)  # each job (at most 2 ms) done before the next hand-over
    assert used(tx, env.now) == pytest.approx(pps * 2e-6 * accounted, rel=1e-9)


PAIR_PPS, PAIR_FRAME_COST = 1e5, 2e-6
"""Each paced sender of ``paced_pair`` hands over 2 ms of guest work per period."""


def paced_pair(phases, until):
    """Guest CPU used by ``until`` by two paced one-vCPU senders started together at
    ``phases`` on one core of two threads, each thread at half speed while its sibling is
    busy."""
    env = Environment()
    machine = Machine(env, Topology(1, 1, 2, 0.5), make_policy("proportional_share"))
    vcpus = []
    for i, phase in enumerate(phases):
        group = Group(f"sender{i}", shares=1000.0)
        vcpu = World(f"sender{i}.vcpu0", group)
        machine.add_group(group)
        tx_group = Group(f"sender{i}.vnic-tx", cosched=False)
        tx = World(f"sender{i}.vnic-tx", tx_group)
        machine.add_group(tx_group)
        SenderCpu(env, machine, [vcpu], tx, 0.0, lambda: PAIR_PPS, spin=False,
                  frame_cost=PAIR_FRAME_COST, phase=phase).wake()
        vcpus.append(vcpu)
    env.run(until=until)
    return sum(used(v, until) for v in vcpus)


def handed_over(phase, until):
    """Guest work a paced sender of ``paced_pair`` has handed over by ``until``: the
    frames of every span up to its last hand-over."""
    first = (1.0 - phase) * CHUNK
    return PAIR_PPS * PAIR_FRAME_COST * (first + math.floor((until - first) / CHUNK) * CHUNK)


UNTIL = 0.5075
"""Between hand-overs (they fall at multiples of 5 ms), every job handed over done."""


def test_senders_at_spread_phases_never_share_a_core_and_use_what_their_work_costs():
    phases = [0.0, 0.5]
    assert paced_pair(phases, UNTIL) == pytest.approx(
        sum(handed_over(p, UNTIL) for p in phases), rel=1e-9)


def test_senders_at_one_phase_collide_on_the_core_every_period():
    """What spreading the phases avoids: both jobs of every period start together on the
    two threads, each at half speed, so the same work keeps the threads busy twice as long."""
    assert paced_pair([0.0, 0.0], UNTIL) == pytest.approx(2 * 2 * handed_over(0.0, UNTIL),
                                                           rel=1e-9)


# ------------------------------------------------------- a sender its CPU cannot keep up with
def limited_sender(pps, limit, frame_cost=1e-6):
    """A one-vCPU paced sender of ``pps`` frames/s whose VM is limited to ``limit`` CPUs, its
    uplink offering no more than the sender's allowance; also the work its frames cost so far
    and what its vCPU owed after each hand-over."""
    env = Environment()
    machine = Machine(env, Topology(1, 4, 1, 1.0), make_policy("proportional_share"))
    group = Group("sender", shares=1000.0, limit=limit)
    vcpu = World("sender.vcpu0", group)
    machine.add_group(group)
    tx_group = Group("sender.vnic-tx", cosched=False)
    tx = World("sender.vnic-tx", tx_group)
    machine.add_group(tx_group)
    cpu = SenderCpu(env, machine, [vcpu], tx, 0.0, lambda: min(pps, cpu.allowance), spin=False,
                    frame_cost=frame_cost)
    owed = []
    cost = []
    add = cpu.guest.add

    def counted(work):
        cost.append(work)
        add(work)
        owed.append(cpu.guest.owed(env.now))

    cpu.guest.add = counted
    return env, vcpu, cpu, cost, owed


@given(st.floats(0.1, 0.9))
def test_a_sender_under_a_cpu_limit_carries_what_the_limit_lets_it(fraction):
    """A TCP sender's throughput ignored its CPU: under a limit it sent at its full rate."""
    pps, frame_cost, seconds = 500_000.0, 1e-6, 5.0
    limit = fraction * pps * frame_cost  # the CPUs the limit leaves of the 0.5 its frames need
    env, vcpu, cpu, cost, owed = limited_sender(pps, limit, frame_cost)
    cpu.wake()
    env.run(until=seconds)
    done = used(vcpu, env.now)
    assert done <= limit * seconds + 1e-9
    # the debt is steered to MAX_OWED; a period in which the limit stops the vCPU adds at most
    # the whole core's period of work it was expected to do
    assert max(owed) <= MAX_OWED + CHUNK + 1e-12
    assert sum(cost) - done <= MAX_OWED + CHUNK + 1e-12
    carried = sum(cost) / frame_cost / seconds
    assert carried == pytest.approx(fraction * pps, abs=(MAX_OWED + CHUNK) / frame_cost / seconds
                                    + 0.02 * fraction * pps)


@given(st.floats(1e3, 8e5))
def test_a_sender_its_cpu_keeps_up_with_is_never_held_back(pps):
    env, vcpu, cpu, cost, owed = limited_sender(pps, math.inf)
    allowances = []
    cpu.on_allowance = allowances.append
    cpu.wake()
    env.run(until=2.0)
    assert allowances == [] and cpu.allowance == math.inf
    assert sum(cost) == pytest.approx(pps * 1e-6 * 2.0, rel=2 * CHUNK)


@given(st.floats(1e3, 1e5), st.floats(1e3, 1e5), st.floats(0.01, 0.99))
def test_a_rate_that_changes_within_a_period_is_charged_for_the_frames_sent(before, after, at):
    """A rate that changes at ``at`` of a period (another VM's allowance moved the class's
    rates): the transmit world is charged for the frames actually handed over, the integral of
    the rate, not the period's closing rate times the period."""
    env, machine, vcpu, tx = one_vcpu_host()
    rate = [before]
    changed = (5 + at) * CHUNK

    def handed(t):
        return before * min(t, changed) + after * max(t - changed, 0.0)

    cpu = SenderCpu(env, machine, [vcpu], tx, 1e-6, lambda: rate[0], spin=False, handed=handed)
    cpu.wake()
    env.run(until=changed)
    rate[0] = after
    env.run(until=10 * CHUNK + CHUNK / 2)  # the work of ten whole periods handed over
    work = handed(10 * CHUNK) * 1e-6
    assert used(tx, env.now) == pytest.approx(work, rel=1e-9)



@given(st.floats(100.0, 1e4), st.floats(100.0, 1e4), st.floats(0.01, 0.99))
def test_interrupts_whose_rate_changes_within_a_period_are_counted_as_raised(before, after, at):
    """They were the period's closing rate times the period, where the frames beside them were
    already charged as handed over."""
    env, machine, vcpu, tx = one_vcpu_host()
    changed = (5 + at) * CHUNK
    interrupts = StepInterrupts(before, after, changed)
    cpu = SenderCpu(env, machine, [vcpu], tx, 0.0, lambda: 1e4, spin=False,
                    interrupts=interrupts, interrupt_cost=1e-6, handed=lambda t: 0.0)
    cpu.wake()
    env.run(until=10 * CHUNK + CHUNK / 2)  # ten whole periods
    assert cpu.interrupts == pytest.approx(interrupts.raised(10 * CHUNK), rel=1e-9)
    assert used(vcpu, env.now) == pytest.approx(interrupts.raised(10 * CHUNK) * 1e-6, rel=1e-9)
