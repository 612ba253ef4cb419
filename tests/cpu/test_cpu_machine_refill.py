"""The cache refill a world pays when it starts on another core (``Machine._moved``).

A world that starts on a core other than the one it last ran on adds its
``refill_same_socket`` or ``refill_other_socket`` to its remaining work; a move
between the two hyper-threads of one core is free, and a world that never
leaves its core never pays. Worlds pinned with ``affinity`` to chosen logical
CPUs set up each move.
"""

import simpy
from hypothesis import given, settings, strategies as st

from vsim.cpu.machine import Machine
from vsim.cpu.policies import make_policy
from vsim.cpu.topology import Topology
from vsim.cpu.world import Group, World

WORK = st.floats(min_value=1e-4, max_value=1e-2)
COST = st.floats(min_value=1e-6, max_value=1e-3)


def host(sockets, cores, threads, ht_rate=0.75):
    env = simpy.Environment()
    machine = Machine(env, Topology(sockets, cores, threads, ht_rate), make_policy("proportional_share"))
    return env, machine


def world(machine, name, affinity=None, same_socket=0.0, other_socket=0.0):
    group = Group(name, cosched=False)
    made = World(name, group, affinity=affinity, refill_same_socket=same_socket,
                 refill_other_socket=other_socket)
    machine.add_group(group)
    return made


def job(env, machine, target, work, at, done):
    """Submit ``work`` to ``target`` at time ``at``; ``done`` receives its completion time."""
    def submit(_event):
        machine.submit(target, work, lambda _w: done.append(env.now))
    env.timeout(at).callbacks.append(submit)


def moved_job(layout, blocked, work, same_socket, other_socket):
    """A world's first job runs on logical CPU 0; its second, at t = 1, finds ``blocked``
    logical CPUs busy. Returns the second job's duration, the logical CPU it ran on and
    the world's migrations."""
    env, machine = host(*layout)
    mover = world(machine, "mover", same_socket=same_socket, other_socket=other_socket)
    done = []
    job(env, machine, mover, work, 0.0, done)
    for lcpu in blocked:
        blocker = world(machine, f"block{lcpu}", affinity=[lcpu])
        job(env, machine, blocker, 10.0, 0.5, [])
    job(env, machine, mover, work, 1.0, done)
    env.run(until=5.0)
    return done[1] - 1.0, mover.last_lcpu, mover.migrations


@settings(max_examples=30)
@given(work=WORK, same_socket=COST, other_socket=COST)
def test_a_move_within_the_socket_delays_the_job_by_the_same_socket_refill(work, same_socket,
                                                                           other_socket):
    took, lcpu, migrations = moved_job((2, 2, 1), [0], work, same_socket, other_socket)
    assert lcpu == 1 and migrations == 1
    assert abs(took - (work + same_socket)) < 1e-12


@settings(max_examples=30)
@given(work=WORK, same_socket=COST, other_socket=COST)
def test_a_move_to_the_other_socket_delays_the_job_by_the_other_socket_refill(work, same_socket,
                                                                              other_socket):
    took, lcpu, migrations = moved_job((2, 2, 1), [0, 1], work, same_socket, other_socket)
    assert lcpu == 2 and migrations == 1
    assert abs(took - (work + other_socket)) < 1e-12


@settings(max_examples=30)
@given(work=WORK, same_socket=COST, other_socket=COST)
def test_a_hyper_thread_sibling_shares_the_cores_caches(work, same_socket, other_socket):
    """Logical CPUs 0 and 1 are one core: moving to the sibling costs nothing, and the
    job runs at the hyper-threading rate beside the busy sibling."""
    took, lcpu, migrations = moved_job((1, 2, 2, 0.75), [0, 2, 3], work, same_socket, other_socket)
    assert lcpu == 1 and migrations == 0
    assert abs(took - work / 0.75) < 1e-12


@settings(max_examples=30)
@given(work=WORK)
def test_without_a_cost_a_move_is_counted_and_changes_nothing(work):
    took, lcpu, migrations = moved_job((2, 2, 1), [0, 1], work, 0.0, 0.0)
    assert lcpu == 2 and migrations == 1
    assert abs(took - work) < 1e-12


def periodic_run(costs, phases, works, threads):
    """Worlds each confined to the logical CPUs of one core of their own, woken every
    20 ms for ``works[i]`` at phase ``phases[i]``; every job's completion time, per world."""
    env, machine = host(2, 2, threads)
    done = {}
    for index, (phase, work) in enumerate(zip(phases, works)):
        core = list(range(index * threads, (index + 1) * threads))
        member = world(machine, f"w{index}", affinity=core, same_socket=costs[0],
                       other_socket=costs[1])
        done[member] = []
        for tick in range(20):
            job(env, machine, member, work, phase + 0.02 * tick, done[member])
    env.run(until=1.0)
    return done


@settings(max_examples=25, deadline=None)
@given(costs=st.tuples(COST, COST), threads=st.sampled_from([1, 2]),
       phases=st.lists(st.floats(min_value=0.0, max_value=0.02), min_size=1, max_size=4),
       works=st.lists(st.floats(min_value=1e-3, max_value=1.5e-2), min_size=4, max_size=4))
def test_a_world_that_never_leaves_its_core_never_pays(costs, threads, phases, works):
    with_cost = periodic_run(costs, phases, works, threads)
    without = periodic_run((0.0, 0.0), phases, works, threads)
    assert [w.migrations for w in with_cost] == [0] * len(with_cost)
    assert list(with_cost.values()) == list(without.values())
