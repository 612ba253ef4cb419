"""vsim.net.fluid.burst: its loops give the floats of the numpy array expressions they stand
for (the queue's outputs stay byte-identical whether a burst goes through either)."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vsim.net.fluid.burst import fifo_departures, merge_events, open_burst, pinned_walk, suffix_sums

floats = st.floats(min_value=0.0, max_value=1e-3, allow_nan=False)
sorted_floats = st.lists(floats, max_size=40).map(sorted)


@given(st.lists(st.floats(min_value=-1e3, max_value=1e3), max_size=50))
def test_suffix_sums_are_numpys_reversed_cumulative_sum(values):
    expected = np.concatenate((np.cumsum(np.array(values, dtype=float)[::-1])[::-1], [0.0]))
    assert suffix_sums(values) == expected.tolist()


@given(sorted_floats, sorted_floats.filter(bool), st.floats(min_value=1.0, max_value=1e6))
def test_merged_events_are_numpys_stable_argsort_and_gaps(opened, arrivals, pps):
    order, means = merge_events(opened, arrivals, pps, 1e15)
    at = np.concatenate((np.array(opened, dtype=float), np.array(arrivals)))
    expected = np.argsort(at, kind="stable")
    gaps = at[expected]
    gaps[1:] -= gaps[:-1].copy()
    assert order == expected.tolist()
    assert means == np.minimum(pps * gaps, 1e15).tolist()


def test_means_are_capped():
    _, means = merge_events([], [0.0, 10.0], 1e20, 1e15)
    assert means == [0.0, 1e15]


@settings(max_examples=200)
@given(st.data())
def test_the_walk_of_free_places_is_the_numpy_reflected_cumulative_sum(data):
    n_opened = data.draw(st.integers(0, 15))
    need = data.draw(st.lists(st.floats(min_value=0.1, max_value=3.0), min_size=1, max_size=15))
    order = data.draw(st.permutations(range(n_opened + len(need))))
    taken = data.draw(st.lists(st.integers(0, 4), min_size=len(order), max_size=len(order)))
    free0 = data.draw(st.floats(min_value=0.0, max_value=20.0))
    room = data.draw(st.floats(min_value=0.0, max_value=30.0))
    order_a = np.array(order)
    step = np.empty(2 * order_a.size)
    step[0::2] = -np.array(taken)
    step[1::2] = np.concatenate((np.ones(n_opened), -np.array(need)))[order_a]
    totals = free0 + np.cumsum(step)
    after = totals - np.minimum(0.0, np.minimum.accumulate(totals))
    position = np.empty(order_a.size, dtype=np.int64)
    position[order_a] = np.arange(order_a.size)
    expected = np.minimum(after[0::2][position[n_opened:]], room)
    assert pinned_walk(list(order), taken, n_opened, free0, need, room) == expected.tolist()


@settings(max_examples=200)
@given(st.data())
def test_pinned_departures_are_the_numpy_fifo_of_the_packets_that_fit(data):
    n = data.draw(st.integers(1, 20))
    times = sorted(data.draw(st.lists(floats, min_size=n, max_size=n)))
    work = data.draw(st.lists(st.floats(min_value=1e-7, max_value=1e-5), min_size=n, max_size=n))
    before = data.draw(st.lists(st.floats(min_value=0.0, max_value=5.0), min_size=n, max_size=n))
    need = data.draw(st.lists(st.floats(min_value=0.5, max_value=2.0), min_size=n, max_size=n))
    cap, per_packet, rate = 1e-4, 1.2e-5, data.draw(st.floats(min_value=0.1, max_value=1.0))
    before_run = data.draw(st.one_of(st.just(-math.inf), floats))
    departures, kept = fifo_departures(times, work, 0, before, need, cap, per_packet, rate,
                                       before_run, 1e-9)
    t, w, b = np.array(times), np.array(work), np.array(before)
    fits = b >= np.array(need) * (1 - 1e-9)
    ahead = np.maximum(0.0, cap - b * per_packet)
    expected = np.where(fits, t + (ahead + w) / rate, np.nan)
    keep = np.flatnonzero(fits)
    if keep.size:
        spacing = np.cumsum(w[keep] / rate)
        expected[keep] = spacing + np.maximum.accumulate(np.maximum(expected[keep] - spacing, before_run))
    assert kept == keep.tolist()
    assert np.array_equal(np.array(departures), expected, equal_nan=True)


def numpy_open_burst(t, w, u, t0, v0, net, rate, rests, dep, dwork, dunits, upw, limit, excludes,
                     fluid_packet):
    """The open regime as array expressions: accepted count, their departures, the last's wait."""
    service = w / rate
    totals = np.cumsum(service + np.diff(t, prepend=t0) * (net / rate))
    floor = service + rests - totals if rests is not None else service - totals
    after = totals + np.maximum(v0, np.maximum.accumulate(floor))
    before = after - service
    departures = t + after
    k_old = np.searchsorted(dep, t, side="right")
    old_units = np.concatenate((np.cumsum(dunits[::-1])[::-1], [0.0]))[k_old]
    old_work = np.concatenate((np.cumsum(dwork[::-1])[::-1], [0.0]))[k_old]
    idx = np.arange(t.size)
    first_left = np.minimum(np.searchsorted(departures, t, side="right"), idx)
    cum_u = np.concatenate(([0.0], np.cumsum(u)))
    cum_w = np.concatenate(([0.0], np.cumsum(w)))
    fluid_work = np.maximum(0.0, before * rate - old_work - (cum_w[idx] - cum_w[first_left]))
    fluid_units = fluid_work * upw if upw else 0.0
    occupied = fluid_units + old_units + (cum_u[idx] - cum_u[first_left])
    if excludes:
        has_old = k_old < dep.size
        k = np.minimum(k_old, max(dep.size - 1, 0))
        old = (dep[k], dwork[k], dunits[k]) if dep.size else (0.0, 0.0, 0.0)
        has_new = ~has_old & (first_left < idx)
        head_dep = np.where(has_old, old[0], departures[first_left])
        head_work = np.where(has_old, old[1], w[first_left])
        head_units = np.where(has_old, old[2], u[first_left])
        serving = (has_old | has_new) & (head_dep - head_work / rate <= t * (1 + 1e-9))
        occupied = occupied - np.where(serving, head_units, np.minimum(fluid_packet, fluid_units))
    over = np.flatnonzero(occupied + u > limit)
    accepted = int(over[0]) if over.size else t.size
    return accepted, departures[:accepted].tolist(), float(after[accepted - 1]) if accepted else 0.0


