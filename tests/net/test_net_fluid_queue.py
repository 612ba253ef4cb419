"""The fluid + packet queue against queueing theory and against a per-packet simulation."""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from benchmark_scripts import load_benchmark
from vsim.net.fluid.queue import FluidPacketQueue

reference = load_benchmark("uplink_packet_reference")

SERVICE = 1e-6


def poisson_wait(rng, rho, work, batches=50):
    arrivals = np.cumsum(rng.exponential(work.mean() / rho, work.size))
    queue = FluidPacketQueue(1e12, "packets", rng)
    departures = np.concatenate([queue.offer(t, w, 1.0) for t, w in
                                 zip(np.array_split(arrivals, batches), np.array_split(work, batches))])
    return (departures - arrivals - work).mean()


@pytest.mark.parametrize("rho", [0.5, 0.8])
def test_packets_alone_md1_wait_is_pollaczek_khinchine(rho):
    rng = np.random.default_rng(20261124)
    wait = poisson_wait(rng, rho, np.full(300_000, SERVICE))
    assert wait == pytest.approx(rho * SERVICE / (2 * (1 - rho)), rel=0.05)


def test_packets_alone_mg1_wait_with_mixed_sizes():
    rng = np.random.default_rng(3)
    work = rng.choice([0.78e-6, 12.3e-6], size=300_000, p=[0.8, 0.2])   # 60 B voice, 1500 B bulk on 1 GbE
    rho = 0.7
    expected = (rho / work.mean()) * np.mean(work ** 2) / (2 * (1 - rho))
    assert poisson_wait(rng, rho, work) == pytest.approx(expected, rel=0.05)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31), st.integers(1, 12), st.floats(0.3, 3.0), st.integers(1, 8))
def test_packets_alone_drop_tail_is_exact(seed, limit, load, batches):
    rng = np.random.default_rng(seed)
    n = 400
    work = rng.choice([0.5e-6, 1e-6, 3e-6], size=n)
    gaps = rng.exponential(work.mean() / load, n) * (rng.random(n) < 0.7)   # bursts at one instant
    times = np.cumsum(gaps)
    queue = FluidPacketQueue(limit, "packets", rng)
    cuts = np.sort(rng.choice(np.arange(1, n), size=batches - 1, replace=False))
    got = np.concatenate([queue.offer(t, w, 1.0) for t, w in
                          zip(np.split(times, cuts), np.split(work, cuts))])
    want = reference.drop_tail_fifo(times, work, limit)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.allclose(got[~np.isnan(got)], want[~np.isnan(want)], rtol=0, atol=1e-15)


def test_byte_limit_counts_frame_bytes():
    queue = FluidPacketQueue(4000, "bytes", np.random.default_rng(1))
    out = queue.offer(np.zeros(5), [12.1e-6] * 3 + [0.6e-6] * 2, [1518, 1518, 1518, 78, 78])
    assert np.isnan(out).tolist() == [False, False, True, False, False]


@pytest.mark.parametrize("unit, size", [("packets", 1.0), ("bytes", 300.0)])
@pytest.mark.parametrize("overload", [1.05, 1.5, 3.0])
def test_fluid_loss_under_persistent_overload(unit, size, overload):
    queue = FluidPacketQueue(500 * size, unit, np.random.default_rng(2))
    pps = overload / SERVICE
    queue.set_fluid(0.0, overload, pps, pps * size)
    queue.advance(2.0)
    lost = 1 - queue.fluid_accepted_work / queue.fluid_offered_work
    fill = 500 * SERVICE / (overload - 1)
    assert lost == pytest.approx((overload - 1) / overload * (1 - fill / 2.0), rel=1e-6)
    # the queue holds its limit: the fill time is the only shortfall from full service
    assert queue.fluid_accepted_work == pytest.approx(2.0 + 500 * SERVICE, rel=1e-9)


def test_fluid_below_capacity_passes_without_loss_or_backlog():
    queue = FluidPacketQueue(100, "packets", np.random.default_rng(2))
    queue.set_fluid(0.0, 0.9, 0.9e6, 0.9e6)
    queue.advance(1.0)
    assert queue.fluid_accepted_work == queue.fluid_offered_work
    assert queue.fluid_backlog_work() == 0.0
    # a packet sees only its own service
    assert queue.offer([1.0], SERVICE, 1.0)[0] == pytest.approx(1.0 + SERVICE)


