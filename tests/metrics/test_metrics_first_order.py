"""The numpy first-order filter gives ``scipy.signal.lfilter``'s bits, and the pooled stream
jitter is each stream's own RFC 3550 recursion, whichever way the streams are stepped."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.signal import lfilter

from vsim.metrics.first_order import first_order_filter, first_order_filter_rows
from vsim.metrics.jitter import stream_jitter_samples

series = arrays(np.float64, st.integers(0, 300),
                elements=st.floats(allow_nan=True, allow_infinity=True, width=64))
gains = st.sampled_from([1 / 16, 0.5, 0.998002, 0.1]) | st.floats(1e-6, 1.0)


@settings(max_examples=300, deadline=None)
@given(series, gains)
def test_one_series_is_lfilter_bit_for_bit(x, gain):
    assert first_order_filter(x, gain, gain - 1.0).tobytes() == \
        lfilter([gain], [1.0, gain - 1.0], x).tobytes()


tables = arrays(np.float64, st.tuples(st.integers(1, 40), st.integers(1, 6)),
                elements=st.floats(allow_nan=True, allow_infinity=True, width=64))


@settings(max_examples=300, deadline=None)
@given(tables, gains)
def test_rows_are_lfilter_bit_for_bit(table, gain):
    expected = lfilter([gain], [1.0, gain - 1.0], table, axis=1)
    assert first_order_filter_rows(table.copy(), gain, gain - 1.0).tobytes() == \
        expected.tobytes()


def test_a_table_that_is_not_2d_float64_is_refused():
    for bad in (np.zeros((3, 2), dtype=np.float32), np.zeros(3)):
        try:
            first_order_filter_rows(bad, 0.5, -0.5)
        except ValueError:
            continue
        raise AssertionError(f"accepted {bad.shape} {bad.dtype}")


def _reference(send, recv, ids, warmup):
    """Each stream on its own through lfilter, as the pooled samples were first computed."""
    order = np.argsort(ids, kind="stable")
    send, recv, ids = send[order], recv[order], ids[order]
    jitter = np.zeros(ids.size)
    for stream in np.unique(ids):
        where = np.flatnonzero(ids == stream)
        if where.size > 1:
            d = np.abs(np.diff(recv[where]) - np.diff(send[where]))
            jitter[where[1:]] = lfilter([1 / 16], [1.0, 1 / 16 - 1.0], d)
    return jitter[send >= warmup]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 400), min_size=1, max_size=12), st.integers(0, 2**32 - 1),
       st.floats(0.0, 2.0))
def test_pooled_jitter_is_each_streams_recursion(lengths, seed, warmup):
    """Even lengths step the streams together, one long stream among short ones one by one."""
    rng = np.random.default_rng(seed)
    ids = np.repeat(np.arange(len(lengths)) * 7, lengths)
    rng.shuffle(ids)
    send = np.cumsum(rng.uniform(0.0, 0.04, ids.size))
    recv = send + rng.exponential(0.002, ids.size)
    assert stream_jitter_samples(send, recv, ids, warmup).tobytes() == \
        _reference(send, recv, ids, warmup).tobytes()
