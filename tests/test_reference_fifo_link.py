"""The reference FifoLink against queueing theory and against a plain per-packet simulation."""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from reference_fifo_link import DRAINED, FifoLink
from vsim.net.frames import serialization_time

GIGABIT = 1e9


def reference_link(batches, rate_bps, buffer_packets, latency):
    """Straightforward drop-tail FIFO: one packet at a time, whole history kept.

    A packet ending within DRAINED of a service time after an arrival has left
    (the link's rule against rounding in running sums)."""
    accepted_ends = []
    first_in_system = 0
    departures, dropped = [], []
    for times, sizes in batches:
        for arrival, size in zip(times, sizes):
            gone = arrival + DRAINED * serialization_time(int(size), rate_bps)
            while first_in_system < len(accepted_ends) and accepted_ends[first_in_system] <= gone:
                first_in_system += 1
            if len(accepted_ends) - first_in_system > buffer_packets:
                departures.append(math.nan)
                dropped.append(True)
                continue
            previous = accepted_ends[-1] if accepted_ends else -math.inf
            end = max(arrival, previous) + serialization_time(int(size), rate_bps)
            accepted_ends.append(end)
            departures.append(end + latency)
            dropped.append(False)
    return np.array(departures), np.array(dropped, dtype=bool)


def offer_all(link, batches):
    results = [link.offer(times, sizes) for times, sizes in batches]
    return (np.concatenate([r[0] for r in results]),
            np.concatenate([r[1] for r in results]))


def poisson_mean_wait(rho, sizes, seed, buffer_packets=math.inf, batches=20):
    """Mean queueing delay of Poisson arrivals at load ``rho`` offered in sorted batches."""
    rng = np.random.default_rng(seed)
    service = serialization_time(sizes, GIGABIT)
    arrivals = np.cumsum(rng.exponential(service.mean() / rho, sizes.size))
    latency = 50e-6
    link = FifoLink(GIGABIT, buffer_packets, latency=latency)
    departures, dropped = offer_all(
        link, zip(np.array_split(arrivals, batches), np.array_split(sizes, batches)))
    assert not dropped.any()
    return (departures - arrivals - service - latency).mean()


@pytest.mark.parametrize("rho", [0.5, 0.8])
@pytest.mark.parametrize("buffer_packets", [math.inf, 10_000])
def test_md1_mean_wait_matches_pollaczek_khinchine(rho, buffer_packets):
    sizes = np.full(1_000_000, 1500)
    service = serialization_time(1500, GIGABIT)
    expected = rho * service / (2 * (1 - rho))
    measured = poisson_mean_wait(rho, sizes, seed=20240601, buffer_packets=buffer_packets)
    assert measured == pytest.approx(expected, rel=0.05)


def test_mg1_mean_wait_with_voip_and_bulk_sizes():
    rng = np.random.default_rng(7)
    sizes = rng.choice([200, 1500], size=1_000_000, p=[0.8, 0.2])
    service = serialization_time(sizes, GIGABIT)
    rho = 0.7
    arrival_rate = rho / service.mean()
    expected = arrival_rate * np.mean(service ** 2) / (2 * (1 - rho))
    assert poisson_mean_wait(rho, sizes, seed=11) == pytest.approx(expected, rel=0.05)


def test_burst_into_idle_link_drops_beyond_buffer_plus_one():
    link = FifoLink(GIGABIT, buffer_packets=10)
    burst = 25
    departures, dropped = link.offer(np.full(burst, 1.0), 60)
    assert dropped.sum() == burst - 10 - 1
    assert not dropped[:11].any() and dropped[11:].all()
    assert np.isnan(departures[dropped]).all()
    service = serialization_time(60, GIGABIT)
    np.testing.assert_allclose(departures[:11], 1.0 + service * np.arange(1, 12))
    assert (link.offered, link.sent, link.dropped) == (25, 11, 14)


def test_space_frees_as_packets_leave():
    service = serialization_time(1500, GIGABIT)
    link = FifoLink(GIGABIT, buffer_packets=1)
    _, dropped = link.offer([0.0, 0.0, 0.0, service, service, 2 * service], 1500)
    assert dropped.tolist() == [False, False, True, False, True, False]


def test_overflow_episodes_separated_by_quiet_traffic_in_one_batch():
    service = serialization_time(1500, GIGABIT)
    burst = np.full(30, 0.0)
    quiet = 1e-3 + np.arange(100) * 3 * service
    times = np.concatenate((burst, quiet, np.full(30, 6e-3), 7e-3 + np.arange(100) * 0.5 * service))
    sizes = np.full(times.size, 1500)
    link = FifoLink(GIGABIT, buffer_packets=3, latency=1e-5)
    departures, dropped = link.offer(times, sizes)
    expected_departures, expected_dropped = reference_link([(times, sizes)], GIGABIT, 3, 1e-5)
    np.testing.assert_array_equal(dropped, expected_dropped)
    np.testing.assert_allclose(departures, expected_departures, rtol=0, atol=1e-12)
    assert dropped[:30].sum() == 26 and dropped[130:160].sum() == 26 and dropped[160:].any()


