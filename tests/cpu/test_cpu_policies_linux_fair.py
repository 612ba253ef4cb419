"""Linux's fair class (EEVDF and CFS) with cgroup weights and bandwidth, driven by the machine:
CPU split by cpu.weight (closed forms and water-filling), cpu.max per period, work conservation,
determinism, EEVDF's wakeup latency and lag-preserving placement."""

import math

import pytest
import simpy
from hypothesis import HealthCheck, given, settings, strategies as st

from vsim.cpu.machine import Machine
from vsim.cpu.policies import make_policy
from vsim.cpu.policies.fair_queue import fair_rates, tunable_factor
from vsim.cpu.topology import Topology
from vsim.cpu.world import IDLE, READY, RUN, Group, World
from fair_shares import water_filled

SLOW = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])
TICK = 0.001
PERIOD = 0.1
VARIANTS = ["eevdf", "cfs"]


class Host:
    """A machine running the linux_fair policy, one cgroup per ``Group``."""

    def __init__(self, cpus, variant="eevdf", threads=1, **params):
        self.env = simpy.Environment()
        self.policy = make_policy("linux_fair", variant=variant, **params)
        self.machine = Machine(self.env, Topology(1, cpus, threads, 0.62), self.policy,
                               quantum=TICK, period=PERIOD)
        self.groups = []

    def cgroup(self, name, tasks, weight=100.0, limit=math.inf):
        group = Group(name, shares=weight, limit=limit)
        for j in range(tasks):
            World(f"{name}.{j}", group)
        self.machine.add_group(group)
        self.groups.append(group)
        return group

    def cpu_bound(self, group, job=0.37):
        for world in group.worlds:
            self.machine.submit(world, job, lambda _w, job=job: job)

    def periodic(self, group, interval, work, phase=0.0):
        """Each task wakes every ``interval`` for ``work`` core-seconds, unless still busy."""
        def tick(_event=None):
            for world in group.worlds:
                if world.state == IDLE:
                    self.machine.submit(world, work, lambda _w: None)
            self.env.timeout(interval).callbacks.append(tick)
        self.env.timeout(phase).callbacks.append(tick)

    def every(self, interval, probe):
        def fire(_event=None):
            probe()
            self.env.timeout(interval).callbacks.append(fire)
        self.env.timeout(0).callbacks.append(fire)

    def used(self, group):
        now = self.env.now
        return sum(w.used + (now - w.run_start if w.lcpu is not None else 0.0) for w in group.worlds)

    def run(self, until):
        self.env.run(until=until)




weights = st.sampled_from([1.0, 10.0, 50.0, 100.0, 200.0, 333.0, 1000.0, 10000.0])


# -------------------------------------------------------------- helpers
def test_the_tunable_factor_is_one_plus_ilog2_of_at_most_eight_cpus():
    assert [tunable_factor(n, "log") for n in (1, 2, 3, 4, 7, 8, 16, 64)] == [1, 2, 2, 3, 3, 4, 4, 4]
    assert [tunable_factor(n, "linear") for n in (1, 4, 16)] == [1, 4, 8]
    assert tunable_factor(16, "none") == 1
    with pytest.raises(ValueError):
        tunable_factor(4, "cubic")


@given(st.lists(st.floats(1.0, 1e5), min_size=1, max_size=12), st.integers(1, 8))
def test_fair_rates_share_the_cpus_by_load_none_above_one(loads, cpus):
    rates, per_cpu = fair_rates(loads, cpus)
    assert sum(rates) == pytest.approx(min(len(loads), cpus), rel=1e-9)
    assert all(0 < r <= 1 + 1e-12 for r in rates)
    if per_cpu < math.inf:
        for load, rate in zip(loads, rates):  # held to one CPU, or in proportion to its load
            assert rate == pytest.approx(1.0) or rate == pytest.approx(load / per_cpu)


# ------------------------------------------------------------ CPU split
@settings(max_examples=25, **SLOW)
@given(st.sampled_from(VARIANTS), weights, weights)
def test_two_cpu_bound_tasks_on_one_cpu_split_it_by_weight(variant, w1, w2):
    host = Host(1, variant)
    a, b = host.cgroup("a", 1, w1), host.cgroup("b", 1, w2)
    host.cpu_bound(a)
    host.cpu_bound(b)
    host.run(3.0)
    assert host.used(a) / 3.0 == pytest.approx(w1 / (w1 + w2), abs=0.01)
    assert host.used(a) + host.used(b) == pytest.approx(3.0, rel=1e-9)


@settings(max_examples=20, **SLOW)
@given(st.sampled_from(VARIANTS), st.integers(1, 4),
       st.lists(st.tuples(weights, st.integers(1, 3)), min_size=1, max_size=4))
def test_cpu_bound_cgroups_share_the_host_by_weight_none_above_its_tasks(variant, cpus, specs):
    """Each cgroup gets the water-filled share of the CPUs by cpu.weight, capped at one CPU
    per task (a task runs on one CPU at a time)."""
    host = Host(cpus, variant)
    groups = [host.cgroup(f"g{i}", k, w) for i, (w, k) in enumerate(specs)]
    for g in groups:
        host.cpu_bound(g)
    duration = 3.0
    host.run(duration)
    expected = water_filled([w for w, _ in specs], [k for _, k in specs], cpus)
    for g, share in zip(groups, expected):
        assert host.used(g) / duration == pytest.approx(share, abs=0.03 * cpus)


