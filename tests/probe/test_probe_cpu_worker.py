"""Tests of the CPU worker: its work loop, its calibration and its tick records."""

import numpy as np
from hypothesis import given, strategies as st

from vsim.probe.clock import now_ns
from vsim.probe.cpu_worker import calibrate, run_ticks, spin


@given(st.integers(0, 10_000))
def test_spin_does_the_arithmetic_series(iterations):
    assert spin(iterations) == iterations * (iterations - 1) // 2


def test_calibration_scales_with_the_work_asked():
    iterations, ms_per_million = calibrate(1.0, repeats=1)
    assert ms_per_million > 0
    assert iterations == max(1, round(1e6 / ms_per_million))


def test_ticks_are_due_one_period_apart_and_start_no_earlier():
    start = now_ns() + 1_000_000
    rows = run_ticks(100, 5_000_000, start, 4)
    np.testing.assert_array_equal(rows[:, 0], start + 5_000_000 * np.arange(4))
    assert np.all(rows[:, 1] >= rows[:, 0]) and np.all(rows[:, 2] >= rows[:, 1])


def test_a_worker_behind_schedule_stops_at_its_end():
    start = now_ns() - 10_000_000  # every tick of a 5 x 1 ms schedule is already past
    assert len(run_ticks(100, 1_000_000, start, 5)) == 0
