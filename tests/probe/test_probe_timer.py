"""Tests of the Python timer measurement and of its trace columns."""

import numpy as np

from vsim.probe.timer import TimerRun, measure
from vsim.probe.timer_probe import trace_columns
from vsim.traces.vsim_trace import parse_trace, trace_text


def test_every_thread_wakes_once_per_period_never_early():
    run = measure(0.01, 2, 0.1)
    assert len(run.lateness_s) == 2
    for scheduled, lateness in zip(run.scheduled_s, run.lateness_s):
        np.testing.assert_allclose(scheduled, np.arange(10) * 0.01, atol=1e-9)
        assert np.all(lateness >= 0)


def test_columns_make_a_well_formed_timer_trace():
    run = TimerRun([np.array([0.0, 0.02]), np.array([0.0])], [np.array([1e-4, 2e-4]), np.array([3e-4])])
    trace = parse_trace(trace_text("timer", trace_columns(run, 0.02)))
    assert list(trace.columns["thread"]) == [0, 0, 1]
    assert list(trace.columns["tick"]) == [0, 1, 0]
    np.testing.assert_allclose(trace.columns["lateness_s"], [1e-4, 2e-4, 3e-4])
