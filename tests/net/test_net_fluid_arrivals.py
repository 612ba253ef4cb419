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


def batched(pps, pattern, seed, cuts, horizon):
    """A batched flow's arrivals up to ``horizon``, asked for at the ``cuts`` (fractions)."""
    from vsim.net.fluid.arrivals import BatchedArrivals
    flow = BatchedArrivals(np.random.default_rng(seed), pps, pattern, 0.0)
    edges = np.sort(np.concatenate(([0.0, horizon], np.asarray(cuts) * horizon)))
    return flow, np.concatenate([flow.times(until) for until in edges[1:]])


@settings(max_examples=60, deadline=None)
@given(st.floats(100.0, 2e4), st.floats(1e-4, 5e-3), st.floats(0.0, 3e-4), st.floats(0.0, 0.2),
       st.lists(st.floats(0.0, 1.0), max_size=6), st.integers(0, 2**31))
def test_a_sender_on_wake_ups_writes_every_packet_due_by_each_and_no_more(pps, period, median, stalls,
                                                                          cuts, seed):
    """Whatever the lateness and the stalls, and however the time is cut: each batch is the packets
    due between two wake-ups, written back to back; all that was due by the last wake-up is written."""
    from vsim.net.fluid.arrivals import WakeupBatches
    spacing = 1e-6
    pattern = WakeupBatches(period, median, 0.5, spacing, stalls, 4 * period)
    flow, times = batched(pps, pattern, seed, cuts, 0.5)
    assert np.all(np.diff(times) >= spacing * (1 - 1e-9))
    due = flow.origin + np.arange(times.size) / pps
    assert np.all(times >= due - 1e-9)  # never written before it is due
    assert flow.sent == times.size + flow.pending.size
    # and nothing due is left behind for longer than the sender was away: by the horizon all is
    # written that was due before the last wake-up, which came at most one gap before it
    starts = times[np.concatenate(([True], np.diff(times) > spacing * (1 + 1e-6)))]
    away = max(np.diff(np.append(starts, 0.5)).max(), period) if starts.size else 0.5
    assert flow.sent >= (0.5 - flow.origin - away) * pps - 1


def test_without_lateness_each_wake_up_writes_the_rate_times_the_period():
    from vsim.net.fluid.arrivals import WakeupBatches
    _, times = batched(3000.0, WakeupBatches(1e-3, 0.0, 0.0, 2e-6), 1, [], 1.0)
    sizes = np.diff(np.append(np.flatnonzero(np.concatenate(([True], np.diff(times) > 1e-4))), times.size))
    assert sizes[0] == 1 and set(sizes[1:-1].tolist()) == {3}  # the first: packet 0, due at the origin
    _, times = batched(2500.0, WakeupBatches(1e-3, 0.0, 0.0, 2e-6), 1, [], 1.0)
    sizes = np.diff(np.append(np.flatnonzero(np.concatenate(([True], np.diff(times) > 1e-4))), times.size))
    assert set(sizes[1:-1].tolist()) == {2, 3} and abs(sizes[1:-1].mean() - 2.5) < 0.01
