"""Tests of the sample summaries and of RFC 3550 jitter against its closed forms."""

import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

from vsim.probe.stats import jitter_at_end, summary_us


@given(st.floats(0, 1), st.integers(2, 200))
def test_constant_transit_has_no_jitter(transit, packets):
    send = np.arange(packets) * 0.02
    assert jitter_at_end(send, send + transit) == pytest.approx(0.0, abs=1e-12)


@given(st.floats(1e-6, 0.1), st.integers(2, 200))
def test_alternating_transit_approaches_its_step_geometrically(step, packets):
    send = np.arange(packets) * 0.02
    arrival = send + step * (np.arange(packets) % 2)
    expected = step * (1 - (15 / 16) ** (packets - 1))
    assert jitter_at_end(send, arrival) == pytest.approx(expected, rel=1e-9)


def test_lost_packets_are_left_out():
    send = np.arange(5) * 0.02
    arrival = send + 0.001
    arrival[2] = math.nan
    assert jitter_at_end(send, arrival) == pytest.approx(0.0, abs=1e-15)


def test_rtp_timestamps_stand_in_for_send_times():
    rtp = np.arange(4) * 160
    arrival = np.array([0.0, 0.02, 0.04, 0.06]) + 5
    assert jitter_at_end(None, arrival, 8000, rtp) == pytest.approx(0.0, abs=1e-12)


def test_summary_in_microseconds():
    assert summary_us([1e-6, 3e-6, math.nan]).startswith("n=2 mean=2.0us p50=2.0us")
    assert summary_us([]) == "n=0"
