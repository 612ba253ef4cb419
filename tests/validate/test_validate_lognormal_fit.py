"""The log-normal fit of a timer trace's lateness (the guest timer model's median and sigma)."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from vsim.core.errors import InputError
from vsim.validate.lognormal_fit import fit_lognormal, fit_timer_trace, main
from vsim.traces.vsim_trace import write_trace


def test_the_fit_is_the_mean_and_deviation_of_the_logs():
    samples = np.array([1e-4, 2e-4, 4e-4, 8e-4])
    median, sigma = fit_lognormal(samples)
    logs = np.log(samples)
    assert median == pytest.approx(np.exp(logs.mean())) and median == pytest.approx(np.sqrt(2) * 2e-4)
    assert sigma == pytest.approx(logs.std())


def test_a_large_lognormal_sample_gives_back_its_parameters():
    rng = np.random.default_rng(3)
    median, sigma = fit_lognormal(rng.lognormal(np.log(1.5e-4), 0.7, 200_000))
    assert median == pytest.approx(1.5e-4, rel=0.01) and sigma == pytest.approx(0.7, rel=0.01)


@given(st.lists(st.floats(1e-6, 1.0), min_size=2, max_size=50), st.floats(0.01, 100.0))
def test_scaling_the_samples_scales_the_median_only(samples, factor):
    median, sigma = fit_lognormal(samples)
    scaled_median, scaled_sigma = fit_lognormal(np.array(samples) * factor)
    assert scaled_median == pytest.approx(median * factor, rel=1e-9)
    assert scaled_sigma == pytest.approx(sigma, abs=1e-9)


def test_zero_lateness_is_left_out_and_too_few_samples_are_refused():
    assert fit_lognormal([0.0, 1e-4, 1e-4]) == (pytest.approx(1e-4), pytest.approx(0.0))
    with pytest.raises(ValueError, match="at least two positive"):
        fit_lognormal([0.0, 1e-4])


def timer_file(path, lateness):
    n = len(lateness)
    write_trace(path, "timer", {"thread": np.zeros(n, dtype=np.int64), "tick": np.arange(n),
                                "scheduled_s": 0.02 * np.arange(n), "lateness_s": np.asarray(lateness)}, {})
    return path


def test_a_timer_trace_is_fitted_and_printed(tmp_path, capsys):
    path = timer_file(tmp_path / "t.csv", [1e-4, 4e-4, 0.0])
    assert fit_timer_trace(path) == (pytest.approx(2e-4), pytest.approx(np.log(2)), 2)
    main([str(path)])
    out = capsys.readouterr().out
    assert "timer_median = 2.000e-04" in out and "timer_sigma = 0.693" in out and "from 2 wakeups" in out


def test_other_traces_and_empty_lateness_are_input_errors(tmp_path):
    ticks = tmp_path / "ticks.csv"
    write_trace(ticks, "cpu_ticks", {"vm": ["vm0"], "worker": [0], "tick": [0], "scheduled_s": [0.0],
                                     "start_s": [0.001], "end_s": [0.005]}, {})
    with pytest.raises(InputError, match="expected a timer trace"):
        fit_timer_trace(ticks)
    with pytest.raises(InputError, match="lateness_s"):
        fit_timer_trace(timer_file(tmp_path / "zero.csv", [0.0, 0.0]))