# ------------------------------------------------------------- cpu.max
@settings(max_examples=20, **SLOW)
@given(st.sampled_from(VARIANTS), st.integers(1, 3), st.floats(0.1, 2.5), st.integers(1, 3),
       weights, st.booleans())
def test_a_cgroup_never_exceeds_its_cpu_max(variant, cpus, limit, tasks, weight, bursty):
    """Per period of cpu.max the cgroup uses at most quota = limit * period, and in the long run
    CPU-bound tasks get the quota when the host has room for it."""
    host = Host(cpus, variant)
    capped = host.cgroup("capped", tasks, weight, limit=limit)
    other = host.cgroup("other", 2, 100.0)
    if bursty:
        host.periodic(capped, 0.02, 0.015)
    else:
        host.cpu_bound(capped)
    host.cpu_bound(other)
    marks = []
    host.every(PERIOD, lambda: marks.append(host.used(capped)))
    host.run(2.0 + 1e-9)
    per_period = [b - a for a, b in zip(marks, marks[1:])]
    assert len(per_period) == 20
    assert max(per_period) <= limit * PERIOD + 1e-9
    if not bursty:
        fair = water_filled([weight, 100.0], [tasks, 2], cpus)[0]
        assert host.used(capped) / 2.0 == pytest.approx(min(limit, tasks, fair), abs=0.05)


# --------------------------------------------------- work conservation
@settings(max_examples=20, **SLOW)
@given(st.sampled_from(VARIANTS), st.integers(1, 3), st.sampled_from([1, 2]),
       st.lists(st.tuples(weights, st.integers(1, 3), st.sampled_from(["cpu", "periodic"]),
                          st.one_of(st.just(math.inf), st.floats(0.2, 2.0)), st.floats(0.0, 0.02)),
                min_size=1, max_size=4))
def test_no_cpu_idles_while_a_runnable_task_waits(variant, cores, threads, specs):
    """Work conservation: whenever a logical CPU is idle, every waiting task is throttled."""
    host = Host(cores, variant, threads=threads)
    for i, (weight, tasks, kind, limit, phase) in enumerate(specs):
        g = host.cgroup(f"g{i}", tasks, weight, limit=limit)
        if kind == "cpu":
            host.cpu_bound(g)
        else:
            host.periodic(g, 0.01, 0.004, phase)
    violations = []

    def probe():
        machine = host.machine
        if any(w is None for w in machine.lcpu_world):
            waiting = [w.name for w in machine.ready if w.state == READY and not w.throttled]
            if waiting:
                violations.append((host.env.now, waiting))
        for w in machine.worlds:
            assert (w.state == RUN) == (w.lcpu is not None)
    host.every(0.000713, probe)
    host.run(1.0)
    assert not violations, violations[:3]


# ----------------------------------------------------------- determinism
@settings(max_examples=10, **SLOW)
@given(st.sampled_from(VARIANTS), st.integers(1, 3),
       st.lists(st.tuples(weights, st.integers(1, 3), st.booleans()), min_size=1, max_size=4))
def test_the_same_input_gives_the_same_schedule(variant, cpus, specs):
    def run():
        host = Host(cpus, variant)
        for i, (weight, tasks, cpu_bound) in enumerate(specs):
            g = host.cgroup(f"g{i}", tasks, weight, limit=1.5 if i == 0 else math.inf)
            if cpu_bound:
                host.cpu_bound(g)
            else:
                host.periodic(g, 0.02, 0.005, phase=0.0013 * i)
        host.run(0.8)
        return [(w.name, w.state, w.used, w.ready_time, w.progress, host.policy.entity(w).vruntime)
                for g in host.groups for w in g.worlds]
    assert run() == run()


# ------------------------------------------------------- EEVDF latency
@settings(max_examples=20, **SLOW)
@given(st.sampled_from([1, 2, 4, 8]), st.integers(1, 5), st.sampled_from([10.0, 100.0, 1000.0]),
       st.booleans())
def test_a_waking_interactive_task_waits_at_most_about_one_slice(cpus, per_cpu, hog_weight,
                                                                  run_to_parity):
    """A task with a 0.5 ms burst every 20 ms, in a cgroup weighing as much as the CPU-bound
    cgroups of one CPU together, starts within one base slice (rounded up to ticks, as the
    slice ends at a tick) plus one tick."""
    host = Host(cpus, "eevdf", run_to_parity=run_to_parity)
    for i in range(cpus * per_cpu):
        host.cpu_bound(host.cgroup(f"hog{i}", 1, hog_weight))
    interactive = host.cgroup("interactive", 1, per_cpu * hog_weight).worlds[0]
    waits = []

    def wake(_event=None):
        if interactive.state == IDLE:
            before = interactive.ready_time
            host.machine.submit(interactive, 0.0005,
                                lambda w: waits.append(w.ready_time - before) and None)
        host.env.timeout(0.02).callbacks.append(wake)
    host.env.timeout(0.0131).callbacks.append(wake)
    host.run(1.5)
    base_slice = host.policy.slice(host.machine)
    assert base_slice == pytest.approx(0.00075 * (1 + int(math.log2(min(cpus, 8)))))
    bound = math.ceil(base_slice / TICK - 1e-9) * TICK + TICK
    assert len(waits) >= 70
    assert max(waits) <= bound + 1e-9