def test_utilisation_counts_only_transmission_inside_the_window():
    service = serialization_time(1500, GIGABIT)
    link = FifoLink(GIGABIT, math.inf)
    link.offer(np.zeros(10), 1500)
    assert link.busy_time == pytest.approx(10 * service)
    assert link.utilisation(5 * service) == pytest.approx(1.0)
    assert link.utilisation(20 * service) == pytest.approx(0.5)


def test_out_of_order_arrivals_and_forgotten_history_are_refused():
    link = FifoLink(GIGABIT, 4, latency=1e-3)
    link.offer([1.0, 2.0], 100)
    with pytest.raises(ValueError):
        link.offer([1.5], 100)
    with pytest.raises(ValueError):
        link.offer([3.0, 2.5], 100)
    with pytest.raises(ValueError):
        link.departed(1.0)
    assert link.departed(2.0) == 1
    assert link.departed(2.01) == 2


@pytest.mark.parametrize("kwargs", [
    dict(rate_bps=0, buffer_packets=1),
    dict(rate_bps=1e9, buffer_packets=-1),
    dict(rate_bps=1e9, buffer_packets=2.5),
    dict(rate_bps=1e9, buffer_packets=1, latency=-1e-3),
])
def test_bad_configuration_is_refused(kwargs):
    with pytest.raises(ValueError):
        FifoLink(**kwargs)


# With a rate of 2**23 b/s one byte lasts 2**-20 s; arrival times on the same
# grid keep every sum exact, so the vectorised link must agree bit for bit with
# the reference, ties between an arrival and a departure included.
DYADIC_RATE = 2.0 ** 23
TICK = 2.0 ** -20

packets = st.tuples(st.integers(0, 3000), st.integers(1, 1500))
batch_lists = st.lists(st.lists(packets, max_size=200), min_size=1, max_size=6)
buffers = st.one_of(st.integers(0, 12), st.just(math.inf))
latencies = st.sampled_from([0.0, 1000 * TICK, 0.25])


def to_batches(batch_list, start_tick=0):
    batches, tick = [], start_tick
    for batch in batch_list:
        times, sizes = [], []
        for gap, size in batch:
            tick += gap
            times.append(tick * TICK)
            sizes.append(size)
        batches.append((np.array(times, dtype=float), np.array(sizes, dtype=int)))
    return batches


@settings(max_examples=300, deadline=None)
@given(batch_list=batch_lists, buffer_packets=buffers, latency=latencies)
def test_link_equals_per_packet_reference(batch_list, buffer_packets, latency):
    batches = to_batches(batch_list)
    link = FifoLink(DYADIC_RATE, buffer_packets, latency)
    departures, dropped = offer_all(link, batches)
    expected_departures, expected_dropped = reference_link(
        batches, DYADIC_RATE, buffer_packets, latency)
    np.testing.assert_array_equal(dropped, expected_dropped)
    np.testing.assert_array_equal(departures, expected_departures)


@settings(max_examples=200, deadline=None)
@given(batch_list=batch_lists, buffer_packets=buffers, latency=latencies,
       probes=st.lists(st.integers(0, 400_000), max_size=5))
def test_conservation_and_ordering(batch_list, buffer_packets, latency, probes):
    batches = to_batches(batch_list)
    link = FifoLink(DYADIC_RATE, buffer_packets, latency)
    all_departures = []
    accepted_service = 0.0
    horizon = 0.0
    for times, sizes in batches:
        departures, dropped = link.offer(times, sizes)
        all_departures.append(departures)
        service = serialization_time(sizes, DYADIC_RATE)
        kept = ~dropped
        assert np.all(departures[kept] >= times[kept] + service[kept] + latency)
        assert np.all(np.isnan(departures[dropped]))
        assert link.offered == link.sent + link.dropped
        accepted_service += service[kept].sum()
        assert link.busy_time == pytest.approx(accepted_service)
        horizon = times[-1] if times.size else horizon
        history = np.concatenate(all_departures)
        history = history[~np.isnan(history)]
        for extra in [0, *probes]:
            t = horizon + extra * TICK
            assert link.departed(t) == np.count_nonzero(history <= t)
            assert link.offered == link.departed(t) + link.dropped + link.in_flight(t)
    history = np.concatenate(all_departures)
    assert np.all(np.diff(history[~np.isnan(history)]) >= 0)
    assert link.dropped == np.count_nonzero(np.isnan(history))
    if buffer_packets == math.inf:
        assert link.dropped == 0


@settings(max_examples=100, deadline=None)
@given(gaps=st.lists(st.floats(0.0, 2e-5), min_size=1, max_size=300),
       sizes=st.integers(20, 1500), cuts=st.lists(st.integers(0, 300), max_size=4))
def test_unbounded_queue_at_real_rates_never_drops_and_follows_lindley(gaps, sizes, cuts):
    times = np.cumsum(gaps)
    link = FifoLink(GIGABIT, math.inf)
    pieces = np.split(times, sorted(set(c for c in cuts if c < times.size)))
    departures, dropped = offer_all(link, [(piece, sizes) for piece in pieces])
    expected, _ = reference_link([(times, np.full(times.size, sizes))], GIGABIT, math.inf, 0.0)
    assert not dropped.any()
    np.testing.assert_allclose(departures, expected, rtol=0, atol=1e-12)
