"""A flood's packets as its source declares them: evenly paced on one grid, or Poisson."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from vsim.net.fluid.arrivals import FloodPackets, first_paced, paced_times, poisson_times


@settings(max_examples=60, deadline=None)
@given(st.floats(1.0, 1e5), st.lists(st.floats(0.0, 1.0), min_size=1, max_size=8), st.integers(0, 2**31))
def test_paced_arrivals_stay_on_one_grid_however_the_time_is_cut(pps, cuts, seed):
    period, horizon = 1.0 / pps, 200.0 / pps
    first = first_paced(np.random.default_rng(seed), 0.0, period)
    assert 0.0 <= first < period
    edges = np.sort(np.concatenate(([0.0, horizon], np.asarray(cuts) * horizon)))
    pieces, next_at = [], first
    for until in edges[1:]:
        times, next_at = paced_times(next_at, period, until)
        assert np.all(times < until) and next_at >= until * (1 - 1e-12)
        pieces.append(times)
    got = np.concatenate(pieces)
    want = first + period * np.arange(int(np.ceil((horizon - first) / period)))
    want = want[want < horizon]
    assert got.size == want.size
    assert np.allclose(got, want, rtol=0, atol=1e-9 * period * want.size)


def test_a_resumed_paced_flow_keeps_its_grid():
    assert first_paced(None, 1.0, 0.25, resumed=1.1) == 1.1
    assert first_paced(None, 1.0, 0.25, resumed=0.3) == pytest.approx(1.05)


def test_poisson_arrivals_come_at_their_rate():
    times = poisson_times(np.random.default_rng(4), 1000.0, 2.0, 12.0)
    assert np.all(np.diff(times) >= 0) and times[0] >= 2.0 and times[-1] < 12.0
    assert times.size == pytest.approx(10_000, abs=4 * 100)   # four standard deviations


def test_flows_realized_as_packets_need_a_rate_and_a_key_each():
    with pytest.raises(ValueError, match="key"):
        FloodPackets.of([1.0, 2.0], 1.0, 1.0, True, ("a",))
    with pytest.raises(ValueError, match="positive"):
        FloodPackets.of([0.0], 1.0, 1.0, True, ("a",))
    assert len(FloodPackets.none()) == 0
