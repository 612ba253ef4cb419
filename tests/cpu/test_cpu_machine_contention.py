"""Socket contention: busy cores of one socket slow each other (``Topology.socket_contention``).

With contention c, a running world's speed is its hyper-threading speed divided
by 1 + c k, k the other busy cores of its socket. Checked against closed forms
(n always-busy worlds on n cores), for every running world at every moment of
random mixes of periodic and CPU-bound worlds, and for conservation of CPU time.
"""

import math

import pytest
import simpy
from hypothesis import HealthCheck, given, settings, strategies as st

from vsim.cpu.machine import Machine
from vsim.cpu.policies import make_policy
from vsim.cpu.topology import Topology
from vsim.cpu.world import IDLE, RUN, Group, World

SLOW = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])
CONTENTION = st.sampled_from([0.01, 0.05, 0.3])


def host(sockets, cores, threads, contention, ht_rate=0.7):
    env = simpy.Environment()
    topology = Topology(sockets, cores, threads, ht_rate, contention)
    return env, Machine(env, topology, make_policy("proportional_share"))


def vm(machine, name, affinity=None):
    group = Group(name, cosched=False)
    made = World(name, group, affinity=affinity)
    machine.add_group(group)
    return made


def cpu_bound(machine, world, job=0.37):
    """``world`` always has work: each completion hands back the next job."""
    machine.submit(world, job, lambda _w: job)


def periodic(env, machine, world, interval, work, phase):
    """``world`` wakes every ``interval`` for ``work`` core-seconds, unless still busy."""
    def tick(_event=None):
        if world.state == IDLE:
            machine.submit(world, work, lambda _w: None)
        env.timeout(interval).callbacks.append(tick)
    env.timeout(phase).callbacks.append(tick)


def progress(env, machine, world):
    return world.progress + (machine.done_since_mark(world, env.now) if world.state == RUN else 0.0)


@settings(max_examples=30, **SLOW)
@given(st.integers(1, 4), CONTENTION, st.floats(0.5, 5.0))
def test_busy_cores_of_one_socket_slow_each_other_by_one_plus_c_per_other_core(n, c, duration):
    env, machine = host(1, 4, 1, c)
    worlds = [vm(machine, f"w{i}") for i in range(n)]
    for world in worlds:
        cpu_bound(machine, world)
    env.run(until=duration)
    for world in worlds:
        assert progress(env, machine, world) == pytest.approx(duration / (1 + c * (n - 1)), rel=1e-9)


@settings(max_examples=20, **SLOW)
@given(CONTENTION, st.floats(0.5, 5.0))
def test_cores_of_different_sockets_do_not_slow_each_other(c, duration):
    env, machine = host(2, 1, 1, c)
    worlds = [vm(machine, f"w{i}") for i in range(2)]
    for world in worlds:
        cpu_bound(machine, world)
    env.run(until=duration)
    assert [w.lcpu for w in worlds] == [0, 1]
    for world in worlds:
        assert progress(env, machine, world) == pytest.approx(duration, rel=1e-9)


@settings(max_examples=20, **SLOW)
@given(CONTENTION, st.floats(0.5, 5.0))
def test_hyper_threads_of_one_core_count_as_one_busy_core(c, duration):
    """Two busy threads of one core and a third world alone on the socket's other core: the
    pair runs at ht_rate / (1 + c), the third at 1 / (1 + c)."""
    env, machine = host(1, 2, 2, c, ht_rate=0.6)
    pair = [vm(machine, "a", affinity=[0]), vm(machine, "b", affinity=[1])]
    alone = vm(machine, "c", affinity=[2])
    for world in pair + [alone]:
        cpu_bound(machine, world)
    env.run(until=duration)
    for world in pair:
        assert progress(env, machine, world) == pytest.approx(0.6 * duration / (1 + c), rel=1e-9)
    assert progress(env, machine, alone) == pytest.approx(duration / (1 + c), rel=1e-9)


worlds_specs = st.lists(st.tuples(st.sampled_from(["cpu", "periodic"]),
                                  st.sampled_from([0.003, 0.01, 0.02]), st.floats(0.05, 0.9),
                                  st.floats(0.0, 0.02)),
                        min_size=1, max_size=8)


def mixed_host(sockets, cores, threads, c, specs):
    env, machine = host(sockets, cores, threads, c)
    for i, (kind, interval, duty, phase) in enumerate(specs):
        world = vm(machine, f"w{i}")
        if kind == "cpu":
            cpu_bound(machine, world)
        else:
            periodic(env, machine, world, interval, interval * duty, phase)
    return env, machine