def overloaded_queue(seed, overload=1.1, limit=200):
    queue = FluidPacketQueue(limit, "packets", np.random.default_rng(seed))
    queue.set_fluid(0.0, overload, overload / SERVICE, overload / SERVICE)
    return queue


def test_conservation_of_frames_and_work():
    queue = overloaded_queue(4)
    rng = np.random.default_rng(5)
    offered = 0
    for tick in np.arange(0.001, 0.5, 0.001):
        times = tick + np.sort(rng.uniform(0, 50e-6, 20))
        out = queue.offer(times, SERVICE, 1.0)
        offered += times.size
    end = 0.5
    queue.advance(end)
    delivered = queue.packets_accepted - queue.in_system(end)
    assert offered == queue.packets_offered == delivered + queue.packets_dropped + queue.in_system(end)
    # work: everything accepted was served at the full rate or is still queued
    packet_work = queue.packets_accepted * SERVICE
    assert queue.fluid_accepted_work + packet_work == pytest.approx(end + queue.work, rel=1e-9)


def test_isolated_packets_lose_the_drop_tail_fraction():
    """A packet at a random instant is lost as often as the flood: (offered - served) / offered."""
    queue = overloaded_queue(6, overload=1.25)
    times = np.arange(0.01, 2.0, 400e-6)
    out = np.concatenate([queue.offer([t], SERVICE, 1.0) for t in times])
    expected = 0.25 / 1.25
    sd = math.sqrt(expected * (1 - expected) / times.size)
    assert abs(np.isnan(out).mean() - expected) < 4 * sd
    # a packet that fits waits behind a nearly full queue
    assert np.nanmean(out - times) == pytest.approx(200 * SERVICE, rel=0.05)


def voice_bursts(rng, duration, size, spacing):
    ticks = np.arange(0.02, duration, 0.02)
    ticks = ticks + rng.uniform(0, 1e-3, ticks.size)
    return ticks[:, None] + np.arange(size)[None, :] * spacing


@pytest.mark.parametrize("spacing", [0.0, 1.0, 4.0])
def test_bursts_agree_with_a_per_packet_simulation(spacing):
    """Voice bursts beside a Poisson flood: loss by position in the burst and delay, against
    every flood packet simulated. Flood 39 K/s into 36.3 K/s of service, 256 places."""
    served, flood, limit, duration, size = 36_300.0, 39_000.0, 256, 6.0, 12
    work = 1 / served
    bursts = voice_bursts(np.random.default_rng(9), duration, size, spacing * work)
    voice = bursts.ravel()
    ref, _, _ = reference.voice_with_flood(np.random.default_rng(10), flood_pps=flood,
                                           voice_times=voice, service=work, limit=limit,
                                           duration=duration + 0.1)
    queue = FluidPacketQueue(limit, "packets", np.random.default_rng(11))
    queue.set_fluid(0.0, flood * work, flood, flood)
    got = np.concatenate([queue.offer(b, work, 1.0) for b in bursts])
    lost_ref = np.isnan(ref.reshape(bursts.shape))
    lost_got = np.isnan(got.reshape(bursts.shape))
    n = bursts.shape[0]
    for position in (0, size // 2, size - 1):
        p = (lost_ref[:, position].mean() + lost_got[:, position].mean()) / 2
        sd = math.sqrt(2 * max(p * (1 - p), 0.01) / n)
        assert abs(lost_ref[:, position].mean() - lost_got[:, position].mean()) < 4 * sd
    p = lost_ref.mean()
    assert abs(lost_got.mean() - p) < 0.05
    assert np.nanmean(got - voice) == pytest.approx(np.nanmean(ref - voice), rel=0.02)
    # later places in a burst lose more when the burst is tight
    if spacing <= 1.0:
        assert lost_got[:, -1].mean() > lost_got[:, 0].mean() + 0.1


def test_same_seed_same_departures():
    def run():
        queue = overloaded_queue(12)
        rng = np.random.default_rng(13)
        return np.concatenate([queue.offer(t + np.arange(10) * 1e-6, SERVICE, 1.0)
                               for t in np.sort(rng.uniform(0, 0.2, 100))])
    assert np.array_equal(run(), run(), equal_nan=True)
