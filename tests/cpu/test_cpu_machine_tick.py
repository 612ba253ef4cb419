"""The scheduler tick of Linux's fair class: every CPU's at k / HZ on one clock, a used-up slice
ending only there (or at a wake-up), so tasks that start between ticks still switch on the grid."""

import pytest
import simpy

from vsim.cpu.machine import Machine
from vsim.cpu.policies import make_policy
from vsim.cpu.topology import Topology
from vsim.cpu.world import IDLE, Group, World

HZ250 = 0.004  # models/schedulers/linux_eevdf_hz250.toml: CONFIG_HZ=250
VARIANTS = ["eevdf", "cfs"]


def on_grid(t, tick=HZ250):
    return abs(t / tick - round(t / tick)) < 1e-6


def host(cpus, variant, base_slice=0.0007):
    env = simpy.Environment()
    params = {"base_slice": base_slice} if variant == "eevdf" else {}
    machine = Machine(env, Topology(1, cpus, 1, 1.0),
                      make_policy("linux_fair", variant=variant, **params), quantum=HZ250)
    return env, machine


def task(machine, name):
    group = Group(name, shares=100.0)
    world = World(f"{name}.0", group)
    machine.add_group(group)
    return world


@pytest.mark.parametrize("variant", VARIANTS)
def test_hogs_that_wake_between_ticks_switch_only_on_the_tick_grid(variant):
    """Three hogs on one CPU, woken 1.3 and 2.7 ms apart: past the wake-ups, every switch is at a
    multiple of the 4 ms tick, not a tick after the task started."""
    env, machine = host(1, variant)
    starts = []
    for i, wake in enumerate((0.0, 0.0013, 0.0027)):
        world = task(machine, f"hog{i}")
        world.on_start = lambda w: starts.append(env.now)

        def submit(_event, world=world):
            machine.submit(world, 0.37, lambda _w: 0.37)
        env.timeout(wake).callbacks.append(submit)
    env.run(until=0.5)
    later = [t for t in starts if t > 0.003]
    assert len(later) > 50
    assert all(on_grid(t) for t in later), [t for t in later if not on_grid(t)][:5]


def test_the_issues_backlogged_workers_run_tick_to_tick():
    """24 workers of 2 ms per 20 ms on 2 CPUs (2.4 CPUs asked), due 1.3 ms off the tick
    grid: once backlogged, each run
    starts and ends on the 4 ms grid and lasts one tick (EEVDF's 1.4 ms slice ends at the next
    tick), where a tick counted from each task's start left the runs off the grid."""
    env, machine = host(2, "eevdf")
    worlds = [task(machine, f"w{i}") for i in range(24)]
    backlog = {w: 0 for w in worlds}
    ends = []

    def done(world):
        ends.append(env.now)
        if backlog[world]:
            backlog[world] -= 1
            return 0.002
        return None

    def period(_event=None):
        for world in worlds:
            if world.state == IDLE:
                machine.submit(world, 0.002, done)
            else:
                backlog[world] += 1
        env.timeout(0.02).callbacks.append(period)
    env.timeout(0.0013).callbacks.append(period)  # the workers' clock is not the kernel's
    env.run(until=3.0)
    settled = [t for t in ends if t > 2.0]
    assert len(settled) > 400
    run_ends = sum(1 for t in settled if on_grid(t))
    in_step = sum(1 for t in settled if on_grid(t) or on_grid(t + 0.002))
    assert run_ends / len(settled) > 0.4  # about every second job ends a run, at a tick
    assert in_step / len(settled) > 0.9  # and the one before it 2 ms earlier


def test_a_lone_task_with_waiters_arms_one_check_per_slice():
    """On the grid the check is armed for the first tick that can end the slice: with HZ=1000
    and a 3 ms slice, a hog beside a waiting one costs about one tick event per 3 ms run."""
    env = simpy.Environment()
    machine = Machine(env, Topology(1, 1, 1, 1.0),
                      make_policy("linux_fair", variant="eevdf", base_slice=0.003), quantum=0.001)
    fired = []
    call_later = machine._scheduler

    def counting(delay, callback, arg):
        if getattr(callback, "__name__", "") == "_tick":  # the grid tick's check
            fired.append(env.now + delay)
        call_later(delay, callback, arg)
    machine._scheduler = counting  # a plain SimPy environment: no clock
    for i in range(2):
        world = task(machine, f"hog{i}")
        machine.submit(world, 0.37, lambda _w: 0.37)
    env.run(until=0.3)
    assert len(fired) < 0.3 / 0.003 * 1.2
    assert all(on_grid(t, 0.001) for t in fired)
