"""Xen's credit scheduler (``xen_credit``) driven by the machine: CPU conservation and work
conservation, the credit ledger, long-run shares by weight (closed form on one CPU, water-filled
over CPUs), caps by parking never exceeded over accounting periods, BOOST's wake-up latency
beside CPU hogs, work stealing, determinism, and the model file's validation."""

import math
import random

import pytest
import simpy
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from vsim.config.data_dirs import CHECKOUT
from vsim.config.models import load_model
from vsim.config.schema_models import SchedulerModel
from vsim.config.typed import from_dict
from vsim.core.errors import InputError
from vsim.cpu.machine import Machine
from vsim.cpu.policies import POLICIES, make_policy
from vsim.cpu.policies.protocol import TakesLimits
from vsim.cpu.policies.xen_credit import PRI_BOOST, PRI_OVER, PRI_UNDER, XenCredit
from vsim.cpu.topology import Topology
from vsim.cpu.world import IDLE, READY, RUN, Group, World
from fair_shares import water_filled

SLOW = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
            max_examples=40)
SLICE = 0.03
PERIOD = 0.03
TICK = 0.01
CREDITS_PER_S = 10_000.0


class Host:
    """A machine under the credit scheduler; one ``Group`` per domain, shares 1000 per vCPU
    times its weight over 256."""

    def __init__(self, cpus, **params):
        self.env = simpy.Environment()
        self.policy = make_policy("xen_credit", **params)
        self.machine = Machine(self.env, Topology(1, cpus, 1, 0.62), self.policy,
                               quantum=SLICE, period=PERIOD)
        self.domains = []

    def domain(self, name, vcpus=1, weight=256, cap=0):
        """A domain of ``vcpus`` vCPUs, Xen weight ``weight`` and cap ``cap`` percent."""
        group = Group(name, shares=1000.0 * vcpus * weight / 256,
                      limit=cap / 100.0 if cap else math.inf)
        for j in range(vcpus):
            World(f"{name}.{j}", group)
        self.machine.add_group(group)
        self.domains.append(group)
        return group

    def hog(self, group, job=0.37):
        for world in group.worlds:
            self.machine.submit(world, job, lambda _w, job=job: job)

    def periodic(self, group, interval, work, phase=0.0, latencies=None):
        """Each vCPU wakes every ``interval`` for ``work`` core-seconds unless still busy;
        ``latencies`` collects each wake-up's priority before it and its wait for a CPU."""
        woke = {}

        def started(world):
            if world in woke:
                woken_at, priority = woke.pop(world)
                latencies.append((priority, self.env.now - woken_at))

        if latencies is not None:
            for world in group.worlds:
                world.on_start = started

        def tick(_event=None):
            for world in group.worlds:
                if world.state == IDLE:
                    woke[world] = (self.env.now, self.policy.priority(world))
                    self.machine.submit(world, work, lambda _w: None)
            self.env.timeout(interval).callbacks.append(tick)
        self.env.timeout(phase).callbacks.append(tick)

    def every(self, interval, probe, start=0.0):
        def fire(_event=None):
            probe()
            self.env.timeout(interval).callbacks.append(fire)
        self.env.timeout(start).callbacks.append(fire)

    def used(self, group):
        now = self.env.now
        return sum(w.used + (now - w.run_start if w.lcpu is not None else 0.0)
                   for w in group.worlds)

    def run(self, until):
        self.env.run(until=until)




def random_load(host, rng, domains):
    """``domains`` domains of random size, weight and load: hogs or periodic vCPUs."""
    for d in range(domains):
        group = host.domain(f"d{d}", vcpus=rng.randint(1, 3), weight=rng.choice([64, 256, 512, 1024]))
        if rng.random() < 0.4:
            host.hog(group, job=rng.uniform(0.001, 0.05))
        else:
            host.periodic(group, rng.uniform(0.002, 0.04), rng.uniform(0.0002, 0.03),
                          phase=rng.uniform(0, 0.01))


# ---------------------------------------------------------------- registry
def test_registered_and_takes_limits():
    assert POLICIES["xen_credit"] is XenCredit
    assert isinstance(make_policy("xen_credit"), TakesLimits)


def test_reservation_refused():
    host = Host(1)
    group = Group("r", shares=1000.0, reservation=0.5)
    World("r.0", group)
    with pytest.raises(ValueError, match="no CPU reservation"):
        host.machine.add_group(group)


