"""Tests of the fixed and adaptive jitter buffers against their definitions."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from vsim.metrics.jitter_buffer import AdaptiveBuffer, FixedBuffer, playout

INTERVAL = 0.02
RAMJEE = AdaptiveBuffer(smoothing=0.998002, variation_factor=4.0, talkspurt=1.0)
QUICK = AdaptiveBuffer(smoothing=0.9, variation_factor=4.0, talkspurt=0.1)


@st.composite
def streams(draw, max_size=300):
    """One stream every 20 ms: delays in whole microseconds, some packets lost (None)."""
    delays = draw(st.lists(st.one_of(st.none(), st.integers(min_value=0, max_value=200_000)),
                           max_size=max_size))
    send = np.arange(len(delays)) * INTERVAL
    recv = np.array([np.nan if d is None else s + d * 1e-6 for s, d in zip(send, delays)])
    return send, recv, delays


BUFFERS = st.one_of(
    st.builds(FixedBuffer, st.integers(min_value=1, max_value=100_000).map(lambda us: us * 1e-6)),
    st.builds(AdaptiveBuffer, st.floats(min_value=0.5, max_value=0.999),
              st.floats(min_value=0.0, max_value=8.0), st.sampled_from([0.02, 0.1, 1.0, 5.0])))


def ramjee_loop(send, recv, buffer):
    """Algorithm 1 of Ramjee et al. packet by packet: the estimates after each received
    packet, the playout delay fixed at the first received packet of each talkspurt."""
    a, k = buffer.smoothing, buffer.variation_factor
    late, deadlines = [], []
    mean = variation = None
    first = current = None
    for s, r in zip(send, recv):
        if np.isnan(r):
            late.append(False)
            continue
        delay = round((r - s) * 1e9)
        if mean is None:
            first, mean, variation = delay, 0.0, 0.0
        else:
            mean = a * mean + (1 - a) * (delay - first)
            variation = a * variation + (1 - a) * abs(mean - (delay - first))
        talkspurt = round((s - send[0]) * 1e9) // round(buffer.talkspurt * 1e9)
        if current is None or talkspurt != current[0]:
            current = (talkspurt, first + mean + k * variation)
        late.append(delay > current[1] + 1e-6)  # within a nanosecond of the deadline: float noise
        deadlines.append(current[1])
    return np.array(late, dtype=bool), np.array(deadlines)


@given(streams(), BUFFERS)
def test_packets_are_conserved(stream, buffer):
    send, recv, _ = stream
    result = playout(send, recv, buffer)
    played, late, lost = result.played, result.late, result.lost
    assert played.sum() + late.sum() + lost.sum() == send.size
    assert not np.any(played & late) and not np.any(late & lost)
    assert np.array_equal(lost, np.isnan(recv))


@given(streams(), st.integers(min_value=1, max_value=100_000))
def test_fixed_buffer_discards_exactly_the_packets_later_than_first_plus_nominal(stream, nominal_us):
    send, recv, delays = stream
    result = playout(send, recv, FixedBuffer(nominal_us * 1e-6))
    received = [d for d in delays if d is not None]
    expected = [d is not None and d > received[0] + nominal_us for d in delays]
    assert result.late.tolist() == expected


@given(streams(), st.integers(min_value=1, max_value=100_000))
def test_fixed_buffer_plays_every_packet_at_one_delay(stream, nominal_us):
    send, recv, delays = stream
    result = playout(send, recv, FixedBuffer(nominal_us * 1e-6))
    received = [d for d in delays if d is not None]
    if received:
        got = result.playout_delay[~result.lost]
        np.testing.assert_allclose(got, (received[0] + nominal_us) * 1e-6, rtol=0, atol=1e-12)
        waits = result.buffer_delay[result.played]
        assert np.all(waits >= 0)
        np.testing.assert_allclose(waits + result.network_delay[result.played], got[0], atol=1e-12)


@given(st.integers(min_value=0, max_value=200_000), st.integers(min_value=1, max_value=500),
       st.sampled_from([RAMJEE, QUICK]))
def test_adaptive_buffer_with_constant_delay_discards_nothing(delay_us, packets, buffer):
    send = np.arange(packets) * INTERVAL + 0.0037
    result = playout(send, send + delay_us * 1e-6, buffer)
    assert not result.late.any()
    np.testing.assert_allclose(result.buffer_delay, 0.0, atol=1e-12)


@given(streams(max_size=200), st.sampled_from([RAMJEE, QUICK]))
def test_adaptive_buffer_follows_ramjees_algorithm_packet_by_packet(stream, buffer):
    send, recv, _ = stream
    result = playout(send, recv, buffer)
    late, deadlines = ramjee_loop(send, recv, buffer)
    np.testing.assert_allclose(result.playout_delay[~result.lost] * 1e9, deadlines, rtol=1e-9, atol=1e-3)
    # a packet within a microsecond of its deadline may fall either way by rounding
    near = np.zeros(send.size, dtype=bool)
    near[~result.lost] = np.abs(result.network_delay[~result.lost] * 1e9 - deadlines) < 1e3
    assert np.array_equal(result.late[~near], late[~near])


def test_adaptive_buffer_discards_a_spike_and_learns_the_spread():
    rng = np.random.default_rng(7)
    send = np.arange(3000) * INTERVAL
    delay = 0.010 + rng.uniform(0, 0.004, send.size)
    delay[2000] += 0.050  # one spike
    result = playout(send, send + delay, RAMJEE)
    assert result.late[2000]
    # by the end the playout delay holds the spread: mean + 4 x mean deviation ~ 12 + 4 x 1 ms
    assert 0.013 < result.playout_delay[-1] < 0.0165
    assert result.late[2500:].mean() < 0.05


def test_adaptive_playout_delay_changes_only_at_talkspurt_starts():
    send = np.arange(500) * INTERVAL
    delay = 0.01 + 0.002 * np.sin(send)
    result = playout(send, send + delay, QUICK)
    changes = np.flatnonzero(np.diff(result.playout_delay)) + 1
    assert changes.size > 0
    assert np.all(changes % 5 == 0)  # 5 packets of 20 ms to a 100 ms talkspurt


@given(streams(), BUFFERS)
def test_same_input_same_decisions(stream, buffer):
    send, recv, _ = stream
    a, b = playout(send, recv, buffer), playout(send.copy(), recv.copy(), buffer)
    assert np.array_equal(a.late, b.late)
    assert np.array_equal(a.playout_delay, b.playout_delay, equal_nan=True)


def test_all_lost_and_empty_streams():
    send = np.arange(5) * INTERVAL
    for buffer in (FixedBuffer(0.04), RAMJEE):
        result = playout(send, np.full(5, np.nan), buffer)
        assert result.lost.all() and not result.late.any()
        assert playout([], [], buffer).lost.size == 0


@pytest.mark.parametrize("send, recv, buffer", [
    ([0.0, 0.02], [0.01], FixedBuffer(0.04)),
    ([[0.0]], [[0.01]], FixedBuffer(0.04)),
    ([0.02, 0.0], [0.03, 0.01], FixedBuffer(0.04)),
    ([0.0], [0.01], 0.04),
])
def test_bad_input_is_refused(send, recv, buffer):
    with pytest.raises(ValueError):
        playout(send, recv, buffer)
