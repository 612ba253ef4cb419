"""The per-packet FIFO of the joint regime: exact without a flood, consistent with one."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from benchmark_scripts import load_benchmark
from vsim.net.fluid.realized import RealizedFlood

reference = load_benchmark("uplink_packet_reference")

SERVICE = 1e-6


def frames(seed, n=300, load=1.5):
    rng = np.random.default_rng(seed)
    work = rng.choice([0.3e-6, 1e-6, 4e-6], size=n)
    times = np.cumsum(rng.exponential(work.mean() / load, n) * (rng.random(n) < 0.6))
    return times, work


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31), st.integers(1, 12), st.booleans(), st.integers(1, 6))
def test_without_a_flood_it_is_the_drop_tail_fifo(seed, limit, excludes_in_service, batches):
    """No flood packets: frames alone are the reference FIFO, the packet in service not counted
    being one more place."""
    times, work = frames(seed)
    queue = RealizedFlood(limit, excludes_in_service, np.random.default_rng(seed))
    queue.begin(0.0, 1.0, 0.0, SERVICE, 1.0, 0.0, (np.empty(0), np.empty(0), np.empty(0)))
    got = np.concatenate([queue.offer(t, w, np.ones(t.size)) for t, w in
                          zip(np.array_split(times, batches), np.array_split(work, batches)) if t.size])
    want = reference.drop_tail_fifo(times, work, limit + (1 if excludes_in_service else 0))
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.allclose(got[~np.isnan(got)], want[~np.isnan(want)], rtol=0, atol=1e-15)


def test_a_fluid_backlog_becomes_whole_packets_in_the_gaps_the_frames_leave():
    queue = RealizedFlood(100, False, np.random.default_rng(1))
    # 10 services queued from t=0: a frame of 2 services leaves at 5, the rest is the flood's 8
    queue.begin(0.0, 1.0, 0.0, SERVICE, 1.0, 10 * SERVICE,
                (np.array([5 * SERVICE]), np.array([2 * SERVICE]), np.array([1.0])))
    departures = sorted(entry[0] for entry in queue._system)
    assert departures == pytest.approx(np.array([1, 2, 3, 5, 6, 7, 8, 9, 10]) * SERVICE)
    assert queue.in_system_units(0.0) == 9
    assert queue.backlog_work(0.0) == pytest.approx(10 * SERVICE)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31), st.floats(0.2, 1.5), st.integers(2, 40))
def test_every_packet_is_delivered_dropped_or_in_the_system(seed, flood_load, limit):
    rng = np.random.default_rng(seed)
    times, work = frames(seed, n=200)
    queue = RealizedFlood(limit, True, rng)
    queue.begin(0.0, 1.0, flood_load / SERVICE, SERVICE, 1.0, 0.0, (np.empty(0), np.empty(0), np.empty(0)))
    out = queue.offer(times, work, np.ones(times.size))
    end = float(times[-1])
    kept = ~np.isnan(out)
    assert np.all(out[kept] >= times[kept] + work[kept] * (1 - 1e-12))
    assert np.all(np.diff(out[kept]) >= work[kept][1:] * (1 - 1e-9))
    in_system = queue.in_system_units(end)
    frames_in = int(np.count_nonzero(out[kept] > end))
    assert queue.flood_accepted <= queue.flood_offered
    # what is in the system is the accepted packets not yet gone, and never over the limit + 1
    assert in_system <= limit + 1
    assert frames_in <= in_system
