"""Receive stalls: packets arriving while the client's thread is off its CPU are read when it ends."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from vsim.guest.measuring_client import MeasuringClient
from vsim.guest.receive_stalls import ReceiveStalls


def stalls(rate=2.0, duration=0.05, seed=1):
    return ReceiveStalls(rate, duration, np.random.default_rng(seed))


def test_a_packet_inside_a_stall_is_read_at_its_end_and_others_at_once():
    receive = stalls()
    receive._starts = np.array([1.0, 3.0, 3.04, 10.0])  # the stalls at 3.0 and 3.04 overlap
    arrivals = np.array([0.5, 1.0, 1.02, 1.05, 2.0, 3.01, 3.05, 3.09, 3.2, np.nan])
    read = receive.read_times(arrivals)
    assert read[:9].tolist() == pytest.approx([0.5, 1.05, 1.05, 1.05, 2.0, 3.09, 3.09, 3.09, 3.2])
    assert np.isnan(read[9])


@settings(max_examples=60, deadline=None)
@given(arrivals=st.lists(st.floats(0.0, 50.0), min_size=1, max_size=200),
       rate=st.floats(0.05, 20.0), duration=st.floats(1e-4, 0.5), seed=st.integers(0, 2**32 - 1))
def test_reading_is_never_early_never_reorders_and_waits_less_than_a_run_of_stalls(arrivals, rate,
                                                                                    duration, seed):
    arrivals = np.sort(np.array(arrivals))
    receive = stalls(rate, duration, seed)
    read = receive.read_times(arrivals)
    assert np.all(read >= arrivals)
    assert np.all(np.diff(read) >= 0)
    late = read > arrivals
    # a late packet is read at the end of a stall: some stall started at most `duration` before it
    starts = receive._starts
    for when in read[late]:
        assert np.any(np.isclose(starts + duration, when, rtol=0, atol=1e-9))


def test_the_share_of_packets_read_late_is_the_time_stalled_one_minus_exp_of_rate_times_length():
    rate, duration = 4.0, 0.03
    arrivals = np.random.default_rng(7).uniform(0.0, 2000.0, 200_000)
    late = stalls(rate, duration, seed=3).read_times(arrivals) > arrivals
    expected = 1.0 - np.exp(-rate * duration)  # Poisson starts, fixed length: a point is covered
    assert late.mean() == pytest.approx(expected, rel=0.03)


def test_a_longer_run_extends_the_schedule_without_changing_its_beginning():
    arrivals = np.linspace(0.0, 100.0, 5001)
    short = stalls(seed=5).read_times(arrivals)
    longer = stalls(seed=5).read_times(np.concatenate((arrivals, np.linspace(100.0, 5000.0, 9999))))
    assert np.array_equal(short, longer[:arrivals.size])


def test_the_client_reads_its_packets_through_its_stalls():
    quiet, stalling = MeasuringClient(latency=0.0), MeasuringClient(latency=0.0, stalls=stalls(rate=50.0))
    for client in (quiet, stalling):
        for tick in range(500):
            client.sent(tick, tick * 0.02, 4)
            client.departed(tick, tick * 0.02 + 0.005, 1e-5, 4, 4)
    _, _, on_time = quiet.arrays()
    _, _, read = stalling.arrays()
    assert np.all(read >= on_time) and np.any(read > on_time)


class ChunkedGaps:
    """A stand-in generator handing out prepared chunks of gaps between stall starts."""

    def __init__(self, *chunks):
        self.chunks = list(chunks)

    def exponential(self, scale, size):
        chunk = self.chunks.pop(0)
        assert chunk.size == size
        return chunk


def test_a_run_of_stalls_reaching_past_the_packets_is_drawn_to_its_end():
    # 1 s stalls every 0.5 s make one run to the end of the first chunk of starts (512 s);
    # the next chunk's first stall (512.5 s) still lengthens it, so a packet at 10 s waits
    # until 513.5 s, not until the first chunk's last stall ends
    first = np.full(1024, 0.5)
    second = np.concatenate(([0.5], np.full(1023, 5.0)))
    receive = ReceiveStalls(2.0, 1.0, ChunkedGaps(first, second))
    assert receive.read_times(np.array([10.0])).tolist() == [513.5]


def test_the_time_stalled_in_a_window_is_the_union_of_the_stalls():
    receive = stalls(duration=0.05)
    receive._starts = np.array([1.0, 1.02, 3.0, 9.99, 20.0, 20.01, 30.0])
    count, stalled = receive.within(0.0, 10.0)
    assert count == 4
    assert stalled == pytest.approx(0.07 + 0.05 + 0.01)