@settings(max_examples=300)
@given(st.data())
def test_the_open_regime_is_the_numpy_lindley_recursion_and_limit_test(data):
    n = data.draw(st.integers(1, 25))
    t0 = data.draw(floats)
    t = t0 + np.array(sorted(data.draw(st.lists(floats, min_size=n, max_size=n))))
    w = np.array(data.draw(st.lists(st.floats(min_value=1e-7, max_value=2e-5), min_size=n, max_size=n)))
    u = np.array(data.draw(st.lists(st.sampled_from([1.0, 90.0, 1500.0]), min_size=n, max_size=n)))
    m = data.draw(st.integers(0, 6))
    dep = t0 + np.array(sorted(data.draw(st.lists(floats, min_size=m, max_size=m))))
    dwork = np.full(m, 1.2e-5)
    dunits = np.array(data.draw(st.lists(st.sampled_from([1.0, 1500.0]), min_size=m, max_size=m)))
    v0 = data.draw(st.floats(min_value=0.0, max_value=1e-4))
    net = data.draw(st.floats(min_value=-1.0, max_value=0.5))
    rate = data.draw(st.floats(min_value=0.2, max_value=1.0))
    rests = np.array(data.draw(st.lists(st.floats(min_value=0.0, max_value=1e-5), min_size=n, max_size=n)))
    rests = data.draw(st.sampled_from([None, rests]))
    upw = data.draw(st.sampled_from([0.0, 1.0 / 1.2e-5, 1500.0 / 1.2e-5]))
    limit = data.draw(st.floats(min_value=1.0, max_value=20000.0))
    excludes = data.draw(st.booleans())
    fluid_packet = data.draw(st.sampled_from([0.0, 1.0, 1500.0]))
    got = open_burst(t.tolist(), w.tolist(), u.tolist(), 0, n, t0, v0, net, rate,
                     None if rests is None else rests.tolist(), dep.tolist(), dwork.tolist(),
                     dunits.tolist(), upw, limit, excludes, fluid_packet, 1e-9)
    assert got == numpy_open_burst(t, w, u, t0, v0, net, rate, rests, dep, dwork, dunits, upw, limit,
                                   excludes, fluid_packet)
