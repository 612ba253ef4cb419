"""Tests of unwrapping counters that wrap around."""

import numpy as np
from hypothesis import given, strategies as st

from vsim.traces.wraparound import RTP_SEQ_MODULO, unwrap


@given(st.integers(0, (1 << 32) - 1), st.lists(st.integers(-(1 << 30), 1 << 30), min_size=1, max_size=50))
def test_steps_shorter_than_half_the_modulo_are_recovered_across_wraps(start, steps):
    true = start + np.concatenate(([0], np.cumsum(steps)))
    assert np.array_equal(unwrap(true % (1 << 32), 1 << 32), true - true[0] + start)


def test_a_sequence_number_wrapping_at_two_to_the_16_keeps_counting():
    assert unwrap([65534, 65535, 0, 1], 1 << 16).tolist() == [65534, 65535, 65536, 65537]


def test_no_values_unwrap_to_none():
    assert unwrap([], RTP_SEQ_MODULO).size == 0
