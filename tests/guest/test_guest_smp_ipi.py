"""A multi-vCPU guest's synchronous IPIs: the sender spins until every sibling answers; the
machine's cut_short ends a spin; closed forms on free cores, no deadlock when all send."""

import pytest
from hypothesis import given, settings, strategies as st

from vsim.core.environment import Environment
from vsim.cpu.machine import Machine
from vsim.cpu.policies import make_policy
from vsim.cpu.topology import Topology
from vsim.cpu.world import IDLE, Group, World
from vsim.guest.smp_ipi import SmpIpi


def _host(cores, vcpus):
    env = Environment()
    machine = Machine(env, Topology(1, cores, 1, 1.0), make_policy("proportional_share"))
    group = Group("vm", shares=1000 * vcpus)
    worlds = [World(f"vm.vcpu{j}", group) for j in range(vcpus)]
    machine.add_group(group)
    return env, machine, worlds


def test_cut_short_ends_a_running_job_now_and_a_waiting_one_when_it_runs():
    env, machine, (a, b) = _host(1, 2)
    done = {}
    machine.submit(a, 10.0, lambda w: done.setdefault(w.name, env.now) and None)
    machine.submit(b, 10.0, lambda w: done.setdefault(w.name, env.now) and None)
    env.run(until=0.001)
    running, waiting = (a, b) if a.lcpu is not None else (b, a)
    machine.cut_short(running)
    machine.cut_short(waiting)
    env.run(until=1.0)
    assert done[running.name] == pytest.approx(0.001)
    assert done[waiting.name] == pytest.approx(0.001)  # it ran as soon as the CPU was free
    assert running.state == waiting.state == IDLE


@settings(max_examples=15, deadline=None)
@given(work=st.floats(1e-4, 1e-2), handler=st.floats(1e-6, 1e-3), latency=st.floats(0.0, 1e-4))
def test_an_idle_sibling_on_a_free_core_answers_after_its_handler(work, handler, latency):
    """Closed form on two free cores: the job completes after its work and the woken sibling's
    handler; the sender spins the handler's time."""
    env, machine, (a, b) = _host(2, 2)
    ipi = SmpIpi(machine, env.call_later, [a, b], 1.0, latency, handler)
    done = []
    ipi.submit(a, work, lambda w: done.append(env.now) and None)
    env.run(until=1.0)
    assert done == [pytest.approx(work + handler)]
    assert ipi.sent == ipi.acknowledged == 1
    assert ipi.spun == pytest.approx(handler)
    assert b.used == pytest.approx(handler)


@settings(max_examples=15, deadline=None)
@given(work=st.floats(1e-4, 1e-2), latency=st.floats(1e-6, 1e-4))
def test_a_running_sibling_answers_after_the_latency(work, latency):
    env, machine, (a, b) = _host(2, 2)
    ipi = SmpIpi(machine, env.call_later, [a, b], 1.0, latency, 1e-3)
    done = []
    machine.submit(b, 10.0, lambda w: None)  # busy for the whole test
    ipi.submit(a, work, lambda w: done.append(env.now) and None)
    env.run(until=1.0)
    assert done == [pytest.approx(work + latency)]


def test_a_sibling_waiting_for_the_cpu_keeps_the_sender_spinning_until_it_runs():
    """One core, two vCPUs: the sibling can only answer once the spinning sender is
    preempted at the end of its quantum, so the spin lasts at least until then."""
    env, machine, (a, b) = _host(1, 2)
    ipi = SmpIpi(machine, env.call_later, [a, b], 1.0, 1e-5, 1e-5)
    done = {}
    ipi.submit(a, 1e-3, lambda w: done.setdefault("a", env.now) and None)
    machine.submit(b, 1e-3, lambda w: done.setdefault("b", env.now) and None)
    env.run(until=2.0)
    assert ipi.sent == ipi.acknowledged == 1
    assert done["a"] > done["b"] - 1e-3  # a's job could not end before b ran
    assert ipi.spun >= machine.quantum - 2e-3


@settings(max_examples=20, deadline=None)
@given(cores=st.integers(1, 2), vcpus=st.integers(2, 4), jobs=st.integers(1, 20),
       rate=st.floats(0.1, 2.0), work=st.floats(1e-5, 2e-3))
def test_every_ipi_is_answered_and_every_job_completes(cores, vcpus, jobs, rate, work):
    """vCPUs that all keep sending never deadlock: each vCPU runs ``jobs`` jobs back to back,
    each sending IPIs at ``rate``; all complete and every IPI sent is answered."""
    env, machine, worlds = _host(cores, vcpus)
    ipi = SmpIpi(machine, env.call_later, worlds, rate, 1e-5, 2e-5)
    left = {w.name: jobs for w in worlds}

    def next_job(world):
        left[world.name] -= 1
        return work if left[world.name] else None
    for world in worlds:
        ipi.submit(world, work, next_job)
    env.run(until=20.0)
    assert set(left.values()) == {0}
    assert ipi.sent == ipi.acknowledged
    assert ipi.sent == (vcpus - 1) * int(rate * vcpus * jobs + 1e-6)
