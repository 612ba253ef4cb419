"""The per-packet FIFO of the joint regime: exact without a flood, consistent with one."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from benchmark_scripts import load_benchmark
from vsim.net.fluid.arrivals import FloodPackets
from vsim.net.fluid.realized import RealizedFlood

reference = load_benchmark("uplink_packet_reference")

SERVICE = 1e-6


def frames(seed, n=300, load=1.5):
    rng = np.random.default_rng(seed)
    work = rng.choice([0.3e-6, 1e-6, 4e-6], size=n)
    times = np.cumsum(rng.exponential(work.mean() / load, n) * (rng.random(n) < 0.6))
    return times, work


def units_in_system(queue, t):
    """Units of everything in ``queue`` at ``t``: its packets (frames and flood) not yet gone."""
    return sum(units for departure, _, units in queue._system if departure > t)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31), st.integers(1, 12), st.booleans(), st.integers(1, 6))
def test_without_a_flood_it_is_the_drop_tail_fifo(seed, limit, excludes_in_service, batches):
    """No flood packets: frames alone are the reference FIFO, the packet in service not counted
    being one more place."""
    times, work = frames(seed)
    queue = RealizedFlood(limit, excludes_in_service, np.random.default_rng(seed))
    queue.begin(0.0, 1.0, FloodPackets.none(), 0.0, (np.empty(0), np.empty(0), np.empty(0)))
    got = np.concatenate([queue.offer(t, w, np.ones(t.size)) for t, w in
                          zip(np.array_split(times, batches), np.array_split(work, batches)) if t.size])
    want = reference.drop_tail_fifo(times, work, limit + (1 if excludes_in_service else 0))
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.allclose(got[~np.isnan(got)], want[~np.isnan(want)], rtol=0, atol=1e-15)


def test_a_fluid_backlog_becomes_whole_packets_in_the_gaps_the_frames_leave():
    queue = RealizedFlood(100, False, np.random.default_rng(1))
    # 10 services queued from t=0: a frame of 2 services leaves at 5, the rest is the flood's 8
    queue.begin(0.0, 1.0, FloodPackets.poisson(1e-9, SERVICE, 1.0), 10 * SERVICE,
                (np.array([5 * SERVICE]), np.array([2 * SERVICE]), np.array([1.0])))
    departures = sorted(entry[0] for entry in queue._system)
    assert departures == pytest.approx(np.array([1, 2, 3, 5, 6, 7, 8, 9, 10]) * SERVICE)
    assert units_in_system(queue, 0.0) == 9
    assert queue.backlog_work(0.0) == pytest.approx(10 * SERVICE)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31), st.floats(0.2, 1.5), st.integers(2, 40), st.booleans())
def test_every_packet_is_delivered_dropped_or_in_the_system(seed, flood_load, limit, paced):
    rng = np.random.default_rng(seed)
    times, work = frames(seed, n=200)
    queue = RealizedFlood(limit, True, rng)
    queue.begin(0.0, 1.0, FloodPackets.of(flood_load / SERVICE, SERVICE, 1.0, paced, (None,)), 0.0,
                (np.empty(0), np.empty(0), np.empty(0)))
    out = queue.offer(times, work, np.ones(times.size))
    end = float(times[-1])
    kept = ~np.isnan(out)
    assert np.all(out[kept] >= times[kept] + work[kept] * (1 - 1e-12))
    assert np.all(np.diff(out[kept]) >= work[kept][1:] * (1 - 1e-9))
    in_system = units_in_system(queue, end)
    frames_in = int(np.count_nonzero(out[kept] > end))
    assert queue.flood_accepted <= queue.flood_offered
    # what is in the system is the accepted packets not yet gone, and never over the limit + 1
    assert in_system <= limit + 1
    assert frames_in <= in_system


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31), st.floats(0.05, 0.99), st.integers(1, 5), st.booleans(),
       st.integers(1, 8))
def test_an_evenly_paced_flood_below_the_rate_alone_loses_nothing(seed, load, limit,
                                                                   excludes_in_service, pieces):
    """Each paced packet finds the one before it gone (its gap exceeds its service), so even a
    queue of one place keeps them all, however the time is cut."""
    queue = RealizedFlood(limit, excludes_in_service, np.random.default_rng(seed))
    queue.begin(0.0, 1.0, FloodPackets.of(load / SERVICE, SERVICE, 1.0, True, ("flood",)), 0.0,
                (np.empty(0), np.empty(0), np.empty(0)))
    for until in np.sort(np.random.default_rng(seed).uniform(0, 2000 * SERVICE, pieces)):
        queue.advance(float(until))
    queue.advance(2000 * SERVICE)
    assert queue.flood_offered == pytest.approx(2000 * load, abs=1)
    assert queue.flood_accepted == queue.flood_offered
    assert queue.flood_accepted_work == pytest.approx(queue.flood_offered_work)


def test_a_poisson_flood_at_the_same_load_does_lose_in_a_small_queue():
    queue = RealizedFlood(1, False, np.random.default_rng(5))
    queue.begin(0.0, 1.0, FloodPackets.poisson(0.9 / SERVICE, SERVICE, 1.0), 0.0,
                (np.empty(0), np.empty(0), np.empty(0)))
    queue.advance(20_000 * SERVICE)
    # M/D/1/1: a packet is lost when it finds the server busy, 0.9 / 1.9 of the time
    assert 1 - queue.flood_accepted / queue.flood_offered == pytest.approx(0.9 / 1.9, abs=0.02)


def test_a_paced_flow_keeps_its_phase_from_one_realization_to_the_next():
    flood = FloodPackets.of(0.5 / SERVICE, SERVICE, 1.0, True, ("flood",))
    first = RealizedFlood(10, False, np.random.default_rng(6))
    first.begin(0.0, 1.0, flood, 0.0, (np.empty(0), np.empty(0), np.empty(0)))
    first.advance(7.3 * SERVICE)
    phases = first.phases()
    second = RealizedFlood(10, False, np.random.default_rng(7))
    second.begin(7.3 * SERVICE, 1.0, flood, 0.0, (np.empty(0), np.empty(0), np.empty(0)), phases)
    assert second.phases() == phases
    other = FloodPackets.of(0.4 / SERVICE, SERVICE, 1.0, True, ("flood",))   # another rate: new phase
    second.begin(7.3 * SERVICE, 1.0, other, 0.0, (np.empty(0), np.empty(0), np.empty(0)), phases)
    assert second.phases()["flood"][0] == 0.4 / SERVICE


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31), st.sampled_from([0.73, 1.37, 2.91]), st.integers(1, 20),
       st.sampled_from([7, 64, 1000]))
def test_a_fast_flood_is_realized_in_slices_with_the_same_result(seed, flood_load, limit, slice_packets):
    """Cutting the time into slices of a few flood packets changes nothing for a paced flood
    (its arrivals are a fixed grid) and no slice draws more than the slice's packets. The loads
    keep the flood's grid off the departures' (a load of 1 or 2 puts arrivals on departures,
    where a last-bit difference in the grid's sums decides which comes first)."""
    import vsim.net.fluid.realized as realized

    times, work = frames(seed, n=150)
    flood = FloodPackets.of(flood_load / SERVICE, SERVICE, 1.0, True, ("flood",))

    def departures(slice_size):
        drawn = []
        queue = RealizedFlood(limit, False, np.random.default_rng(seed))
        original = queue._flood_arrivals

        def counted(until):
            arrivals = original(until)
            drawn.append(arrivals[0].size)
            return arrivals

        queue._flood_arrivals = counted
        saved, realized.SLICE_PACKETS = realized.SLICE_PACKETS, slice_size
        try:
            queue.begin(0.0, 1.0, flood, 0.0, (np.empty(0), np.empty(0), np.empty(0)))
            out = queue.offer(times, work, np.ones(times.size))
        finally:
            realized.SLICE_PACKETS = saved
        return out, queue.flood_offered, queue.flood_accepted, max(drawn)

    whole, offered, accepted, _ = departures(1 << 40)
    sliced, offered_sliced, accepted_sliced, largest = departures(slice_packets)
    assert np.array_equal(whole, sliced, equal_nan=True)
    assert (offered, accepted) == (offered_sliced, accepted_sliced)
    assert largest <= slice_packets + 1


def voice_loss_beside(flood, seed=3):
    """Share of 12-frame bursts' frames (a tenth of a flood packet's work each) lost every 20 ms
    in a 100-packet FIFO beside ``flood``, over 4 s at a link of 2400 flood packets/s."""
    queue = RealizedFlood(100, False, np.random.default_rng(seed))
    queue.begin(0.0, 1.0, flood, 0.0, (np.empty(0), np.empty(0), np.empty(0)))
    lost = offered = 0
    for tick in range(1, 200):
        at = 0.02 * tick + 1e-5 * np.arange(12)
        departures = queue.offer(at, np.full(12, 0.1 / 2400), np.ones(12))
        lost += int(np.isnan(departures).sum())
        offered += 12
    return lost / offered


def test_a_flood_written_on_wake_ups_leaves_a_burst_more_room_than_exact_pacing():
    """At 1.2 times the link, evenly paced, every freed place goes at once, so a burst of 12 finds
    few; written in batches on 1 ms wake-ups (the probe machine's flood: 90 us late, writes 7.4 us
    apart), the places freed between two wake-ups wait for whoever comes first."""
    from vsim.net.fluid.arrivals import WakeupBatches
    pps, work = 1.2 * 2400, 1 / 2400
    paced = voice_loss_beside(FloodPackets.of(pps, work, 1.0, True, ("f",)))
    batched = voice_loss_beside(FloodPackets.of(pps, work, 1.0, False, ("f",),
                                                [WakeupBatches(1e-3, 9e-5, 0.32, 7.4e-6)]))
    assert paced > 0.7 and batched < paced - 0.2, (paced, batched)


def blocking_run(send_buffer, seed=5, duration=2.0, pps=1.2 * 2400, limit=100, early_work=0.0):
    """A batched flood at ``pps`` on a link of 2400 packets/s (work 1/2400 each) beside 12-frame
    bursts every 20 ms, its socket holding ``send_buffer`` packets, the qdisc handing packets on
    ``early_work`` before their service; the queue, the frames' departures, and every flood
    packet's (write time, when it was handed on) as the queue saw it."""
    from vsim.net.fluid.arrivals import WakeupBatches
    flood = FloodPackets.of(pps, 1 / 2400, 1.0, False, ("f",),
                            [WakeupBatches(1e-3, 9e-5, 0.32, 5e-6, send_buffer=send_buffer)])
    queue = RealizedFlood(limit, False, np.random.default_rng(seed), early_work)
    queue.begin(0.0, 1.0, flood, 0.0, (np.empty(0), np.empty(0), np.empty(0)))
    writes = []
    if send_buffer:
        write = queue._write

        def recording(flow, when, bound):
            accepted = queue.flood_accepted
            write(flow, when, bound)
            if queue.flood_accepted > accepted:
                writes.append((when, max(when, queue._system[-1][1] - early_work)))
        queue._write = recording
    departures = [queue.offer(0.02 * tick + 1e-5 * np.arange(12), np.full(12, 0.1 / 2400), np.ones(12))
                  for tick in range(1, int(duration / 0.02))]
    return queue, np.concatenate(departures), writes


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**31), st.floats(5.0, 95.0))
def test_a_blocking_senders_socket_never_holds_more_than_its_buffer(seed, send_buffer):
    """Each accepted write found fewer than ``send_buffer`` of the flow's packets still waiting
    for service (it was allowed), so at most that many plus itself wait at any time; and the
    counts of offered and accepted packets are those it wrote."""
    queue, _, writes = blocking_run(send_buffer, seed, duration=1.0)
    times = np.array([w for w, _ in writes])
    starts = np.array([start for _, start in writes])
    for i, when in enumerate(times):
        assert np.count_nonzero(starts[:i] > when) < send_buffer
    assert queue.flood_accepted == len(writes) <= queue.flood_offered