class SpeedViolation(AssertionError):
    pass


@settings(max_examples=40, **SLOW)
@given(st.integers(1, 2), st.integers(1, 3), st.sampled_from([1, 2]), CONTENTION, worlds_specs)
def test_every_running_world_runs_at_the_speed_its_core_and_socket_allow(sockets, cores, threads, c,
                                                                         specs):
    env, machine = mixed_host(sockets, cores, threads, c, specs)
    topology = machine.topology

    def probe(_event=None):
        busy_cores = {topology.core_of(i) for i, w in enumerate(machine.lcpu_world) if w is not None}
        for lcpu, world in enumerate(machine.lcpu_world):
            if world is None:
                continue
            s = machine.sibling[lcpu]
            rate = topology.ht_rate if s is not None and machine.lcpu_world[s] is not None else 1.0
            others = sum(1 for core in busy_cores if core != topology.core_of(lcpu)
                         and core // topology.cores_per_socket == topology.socket_of(lcpu))
            expected = rate / (1 + c * others)
            if not math.isclose(machine.speed(world), expected, rel_tol=1e-12):
                raise SpeedViolation(f"t={env.now:.6f}: {world.name} on {lcpu} runs at {machine.speed(world)}, "
                                     f"expected {expected}")
        env.timeout(0.00029).callbacks.append(probe)

    env.timeout(0.0).callbacks.append(probe)
    env.run(until=0.4)


@settings(max_examples=30, **SLOW)
@given(st.integers(1, 2), st.integers(1, 3), st.sampled_from([1, 2]), CONTENTION, worlds_specs,
       st.floats(0.2, 1.0))
def test_cpu_time_is_conserved_and_work_is_bounded_under_contention(sockets, cores, threads, c, specs,
                                                                     duration):
    env, machine = mixed_host(sockets, cores, threads, c, specs)
    env.run(until=duration)
    busy = sum(machine.lcpu_utilisation()) * duration
    used = sum(w.used + (duration - w.run_start if w.lcpu is not None else 0.0) for w in machine.worlds)
    assert used == pytest.approx(busy, rel=1e-9, abs=1e-12)
    slowest = machine.topology.ht_rate / (1 + c * (cores - 1))
    for world in machine.worlds:
        held = world.used + (duration - world.run_start if world.lcpu is not None else 0.0)
        assert progress(env, machine, world) <= held + 1e-9
        assert progress(env, machine, world) >= slowest * held - 1e-9


@settings(max_examples=60, **SLOW)
@given(st.integers(1, 2), st.integers(1, 3), st.sampled_from([1, 2]), CONTENTION, worlds_specs,
       st.sampled_from([1, 2, 3]), st.sampled_from([math.inf, 0.3]))
def test_every_job_ends_exactly_when_its_work_is_done(sockets, cores, threads, c, specs, per_vm, limit):
    """The socket's completion queue ends each job neither early nor late: when its completion
    handler runs, the world has done exactly the job's work since it was handed the job, however
    often the socket's busy cores changed meanwhile (a late end would show as more work done).
    VMs of ``per_vm`` worlds are co-scheduled, so a sibling co-stopped on another socket speeds
    that socket's clock up from an event of this one's, and a VM held to ``limit`` CPUs stops
    at its limit's event, leaving its core idle."""
    env = simpy.Environment()
    machine = Machine(env, Topology(sockets, cores, threads, 0.7, c), make_policy("proportional_share"),
                      costop_threshold=0.002)
    groups = [Group(f"vm{k}", cosched=per_vm > 1, limit=limit) for k in range(-(-len(specs) // per_vm))]
    ends, started = [], {}

    def jobs(world, interval, work, phase):
        def done(w, given=work):
            ends.append((w.name, w.progress - started[w.name], given))
            return None

        def tick(_event=None):
            if world.state == IDLE:
                started[world.name] = world.progress
                machine.submit(world, work, done)
            env.timeout(interval).callbacks.append(tick)
        env.timeout(phase).callbacks.append(tick)

    for i, (kind, interval, duty, phase) in enumerate(specs):
        world = World(f"w{i}", groups[i // per_vm])
        interval = interval if kind == "periodic" else interval / 4  # "cpu": nearly always busy
        jobs(world, interval, interval * (duty if kind == "periodic" else 3.0), phase)
    for group in groups:
        machine.add_group(group)
    env.run(until=0.3)
    assert ends
    for name, done_work, given in ends:
        assert done_work == pytest.approx(given, rel=1e-9, abs=1e-12), name
