"""Timers due at one instant expire in one interrupt: aligned workers with ``shared_expiry`` wake
with one lateness per tick, whoever reads it first (the closed form, which plays one worker's
ticks at a time, reads them in another order than the event engine)."""

from pathlib import Path

import numpy as np
from hypothesis import given, settings, strategies as st

from vsim.build.load import load_scenario
from vsim.engines.simulation import Simulation
from vsim.guest.timer import SharedExpiry, TimerLatency

ALIGNED = Path(__file__).resolve().parents[2] / "configs" / "validation" / "cpu_aligned.toml"


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=400), st.integers(0, 2**31))
def test_every_view_reads_the_same_lateness_per_tick_in_any_order(order, seed):
    shared = SharedExpiry(TimerLatency(np.random.default_rng(seed), 1e-4, 0.5))
    views = [shared.view() for _ in range(4)]
    got = [[] for _ in views]
    for index in order:
        got[index].append(views[index].draw())
    reference = TimerLatency(np.random.default_rng(seed), 1e-4, 0.5)
    want = [reference.draw() for _ in range(max(len(g) for g in got))]
    for values in got:
        assert values == want[:len(values)]


def wakes(overrides, engine="events"):
    sim = Simulation(load_scenario(ALIGNED, overrides), 1, engine=engine)
    sim.record_wakeups()
    sim.run(1.0, 0.0)
    return [[when for _, when in worker.wakes] for server in sim.servers for worker in server.workers]


def test_aligned_workers_wake_together_with_a_shared_expiry_and_apart_without():
    together = wakes([])
    assert all(w == together[0] for w in together[1:])
    apart = wakes(["params.workload.shared_expiry=false"])
    assert len({tuple(w) for w in apart}) == len(apart)

