"""UniformFifo (one frame size, O(1) per burst) against the general FifoLink."""

import math

import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st

from reference_fifo_link import FifoLink
from vsim.net.frames import serialization_time
from vsim.net.uniform_fifo import UniformFifo

GIGABIT = 1e9

GOLDEN = (math.sqrt(5) - 1) / 2

# Bursts as (whole service times since the previous burst, frames); a gap of 0 means the
# same instant as the previous burst. Each new instant also gets a distinct fractional
# offset {k * golden ratio}, so no burst arrives within a rounding error of a departure:
# ties are tested on their own below.
bursts = st.lists(st.tuples(st.integers(0, 40), st.integers(0, 60)), min_size=1, max_size=40)
tied_bursts = st.lists(st.tuples(st.integers(0, 40), st.integers(0, 60)), min_size=2, max_size=40)
links = st.fixed_dictionaries({
    "rate_bps": st.sampled_from([1e8, 1e9, 1e10]),
    "buffer": st.integers(0, 40),
    "latency": st.sampled_from([0.0, 1e-5, 2.5e-4]),
    "ip_bytes": st.sampled_from([40, 60, 200, 1500]),
})


def burst_times(link, gaps_counts):
    """Arrival instants in seconds, none within rounding of a departure of an earlier burst."""
    service = serialization_time(link["ip_bytes"], link["rate_bps"])
    position, whole, out = 0.0, 0, []
    for k, (gap, count) in enumerate(gaps_counts):
        if k and gap > 0:
            whole += gap
            position = whole + (k * GOLDEN) % 1.0
        out.append((position * service, count))
    return out


def tied_times(link, gaps_counts):
    """Arrival instants on the grid of whole service times (k * service, as a float)."""
    service = serialization_time(link["ip_bytes"], link["rate_bps"])
    whole, out = 0, []
    for gap, count in gaps_counts:
        whole += gap
        out.append((whole * service, count))
    return out


def both(link):
    uniform = UniformFifo(link["rate_bps"], link["buffer"], link["latency"], link["ip_bytes"])
    general = FifoLink(link["rate_bps"], link["buffer"], latency=link["latency"])
    return uniform, general


@settings(max_examples=200, deadline=None)
@given(links, bursts)
@example(link={"rate_bps": 1e9, "buffer": 3, "latency": 0.0, "ip_bytes": 60},
         gaps_counts=[(0, 10), (1, 10), (2, 10), (0, 3)])
@example(link={"rate_bps": 1e9, "buffer": 0, "latency": 1e-5, "ip_bytes": 60},
         gaps_counts=[(0, 1), (1, 1), (1, 2), (3, 5)])
def test_uniform_fifo_agrees_with_fifo_link_burst_by_burst(link, gaps_counts):
    assert_agree(link, burst_times(link, gaps_counts))


@settings(max_examples=100, deadline=None)
@given(links, tied_bursts)
@example(link={"rate_bps": 1e8, "buffer": 5, "latency": 0.0, "ip_bytes": 40},
         gaps_counts=[(0, 6), (6, 6)])
def test_burst_arriving_exactly_as_the_queue_drains_is_resolved_alike(link, gaps_counts):
    """Bursts on the grid of whole service times: a burst may arrive at the very instant
    the previous one has finished transmitting (in exact arithmetic). Both links count a
    frame that ends at the arrival instant as gone; they must also agree here.

    Minimal case: buffer 5, 6 frames at t=0 fill it; 6 more at t = 6 * service find
    it empty (UniformFifo accepts 6) but FifoLink's last end, accumulated as a sum of
    six service times, rounds to just after 6 * service and it accepts only 5."""
    assert_agree(link, tied_times(link, gaps_counts))


def assert_agree(link, timed_bursts):
    uniform, general = both(link)
    for t, count in timed_bursts:
        accepted, first, spacing = uniform.offer_burst(t, count)
        ends, dropped = general.offer(np.full(count, t), link["ip_bytes"])
        # drop-tail: the first frames of a burst are kept, the rest dropped
        assert accepted == int(np.count_nonzero(~dropped)), (t, count)
        assert not dropped[:accepted].any() and dropped[accepted:].all()
        if accepted:
            expected = first + spacing * np.arange(accepted)
            np.testing.assert_allclose(expected, ends[:accepted], rtol=0, atol=1e-12)
    assert (uniform.offered, uniform.sent, uniform.dropped) == (
        general.offered, general.sent, general.dropped)
    assert uniform.busy_time == pytest.approx(general.busy_time, rel=1e-12, abs=1e-18)


@settings(max_examples=100, deadline=None)
@given(links, bursts)
def test_conservation_offered_is_sent_plus_dropped(link, gaps_counts):
    uniform, _ = both(link)
    total = 0
    for t, count in burst_times(link, gaps_counts):
        accepted, _, spacing = uniform.offer_burst(t, count)
        total += count
        assert 0 <= accepted <= count
        assert spacing == uniform.service
        assert uniform.offered == uniform.sent + uniform.dropped == total
        # the queue never holds more than the buffer plus the frame on the wire
        assert uniform.in_system(t) <= link["buffer"] + 1
    assert uniform.busy_time == pytest.approx(uniform.sent * uniform.service, rel=1e-12)


def test_idle_link_sends_a_burst_back_to_back():
    fifo = UniformFifo(GIGABIT, 10, 1e-5, 60)
    service = serialization_time(60, GIGABIT)
    accepted, first, spacing = fifo.offer_burst(1.0, 4)
    assert accepted == 4
    assert spacing == service
    assert first == pytest.approx(1.0 + service + 1e-5, abs=1e-15)
    assert fifo.in_system(1.0) == 4
    assert fifo.in_system(1.0 + 4 * service) == 0


def test_full_buffer_drops_the_excess_of_a_burst():
    fifo = UniformFifo(GIGABIT, 3, 0.0, 60)
    accepted, _, _ = fifo.offer_burst(0.0, 10)
    assert accepted == 4  # 3 waiting + 1 in transmission
    assert (fifo.offered, fifo.sent, fifo.dropped) == (10, 4, 6)
    # one service time later one place has freed up
    accepted, first, _ = fifo.offer_burst(fifo.service, 5)
    assert accepted == 1
    assert first == pytest.approx(5 * fifo.service, abs=1e-15)


def test_empty_burst_changes_nothing():
    fifo = UniformFifo(GIGABIT, 3, 0.0, 60)
    assert fifo.offer_burst(0.5, 0)[0] == 0
    assert (fifo.offered, fifo.sent, fifo.dropped, fifo.busy_time) == (0, 0, 0, 0.0)
    assert fifo.busy_until == -math.inf
