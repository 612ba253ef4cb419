"""The tc disciplines together: registered, frames conserved, same seed same output."""

import math

import numpy as np
from hypothesis import given, settings, strategies as st

from vsim.net.fluid.flows import Flows
from vsim.net.txpath.cost import PathCost
from vsim.net.uplink import SCHEDULERS, make_uplink_scheduler
from vsim.net.uplink.htb_tree import HtbClass, HtbTree

NAMES = ["pfifo", "bfifo", "tbf", "htb"]


def make(name, seed):
    rng = np.random.default_rng(seed)
    if name == "pfifo":
        return make_uplink_scheduler("pfifo", 1e8, 30, rng=rng, cost=PathCost(per_packet=2e-6))
    if name == "bfifo":
        return make_uplink_scheduler("bfifo", 1e8, 20_000, "bytes", rng=rng)
    if name == "tbf":
        return make_uplink_scheduler("tbf", math.inf, 20_000, "bytes", rate=5e7, burst=8000, rng=rng)
    tree = HtbTree([HtbClass("root", 5e7, children=(
        HtbClass("a", 1e7, ceil=5e7), HtbClass("b", 2e7, ceil=4e7, prio=1, limit=20)))])
    return make_uplink_scheduler("htb", math.inf, 30, tree=tree, rng=rng,
                                 port_leaf={0: "a"}, default="b")


def test_the_tc_disciplines_are_registered():
    assert set(NAMES) <= set(SCHEDULERS)


def drive(sched, seed, flood_pps, steps=40):
    """Bursts of frames on ports 0..3 while a flood on port 1 changes rate."""
    r = np.random.default_rng(seed)
    sent, departures = 0, []
    for k, t in enumerate(np.linspace(0.0, 0.02, steps, endpoint=False)):
        if k % 10 == 0:
            sched.set_flows(t, Flows.of([flood_pps * r.uniform(0.2, 2.0)], 800, 0, 1))
        n = int(r.integers(1, 30))
        times = t + np.sort(r.uniform(0, 4e-4, n))
        departures.append(sched.transmit(times, r.choice([60, 500, 1400], n), 0, r.integers(0, 4, n)))
        sent += n
    return sent, np.concatenate(departures)


@settings(max_examples=20, deadline=None)
@given(name=st.sampled_from(NAMES), seed=st.integers(0, 1000), flood=st.floats(1e3, 2e4))
def test_frames_sent_are_delivered_dropped_or_queued(name, seed, flood):
    sched = make(name, seed)
    sent, d = drive(sched, seed, flood)
    end = 0.02
    sched.advance(end)
    delivered = np.count_nonzero(d <= end)
    assert sent == sched.frames_offered == delivered + sched.frames_dropped + sched.frames_in_system(end)
    assert np.count_nonzero(np.isnan(d)) == sched.frames_dropped
    assert sched.fluid_accepted_work <= sched.fluid_offered_work * (1 + 1e-9)


@settings(max_examples=8, deadline=None)
@given(name=st.sampled_from(NAMES), seed=st.integers(0, 1000))
def test_same_seed_same_output(name, seed):
    runs = [drive(make(name, seed), seed, 1.5e4)[1] for _ in range(2)]
    assert np.array_equal(runs[0], runs[1], equal_nan=True)