@pytest.mark.parametrize("early_work", [0.0, 6 / 2400])
def test_a_blocked_send_goes_on_when_fewer_than_half_are_left(early_work):
    """With the queue's 100 places and a buffer of 92.44 packets (Linux 6.18's 212992 B over
    2304 B per 1000 B datagram), the flood's packets not yet handed on never pass 93 and every
    gap in its writes longer than 3 ms (a block: its batches are 1 ms apart) ends with 46 of
    them held: fewer than half, as the kernel wakes the writer; under a bucket that lets six
    packets through ahead of the queue's service, counted from when it does."""
    queue, _, writes = blocking_run(92.44, duration=4.0, pps=1.5 * 2400, limit=106, early_work=early_work)
    times = np.array([w for w, _ in writes])
    starts = np.array([s for _, s in writes])
    waiting_at = [np.count_nonzero((times < t) & (starts > t)) for t in times]
    assert max(waiting_at) <= 93
    gaps = np.flatnonzero(np.diff(times) > 3e-3)
    assert gaps.size > 5
    assert {waiting_at[g + 1] for g in gaps} == {46}


def test_a_socket_that_never_fills_writes_as_the_batches_say():
    """A send buffer no queue can fill: written one at a time, the flood's packets and the frames'
    fate are those of the same pattern drawn batch by batch."""
    _, free, _ = blocking_run(0.0)
    _, unbounded, _ = blocking_run(1e9)
    assert np.array_equal(free, unbounded, equal_nan=True)


def test_a_socket_that_blocks_leaves_a_burst_more_room():
    """Blocked at 92 of the queue's 100 places and silent until 46 are left, the flood leaves the
    frames' bursts places a sender that never blocks takes."""
    lost = [float(np.isnan(blocking_run(buffer, duration=4.0)[1]).mean()) for buffer in (0.0, 92.44)]
    assert lost[1] < lost[0] - 0.1, lost