# ------------------------------------------------------------ conservation
@settings(**SLOW)
@given(st.integers(0, 10_000), st.integers(1, 4), st.integers(1, 5))
def test_cpu_and_work_conservation(seed, cpus, domains):
    """No CPU runs two worlds, no world two CPUs; busy time never exceeds capacity; with no
    cap, no CPU idles while a vCPU waits."""
    rng = random.Random(seed)
    host = Host(cpus)
    random_load(host, rng, domains)
    machine = host.machine

    def probe():
        running = [w for w in machine.lcpu_world if w is not None]
        assert len(running) == len(set(running))
        for world in running:
            assert world.state == RUN and machine.lcpu_world[world.lcpu] is world
        if any(w is None for w in machine.lcpu_world):
            assert not [w for w in machine.ready if not w.throttled]
        for world in machine.ready:
            assert world.state == READY
    host.every(0.0037, probe)
    host.run(2.0)
    total = sum(host.used(g) for g in host.domains)
    assert total <= cpus * host.env.now + 1e-9
    for busy in machine.lcpu_utilisation():
        assert busy <= 1.0 + 1e-12


@settings(**SLOW)
@given(st.integers(0, 10_000), st.integers(1, 4), st.integers(1, 5))
def test_credit_ledger(seed, cpus, domains):
    """Every vCPU's credit is what it earned, less its CPU time at 10 credits per ms, plus
    the debt the floor wrote off, less the half it dropped leaving the active list; and the
    credit handed out never exceeds 300 per CPU per accounting period."""
    rng = random.Random(seed)
    host = Host(cpus)
    random_load(host, rng, domains)
    host.run(1.5)
    policy = host.policy
    earned = 0.0
    for group in host.domains:
        for world in group.worlds:
            vcpu = policy.vcpu(world)
            used = world.used + (host.env.now - world.run_start if world.lcpu is not None else 0.0)
            expected = vcpu.earned + vcpu.forgiven - vcpu.dropped - used * CREDITS_PER_S
            assert policy.credit(world) == pytest.approx(expected, abs=1e-6)
            earned += vcpu.earned
    assert earned <= 300.0 * cpus * policy.accountings + 1e-6


# --------------------------------------------------------------- shares
@settings(**SLOW)
@given(st.integers(1, 2048), st.integers(1, 2048))
def test_two_hogs_on_one_cpu_closed_form(w1, w2):
    """Two always-runnable domains on one CPU get w1 / (w1 + w2) of it, within 0.03 CPU (the
    floor at -300 credits and the halving above 300 flatten it a little)."""
    if max(w1, w2) > 8 * min(w1, w2):
        w2 = min(w2, 8 * w1)
        w1 = min(w1, 8 * w2)
    host = Host(1)
    a, b = host.domain("a", weight=w1), host.domain("b", weight=w2)
    host.hog(a)
    host.hog(b)
    host.run(10.0)
    share = host.used(a) / host.env.now
    assert share == pytest.approx(w1 / (w1 + w2), abs=0.03)
    assert host.used(a) + host.used(b) == pytest.approx(host.env.now)


def test_equal_hogs_share_exactly():
    """Closed form: two equal hogs on one CPU alternate 30 ms slices: half each, to a slice."""
    host = Host(1)
    a, b = host.domain("a"), host.domain("b")
    host.hog(a)
    host.hog(b)
    host.run(3.0)
    assert abs(host.used(a) - 1.5) <= SLICE + 1e-9


@settings(**SLOW)
@given(st.integers(1, 4), st.lists(st.sampled_from([128, 256, 512]), min_size=2, max_size=5))
def test_shares_follow_weight_over_cpus(cpus, weights):
    """Single-vCPU hogs on ``cpus`` CPUs: each gets its weight's water-filled share, at most
    one CPU, within 0.06 CPU (shares follow weight x active vCPUs, and a CPU steals from its
    peers when it would otherwise run an OVER vCPU or idle)."""
    host = Host(cpus)
    groups = [host.domain(f"d{i}", weight=w) for i, w in enumerate(weights)]
    for group in groups:
        host.hog(group)
    host.run(10.0)
    expected = water_filled(weights, [1.0] * len(weights), cpus)
    for group, share in zip(groups, expected):
        assert host.used(group) / host.env.now == pytest.approx(share, abs=0.06)


def test_stealing_shares_three_hogs_over_two_cpus():
    """Three equal hogs on two CPUs get two thirds of a CPU each: without stealing, the one
    alone on a CPU would keep it (a whole CPU against half for the pair)."""
    host = Host(2)
    groups = [host.domain(f"d{i}") for i in range(3)]
    for group in groups:
        host.hog(group)
    host.run(10.0)
    for group in groups:
        assert host.used(group) / host.env.now == pytest.approx(2 / 3, abs=0.02)
    assert sum(w.migrations for g in groups for w in g.worlds) > 0


def test_multi_vcpu_domain_weight_counts_per_active_vcpu():
    """A 2-vCPU domain of weight 256 beside a 1-vCPU one of weight 256 on two CPUs: its share
    is weight x active vCPUs, 2/3 of the host, i.e. 4/3 CPU against 2/3."""
    host = Host(2)
    big, small = host.domain("big", vcpus=2), host.domain("small")
    host.hog(big)
    host.hog(small)
    host.run(10.0)
    assert host.used(big) / host.env.now == pytest.approx(4 / 3, abs=0.05)