def test_a_slice_that_runs_out_between_ticks_ends_at_the_next_tick():
    """Two hogs take turns of one slice rounded up to the tick (1 ms on one CPU), also when
    the slice runs out at a cpu.max period boundary, where the running task is charged."""
    host = Host(1, "eevdf")
    for i in range(2):
        host.cpu_bound(host.cgroup(f"hog{i}", 1))

    def start_periods(_event):  # an idle capped cgroup starts the period clock off the ticks
        host.cgroup("capped", 1, limit=0.5)
    host.env.timeout(0.0008).callbacks.append(start_periods)
    runs, current = [], [None, 0.0]

    def probe():
        world = host.machine.lcpu_world[0]
        if world is not current[0]:
            runs.append(host.env.now - current[1])
            current[:] = [world, host.env.now]
    host.every(0.00005, probe)
    host.run(1.0)
    assert len(runs) > 900
    assert max(runs) <= TICK + 0.00005 + 1e-9


def test_with_cfs_a_sleeper_preempts_at_once():
    """CFS's sleeper credit: a task waking every 20 ms is far behind the hogs' vruntime and
    preempts one as soon as it wakes."""
    host = Host(1, "cfs")
    for i in range(4):
        host.cpu_bound(host.cgroup(f"hog{i}", 1))
    sleeper = host.cgroup("sleeper", 1).worlds[0]
    host.periodic(host.groups[-1], 0.02, 0.0005, phase=0.0131)
    host.run(1.0)
    assert sleeper.used == pytest.approx(50 * 0.0005, rel=1e-6)
    assert sleeper.ready_time == pytest.approx(0.0, abs=1e-9)


# ------------------------------------------------------- EEVDF placement
@pytest.mark.parametrize("place_lag", [True, False])
def test_a_waking_task_is_placed_at_the_average_minus_its_kept_lag(place_lag):
    host = Host(1, "eevdf", place_lag=place_lag)
    for i in range(2):
        host.cpu_bound(host.cgroup(f"hog{i}", 1))
    sleeper = host.cgroup("sleeper", 1).worlds[0]
    policy = host.policy
    host.machine.submit(sleeper, 0.004, lambda _w: None)
    host.run(0.5)
    assert sleeper.state == IDLE
    entity = policy.entity(sleeper)
    kept = entity.lag / entity.weight
    limit = 2 * policy.slice(host.machine)  # 1.5 ms > one tick on one CPU
    assert kept != 0.0 and abs(kept) <= limit + 1e-12
    average_before, _ = policy.average(host.env.now)
    host.machine.submit(sleeper, 0.001, lambda _w: None)
    average_after, _ = policy.average(host.env.now)
    if place_lag:  # the lag is inflated so that, once queued, it is what was kept
        assert average_after - entity.vruntime == pytest.approx(kept, abs=1e-12)
    else:
        assert entity.vruntime == pytest.approx(average_before, abs=1e-12)


@pytest.mark.parametrize("gentle", [True, False])
def test_with_cfs_a_long_sleeper_wakes_half_a_latency_below_min_vruntime(gentle):
    host = Host(2, "cfs", gentle_fair_sleepers=gentle)
    for i in range(3):
        host.cpu_bound(host.cgroup(f"hog{i}", 1))
    sleeper = host.cgroup("sleeper", 1).worlds[0]
    host.run(0.5)
    policy = host.policy
    lowest = min(policy.vruntime(policy.entity(w), host.env.now) for g in host.groups[:3]
                 for w in g.worlds)
    host.machine.submit(sleeper, 0.001, lambda _w: None)
    latency = 0.006 * 2  # 1 + ilog2(2) on two CPUs
    credit = latency / 2 if gentle else latency
    assert policy.entity(sleeper).vruntime == pytest.approx(lowest - credit, abs=1e-12)


# -------------------------------------------------------- refused input
def test_a_reservation_is_refused():
    host = Host(2)
    group = Group("reserved", shares=100.0, reservation=0.5)
    World("reserved.0", group)
    with pytest.raises(ValueError, match="reservation"):
        host.machine.add_group(group)


@pytest.mark.parametrize("weight", [0.5, 10001.0])
def test_a_weight_outside_the_cgroup_range_is_refused(weight):
    host = Host(1)
    group = host.cgroup("g", 1, weight)
    with pytest.raises(ValueError, match="cpu.weight"):
        host.cpu_bound(group)


def test_an_unknown_variant_is_refused():
    with pytest.raises(ValueError, match="variant"):
        make_policy("linux_fair", variant="bfs")
