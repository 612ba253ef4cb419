"""Tests of the RFC 3550 jitter estimator against the RFC's own recursion."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from vsim.metrics.jitter import rfc3550_jitter, running_jitter, stream_jitter_samples

TIMES = st.floats(min_value=0.0, max_value=1e3, allow_nan=False, allow_infinity=False)


def reference_jitter(send, recv):
    """RFC 3550 section 6.4.1, written as the RFC's per-packet update."""
    out = []
    j = 0.0
    for i in range(len(send)):
        if i > 0:
            d = (recv[i] - recv[i - 1]) - (send[i] - send[i - 1])
            j = j + (abs(d) - j) / 16
        out.append(j)
    return out


@st.composite
def send_recv(draw, min_size=0, max_size=60):
    n = draw(st.integers(min_value=min_size, max_value=max_size))
    send = draw(st.lists(TIMES, min_size=n, max_size=n))
    recv = draw(st.lists(TIMES, min_size=n, max_size=n))
    return send, recv


@given(send_recv())
def test_matches_rfc_recursion(pair):
    send, recv = pair
    got = rfc3550_jitter(send, recv)
    np.testing.assert_allclose(got, reference_jitter(send, recv), rtol=1e-12, atol=1e-12)
    assert got.shape == (len(send),)


@given(send_recv())
def test_never_negative(pair):
    assert np.all(rfc3550_jitter(*pair) >= 0.0)


@given(send_recv(), st.floats(min_value=-1e3, max_value=1e3, allow_nan=False))
def test_invariant_to_receive_clock_offset(pair, offset):
    send, recv = pair
    shifted = np.asarray(recv) + offset
    np.testing.assert_allclose(
        rfc3550_jitter(send, shifted), rfc3550_jitter(send, recv), rtol=1e-9, atol=1e-9
    )


def test_constant_transit_gives_zero_jitter():
    send = np.arange(50) * 0.020
    recv = send + 0.035
    np.testing.assert_allclose(rfc3550_jitter(send, recv), 0.0, atol=1e-15)


def test_single_delayed_packet_jump():
    d = 0.008
    send = np.arange(10) * 0.020
    recv = send + 0.001
    recv[4] += d
    jitter = rfc3550_jitter(send, recv)
    np.testing.assert_allclose(jitter[:4], 0.0, atol=1e-15)
    assert jitter[4] == pytest.approx(d / 16, rel=1e-12)
    assert jitter[5] == pytest.approx(d / 16 * 15 / 16 + d / 16, rel=1e-12)
    assert jitter[6] == pytest.approx(jitter[5] * 15 / 16, rel=1e-12)


@pytest.mark.parametrize("n", [0, 1])
def test_short_input_gives_zeros(n):
    got = rfc3550_jitter([0.5] * n, [0.7] * n)
    assert got.shape == (n,)
    assert np.all(got == 0.0)


@given(send_recv(min_size=2))
def test_running_jitter_takes_signed_differences_and_is_the_series_after_the_first_packet(pair):
    send, recv = pair
    differences = np.diff(np.asarray(recv)) - np.diff(np.asarray(send))
    np.testing.assert_array_equal(running_jitter(differences), rfc3550_jitter(send, recv)[1:])
    np.testing.assert_array_equal(running_jitter(-differences), running_jitter(differences))


def test_running_jitter_of_no_differences_is_empty():
    assert running_jitter([]).shape == (0,)


def test_unequal_lengths_rejected():
    with pytest.raises(ValueError, match="length"):
        rfc3550_jitter([0.0, 1.0], [0.0])


def test_stream_samples_unequal_lengths_rejected():
    with pytest.raises(ValueError, match="length"):
        stream_jitter_samples([0.0, 1.0], [0.0, 1.0], [1])


def _arrival_order(send, recv):
    order = np.argsort(recv, kind="stable")
    return send[order], recv[order]


def _two_streams(seed=3, n=40):
    rng = np.random.default_rng(seed)
    send_a = np.arange(n) * 0.020
    recv_a = send_a + 0.002 + rng.exponential(0.003, n)
    send_b = np.arange(n) * 0.020 + 0.007
    recv_b = send_b + 0.002 + rng.exponential(0.010, n)
    return (*_arrival_order(send_a, recv_a), *_arrival_order(send_b, recv_b))


def _interleave(send_a, recv_a, send_b, recv_b, id_a, id_b):
    send = np.concatenate((send_a, send_b))
    recv = np.concatenate((recv_a, recv_b))
    ids = np.concatenate((np.full(send_a.size, id_a), np.full(send_b.size, id_b)))
    order = np.argsort(recv, kind="stable")
    return send[order], recv[order], ids[order]


def test_pooled_streams_equal_each_stream_alone():
    send_a, recv_a, send_b, recv_b = _two_streams()
    send, recv, ids = _interleave(send_a, recv_a, send_b, recv_b, id_a=7, id_b=3)
    assert len(set(ids[:10])) == 2
    expected = np.concatenate(
        (rfc3550_jitter(send_b, recv_b), rfc3550_jitter(send_a, recv_a))
    )
    np.testing.assert_array_equal(stream_jitter_samples(send, recv, ids), expected)


def test_warmup_drops_early_packets_but_keeps_their_state():
    send_a, recv_a, send_b, recv_b = _two_streams()
    send, recv, ids = _interleave(send_a, recv_a, send_b, recv_b, id_a=0, id_b=1)
    warmup = 0.3
    full_a = rfc3550_jitter(send_a, recv_a)
    full_b = rfc3550_jitter(send_b, recv_b)
    expected = np.concatenate((full_a[send_a >= warmup], full_b[send_b >= warmup]))
    got = stream_jitter_samples(send, recv, ids, warmup=warmup)
    assert got.size == np.sum(send_a >= warmup) + np.sum(send_b >= warmup) < send.size
    np.testing.assert_array_equal(got, expected)
    assert got[0] > 0.0


@given(st.lists(st.tuples(TIMES, TIMES, st.integers(0, 3)), max_size=60))
def test_pooled_samples_property(packets):
    send = np.array([p[0] for p in packets], dtype=float)
    recv = np.array([p[1] for p in packets], dtype=float)
    ids = np.array([p[2] for p in packets], dtype=int)
    expected = [
        rfc3550_jitter(send[ids == k], recv[ids == k]) for k in sorted(set(ids.tolist()))
    ]
    expected = np.concatenate(expected) if expected else np.zeros(0)
    np.testing.assert_array_equal(stream_jitter_samples(send, recv, ids), expected)