# ------------------------------------------------------------------ caps
@settings(**SLOW)
@given(st.integers(1, 3), st.integers(1, 3), st.integers(5, 95), st.integers(0, 3),
       st.integers(0, 10_000))
def test_cap_never_exceeded_over_accounting_periods(cpus, vcpus, cap_per_vcpu, others, seed):
    """A capped domain of hogs uses, between any two accounting instants, at most its cap of
    that time plus 600 credits' worth (60 ms) per vCPU: a parked vCPU is held off until its
    credit is back to 0, and a vCPU's credit stays within [-300, 300] at an accounting."""
    rng = random.Random(seed)
    cap = min(cap_per_vcpu * vcpus, 100 * vcpus)
    host = Host(cpus)
    capped = host.domain("capped", vcpus=vcpus, cap=cap)
    host.hog(capped)
    for i in range(others):
        other = host.domain(f"o{i}", vcpus=rng.randint(1, 2), weight=rng.choice([128, 256, 1024]))
        if rng.random() < 0.5:
            host.hog(other)
        else:
            host.periodic(other, 0.005, 0.003)
    samples = []
    host.every(PERIOD, lambda: samples.append((host.env.now, host.used(capped))))
    host.run(3.0)
    slack = 600.0 / CREDITS_PER_S * vcpus
    for j, (t0, u0) in enumerate(samples):
        for t1, u1 in samples[j + 1:]:
            assert u1 - u0 <= cap / 100.0 * (t1 - t0) + slack + 1e-9


def test_cap_alone_reaches_its_cap():
    """A hog capped at 50 % alone on a CPU runs 60 ms, is parked 60 ms: half the CPU, not
    less, although the CPU idles meanwhile (a cap binds on an idle host too)."""
    host = Host(1)
    capped = host.domain("capped", cap=50)
    host.hog(capped)
    host.run(6.0)
    assert host.used(capped) / host.env.now == pytest.approx(0.5, abs=0.02)
    assert host.machine.lcpu_utilisation()[0] == pytest.approx(0.5, abs=0.02)


def test_a_cap_of_every_vcpu_is_none():
    """A limit of all its vCPUs caps nothing, as everywhere in vsim: no cap, nothing parked."""
    host = Host(1)
    group = host.domain("whole", vcpus=2, cap=200)
    host.hog(group)
    host.run(1.0)
    assert host.policy.domain(group).cap == 0.0
    assert not any(w.throttled for w in group.worlds)
    assert host.used(group) == pytest.approx(1.0)


def test_cap_leaves_the_machine_unlimited():
    """The policy takes the limit over: the machine holds no quota for the group."""
    host = Host(1)
    capped = host.domain("capped", cap=30)
    assert capped.limit == math.inf
    assert host.policy.domain(capped).cap == pytest.approx(30.0)


# ----------------------------------------------------------------- BOOST
@settings(**SLOW)
@given(st.integers(1, 3), st.integers(1, 4), st.floats(0.003, 0.05), st.floats(0.00005, 0.001),
       st.sampled_from([64, 256, 1024]))
def test_boost_gives_a_waking_io_vcpu_no_wait_beside_hogs(cpus, hogs_per_cpu, interval, work, weight):
    """A vCPU that wakes for short jobs beside CPU hogs on every CPU: whenever it wakes UNDER (or
    still BOOST, having blocked before a tick) it is BOOSTed and preempts the hog on its CPU, so it never waits (the hogs, never waking, are
    never boosted past their first tick). Asking at most half what its weight entitles it to,
    it wakes UNDER at most wake-ups; it goes OVER only when its credit ran down while it was
    off the active list (it joins it only when a tick finds it running)."""
    hogs = cpus * hogs_per_cpu
    assume(work / interval <= 0.5 * cpus * weight / (weight + 256 * hogs))
    host = Host(cpus)
    for i in range(hogs):
        host.hog(host.domain(f"hog{i}"))
    io = host.domain("io", weight=weight)
    latencies = []
    host.periodic(io, interval, work, phase=0.5, latencies=latencies)
    host.run(3.0)
    under = [wait for priority, wait in latencies if priority >= PRI_UNDER]
    assert len(under) > 10
    assert max(under) <= 1e-9


def test_an_io_vcpu_at_default_weight_stays_boosted():
    """Closed case: 0.2 ms every 5 ms (4 %) beside a hog on one CPU, both at weight 256: it
    wakes UNDER or still BOOST at nearly every wake-up and never waits then."""
    host = Host(1)
    host.hog(host.domain("hog"))
    latencies = []
    host.periodic(host.domain("io"), 0.005, 0.0002, phase=0.5, latencies=latencies)
    host.run(5.0)
    under = [wait for priority, wait in latencies if priority >= PRI_UNDER]
    assert len(under) >= 0.9 * len(latencies)
    assert max(under) <= 1e-9


