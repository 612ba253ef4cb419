"""Virtual-NIC interrupt coalescing: rate limit, static batching and pass-through."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from vsim.net.coalescing import InterruptCoalescer

gap_lists = st.lists(st.floats(0.0, 1e-3), max_size=80)
call_lists = st.lists(gap_lists, min_size=1, max_size=6)


def arrivals_per_call(calls):
    out, now = [], 0.0
    for gaps in calls:
        times = now + np.cumsum(gaps)
        now = times[-1] if times.size else now
        out.append(times)
    return out


def run(coalescer, calls):
    times = arrivals_per_call(calls)
    delivered = [coalescer.deliver(t) for t in times]
    return np.concatenate(times), np.concatenate(delivered)


def test_off_delivers_every_packet_on_arrival():
    coalescer = InterruptCoalescer("off")
    times = np.array([0.0, 1e-6, 1e-6, 5e-3])
    np.testing.assert_array_equal(coalescer.deliver(times), times)
    assert coalescer.interrupts == 4


def test_rate_mode_delivers_a_burst_with_one_interrupt_and_defers_the_next():
    coalescer = InterruptCoalescer("rate", max_rate_hz=4000.0)
    first = coalescer.deliver(np.full(100, 1.0))
    np.testing.assert_array_equal(first, np.full(100, 1.0))
    second = coalescer.deliver(np.array([1.0001, 1.0002, 1.01]))
    np.testing.assert_allclose(second, [1.00025, 1.00025, 1.01])
    assert coalescer.interrupts == 3


def test_rate_mode_later_call_joins_an_announced_interrupt():
    coalescer = InterruptCoalescer("rate", max_rate_hz=1000.0)
    coalescer.deliver(np.array([0.0, 0.0005]))
    np.testing.assert_allclose(coalescer.deliver(np.array([0.0007])), [0.001])
    assert coalescer.interrupts == 2


@settings(max_examples=200, deadline=None)
@given(calls=call_lists, max_rate_hz=st.sampled_from([1000.0, 4000.0, 20000.0]))
def test_rate_mode_interrupts_are_spaced_and_each_packet_takes_the_first_one(calls, max_rate_hz):
    coalescer = InterruptCoalescer("rate", max_rate_hz=max_rate_hz)
    times, delivered = run(coalescer, calls)
    assert np.all(delivered >= times)
    assert np.all(np.diff(delivered) >= 0)
    fires = np.unique(delivered)
    assert coalescer.interrupts == fires.size
    assert np.all(np.diff(fires) >= 1.0 / max_rate_hz - 1e-12)
    first_fire_at_or_after = np.searchsorted(fires, times, side="left")
    np.testing.assert_array_equal(fires[first_fire_at_or_after], delivered)
    for previous, fire in zip(np.concatenate(([-np.inf], fires[:-1])), fires):
        assert fire in times or fire == previous + 1.0 / max_rate_hz


def static_reference(calls_times, batch, timeout):
    """Per-packet static coalescing; pending packets are flushed at the end of each call."""
    delivered, last_fire = [], -np.inf
    for times in calls_times:
        pending = []

        def fire(at):
            delivered.extend([at] * len(pending))
            pending.clear()
            return at

        for arrival in times:
            if pending and arrival > pending[0] + timeout:
                last_fire = fire(pending[0] + timeout)
            if arrival <= last_fire:
                delivered.append(last_fire)
                continue
            pending.append(arrival)
            if len(pending) == batch:
                last_fire = fire(arrival)
        if pending:
            last_fire = fire(pending[0] + timeout)
    return np.array(delivered)


def test_static_mode_fires_on_batch_count_then_on_timeout():
    coalescer = InterruptCoalescer("static", batch=64, timeout=0.004)
    times = np.arange(200) * 10e-6
    delivered = coalescer.deliver(times)
    expected = np.concatenate([np.full(64, times[63]), np.full(64, times[127]),
                               np.full(64, times[191]), np.full(8, times[192] + 0.004)])
    np.testing.assert_allclose(delivered, expected)
    assert coalescer.interrupts == 4


def test_static_mode_timeout_bounds_a_sparse_burst():
    coalescer = InterruptCoalescer("static", batch=64, timeout=0.004)
    delivered = coalescer.deliver(np.array([0.0, 0.001, 0.003, 0.005]))
    np.testing.assert_allclose(delivered, [0.004, 0.004, 0.004, 0.009])
    assert coalescer.interrupts == 2


def test_static_mode_takes_all_packets_pending_at_the_interrupt():
    coalescer = InterruptCoalescer("static", batch=64, timeout=0.004)
    np.testing.assert_array_equal(coalescer.deliver(np.full(150, 2.0)), np.full(150, 2.0))
    assert coalescer.interrupts == 1


@settings(max_examples=200, deadline=None)
@given(calls=call_lists, batch=st.integers(1, 16), timeout=st.sampled_from([0.0, 5e-4, 4e-3]))
def test_static_mode_waits_at_most_the_timeout(calls, batch, timeout):
    coalescer = InterruptCoalescer("static", batch=batch, timeout=timeout)
    times, delivered = run(coalescer, calls)
    assert np.all(delivered >= times)
    assert np.all(delivered <= times + timeout)
    assert np.all(np.diff(delivered) >= 0)
    assert coalescer.interrupts == np.unique(delivered).size
    expected = static_reference(arrivals_per_call(calls), batch, timeout)
    np.testing.assert_array_equal(delivered, expected.reshape(delivered.shape))
    if timeout == 0.0:
        np.testing.assert_array_equal(delivered, times)


@pytest.mark.parametrize("kwargs", [
    dict(mode="adaptive"),
    dict(mode="rate", max_rate_hz=0),
    dict(mode="static", batch=0),
    dict(mode="static", timeout=-1.0),
])
def test_bad_configuration_is_refused(kwargs):
    with pytest.raises(ValueError):
        InterruptCoalescer(**kwargs)


def test_out_of_order_arrivals_are_refused():
    coalescer = InterruptCoalescer("rate")
    coalescer.deliver(np.array([1.0]))
    with pytest.raises(ValueError):
        coalescer.deliver(np.array([0.5]))
