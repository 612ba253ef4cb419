"""The free places of a queue a Poisson flood keeps full, against the D/M/1 law and a simulation."""

import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

from benchmark_scripts import load_benchmark
from vsim.net.fluid.free_slots import draw_free_slots, geometric_ratio

reference = load_benchmark("uplink_packet_reference")


def mean_free_slots(overload):
    """Mean number of free places at a random instant: the law's sum over k of
    k (1/r) (1 - s) s^(k-1) = 1 / (r (1 - s))."""
    s = geometric_ratio(overload)
    return 1.0 / (overload * (1.0 - s))


@given(st.floats(1.001, 50.0))
def test_geometric_ratio_solves_its_equation_inside_the_unit_interval(overload):
    s = geometric_ratio(overload)
    assert 0 <= s < 1
    assert s == pytest.approx(math.exp(-overload * (1 - s)), abs=1e-12)


def test_draws_follow_the_law():
    rng = np.random.default_rng(1)
    draws = np.array([draw_free_slots(rng, 1.1) for _ in range(40_000)])
    assert (draws == 0).mean() == pytest.approx(1 - 1 / 1.1, abs=0.006)
    assert draws.mean() == pytest.approx(mean_free_slots(1.1), rel=0.05)


def test_law_matches_a_queue_kept_full_by_poisson_packets():
    """Free places seen at random instants in a per-packet simulation of an overloaded queue."""
    rng = np.random.default_rng(2)
    service, limit, overload = 1.0, 40, 1.2
    flood = reference.poisson_flood(rng, overload / service, 0.0, 40_000.0)
    departures = reference.drop_tail_fifo(flood, np.full(flood.size, service), limit)
    kept = np.sort(departures[~np.isnan(departures)])
    probes = np.sort(rng.uniform(1000.0, 39_000.0, 20_000))
    arrived = np.searchsorted(flood[~np.isnan(departures)], probes, side="right")
    left = np.searchsorted(kept, probes, side="right")
    free = limit - (arrived - left)
    s = geometric_ratio(overload)
    for k in range(0, 4):
        law = 1 - 1 / overload if k == 0 else (1 / overload) * (1 - s) * s ** (k - 1)
        assert (free == k).mean() == pytest.approx(law, abs=0.015)