def test_without_boost_a_waker_waits_behind_a_hog():
    """The contrast: a vCPU whose jobs span ticks loses BOOST at each and wakes UNDER... while
    a hog of priority UNDER holds its CPU, it waits up to a slice. Here the waker's jobs are
    long (25 ms every 40 ms), so it is usually OVER at a wake and waits for slice ends."""
    host = Host(1)
    host.hog(host.domain("hog"))
    busy = host.domain("busy")
    latencies = []
    host.periodic(busy, 0.04, 0.025, phase=0.5, latencies=latencies)
    host.run(5.0)
    assert max(wait for _priority, wait in latencies) > 0.01


def test_boost_dropped_at_a_tick():
    """A waking vCPU is BOOST until a tick finds it running, then UNDER."""
    host = Host(1)
    group = host.domain("a")
    world = group.worlds[0]
    host.machine.submit(world, 1.0, lambda _w: None)
    assert host.policy.priority(world) == PRI_BOOST
    host.run(TICK * 1.5)
    assert host.policy.priority(world) == PRI_UNDER


def test_over_after_overspending():
    """A hog on a CPU beside another gets 150 credits a period and burns up to 300: OVER."""
    host = Host(1)
    a, b = host.domain("a"), host.domain("b")
    host.hog(a)
    host.hog(b)
    seen = set()
    host.every(0.001, lambda: seen.add(host.policy.priority(a.worlds[0])), start=0.1)
    host.run(1.0)
    assert PRI_OVER in seen and PRI_UNDER in seen


# ----------------------------------------------------------- determinism
def trace(seed, cpus, domains):
    rng = random.Random(seed)
    host = Host(cpus)
    random_load(host, rng, domains)
    samples = []
    host.every(0.0071, lambda: samples.append(tuple(
        None if w is None else w.name for w in host.machine.lcpu_world)))
    host.run(1.0)
    return samples, [host.used(g) for g in host.domains]


@settings(**SLOW)
@given(st.integers(0, 10_000), st.integers(1, 3), st.integers(1, 4))
def test_deterministic(seed, cpus, domains):
    assert trace(seed, cpus, domains) == trace(seed, cpus, domains)


# -------------------------------------------------------------- the model
def test_model_file_validates():
    model = load_model(CHECKOUT / "models", "schedulers/xen_credit", SchedulerModel)
    values = model.values
    assert values.policy == "xen_credit"
    assert (values.quantum, values.period) == (0.03, 0.03)
    assert values.policy_params() == {"tick": 0.01, "credits_per_ms": 10.0, "default_weight": 256.0,
                                      "tick_debit": False}
    policy = make_policy(values.policy, **values.policy_params())
    assert isinstance(policy, XenCredit)


def test_period_must_be_whole_ticks():
    data = {"policy": "xen_credit", "quantum": 0.03, "period": 0.025, "tick": 0.01,
            "credits_per_ms": 10.0, "default_weight": 256.0, "tick_debit": False}
    with pytest.raises(InputError) as error:
        from_dict(SchedulerModel, data, source="m.toml", path="params")
    assert error.value.where == "params.period"


# ------------------------------------------------------- debit by tick
@settings(**SLOW)
@given(st.integers(1, 1024), st.integers(1, 1024))
def test_debit_by_tick_two_hogs_share_by_weight(w1, w2):
    """With a whole tick's credits debited from the vCPU each tick finds running, two hogs on
    one CPU still share it by weight (within 0.03 CPU, ratios up to 8)."""
    w1, w2 = min(w1, 8 * w2), min(w2, 8 * w1)
    host = Host(1, tick_debit=True)
    a, b = host.domain("a", weight=w1), host.domain("b", weight=w2)
    host.hog(a)
    host.hog(b)
    host.run(10.0)
    assert host.used(a) / host.env.now == pytest.approx(w1 / (w1 + w2), abs=0.03)


def test_debit_by_tick_spares_a_vcpu_between_ticks():
    """0.5 ms every 10 ms, started 2 ms after each tick: no tick finds it running, so its
    credit never moves, where a debit by time takes 5 credits a wake-up."""
    credits = {}
    for debit in ("tick", "time"):
        host = Host(1, tick_debit=debit == "tick")
        io = host.domain("io")
        host.periodic(io, 0.01, 0.0005, phase=0.002)
        host.run(1.0)
        credits[debit] = host.policy.credit(io.worlds[0])
    assert credits["tick"] == 0.0
    assert credits["time"] == pytest.approx(-5.0 * 100, abs=5.0)
