"""Millisecond report values: the conversion and the empty-safe mean and 99th percentile."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from vsim.core.units import mean_ms, p99_ms, to_ms

TIMES = arrays(np.float64, st.integers(1, 200), elements=st.floats(0, 10, allow_nan=False))


def test_seconds_become_milliseconds():
    assert to_ms(0.02) == pytest.approx(20.0)
    assert to_ms(0) == 0


@pytest.mark.parametrize("summary", [mean_ms, p99_ms])
def test_nothing_to_summarise_is_none(summary):
    assert summary(np.zeros(0)) is None


def test_closed_forms():
    seconds = np.arange(101) / 1000  # 0, 1, ..., 100 ms
    assert mean_ms(seconds) == pytest.approx(50.0)
    assert p99_ms(seconds) == pytest.approx(99.0)  # the 99th of 101 evenly spaced values


@given(TIMES)
def test_summaries_lie_within_the_samples_and_are_plain_floats(seconds):
    low, high = to_ms(seconds.min()), to_ms(seconds.max())
    for value in (mean_ms(seconds), p99_ms(seconds)):
        assert type(value) is float
        assert low - 1e-9 <= value <= high + 1e-9
    assert p99_ms(seconds) >= to_ms(float(np.median(seconds))) - 1e-9


@given(st.floats(0, 10, allow_nan=False), st.integers(1, 50))
def test_constant_samples_summarise_to_their_value(value, count):
    seconds = np.full(count, value)
    assert mean_ms(seconds) == pytest.approx(to_ms(value))
    assert p99_ms(seconds) == pytest.approx(to_ms(value))
