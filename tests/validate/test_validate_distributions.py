"""Tests of the measured-vs-simulated statistics on distributions with known answers, against scipy."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy.stats import ks_2samp, wasserstein_distance

from vsim.validate.distributions import BATCHES, compare, ks_distance, mean_interval, pooled, rank_test


def normal(seed, size=20000, loc=0.0, scale=1.0):
    return np.random.default_rng(seed).normal(loc, scale, size)


def test_a_known_shift_shows_in_every_quantile_error_and_the_wasserstein_distance():
    measured = normal(1)
    simulated = normal(2, loc=0.5)
    result = compare([measured], [simulated])
    for q in ("p50", "p90", "p99"):
        assert result[q]["error"] == pytest.approx(0.5, abs=0.06)
        assert result[q]["simulated"] == pytest.approx(result[q]["measured"] + result[q]["error"])
    assert result["mean"]["error"] == pytest.approx(0.5, abs=0.03)
    assert result["wasserstein"] == pytest.approx(0.5, abs=0.03)
    # a shift of half a standard deviation: KS statistic 2 Phi(0.25) - 1 = 0.197
    assert result["ks"]["statistic"] == pytest.approx(0.197, abs=0.02)


def test_statistics_are_scipys_on_the_pooled_samples():
    measured = [normal(3, 500), normal(4, 700)]
    simulated = [normal(5, 400, scale=1.3), normal(6, 900, scale=1.3), normal(7, 300, scale=1.3)]
    result = compare(measured, simulated)
    ks = ks_2samp(pooled(measured), pooled(simulated))
    assert result["ks"] == {"statistic": ks.statistic, "pvalue": ks.pvalue}
    assert result["wasserstein"] == wasserstein_distance(pooled(measured), pooled(simulated))
    assert result["p99"]["measured"] == np.quantile(pooled(measured), 0.99)
    assert result["samples"] == {"measured": 1200, "simulated": 1600}


def test_identical_samples_show_no_difference():
    samples = normal(8, 5000)
    result = compare([samples], [samples.copy()])
    assert all(result[q]["error"] == 0 and result[q]["rel_error"] == 0 for q in ("p50", "p90", "p99", "mean"))
    assert result["ks"] == {"statistic": 0.0, "pvalue": 1.0}
    assert result["wasserstein"] == 0.0


def test_ks_detects_a_change_of_scale_that_leaves_the_mean_alone():
    result = compare([normal(9, 5000)], [normal(10, 5000, scale=2.0)])
    assert abs(result["mean"]["error"]) < 0.1
    assert result["ks"]["statistic"] > 0.15
    assert result["ks"]["pvalue"] < 1e-6
    assert result["p99"]["error"] > 1.5  # the tail moves by about 2.33 sd


def test_relative_error_is_none_against_a_measured_zero():
    result = compare([np.zeros(10)], [np.ones(10)])
    assert result["p50"]["rel_error"] is None and result["p50"]["error"] == 1.0


def test_a_side_without_samples_is_refused():
    with pytest.raises(ValueError):
        compare([np.zeros(0)], [np.ones(3)])


def test_the_mean_interval_covers_the_true_mean_and_is_reproducible():
    groups = [normal(seed, 2000, loc=3.0) for seed in range(5)]
    centre, (low, high) = mean_interval(groups)
    assert centre == pytest.approx(np.mean(np.concatenate(groups)))
    assert low < 3.0 < high and high - low < 0.2
    assert mean_interval(groups) == (centre, (low, high))


def test_the_mean_interval_resamples_runs_not_samples():
    """Runs that each sit at their own level: the interval must reflect the spread of the runs."""
    groups = [np.full(1000, level) for level in (1.0, 2.0, 3.0, 4.0)]
    _, (low, high) = mean_interval(groups)
    assert high - low > 1.0  # an interval over the 4000 samples as if independent would be ~0.07 wide


def test_one_group_is_cut_into_batches():
    trend = np.repeat(np.arange(BATCHES, dtype=float), 100)  # batch means 0..9
    _, (low, high) = mean_interval([trend])
    assert low < 4.5 < high and high - low > 2.0


def test_equal_groups_give_a_point_interval():
    assert mean_interval([np.full(5, 2.0), np.full(3, 2.0)]) == (2.0, (2.0, 2.0))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(-100, 100, allow_nan=False), min_size=2, max_size=50),
       st.floats(-10, 10, allow_nan=False))
def test_a_shifted_copy_is_off_by_the_shift_everywhere(values, shift):
    measured = np.asarray(values)
    result = compare([measured], [measured + shift])
    for q in ("p50", "p90", "p99", "mean"):
        assert result[q]["error"] == pytest.approx(shift, abs=1e-9)
    assert result["wasserstein"] == pytest.approx(abs(shift), abs=1e-9)


def test_tied_small_samples_compare_without_a_warning():
    """Five tied values shifted by 1e-3 make scipy's exact KS p-value fail to
    converge; the asymptotic fallback is used without alarming stderr."""
    measured = np.round(np.random.default_rng(0).normal(size=5), 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = compare([measured], [measured + 1e-3])
    assert 0.0 <= result["ks"]["pvalue"] <= 1.0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-5, 5), min_size=1, max_size=40), st.lists(st.floats(-5, 5), min_size=1, max_size=40))
def test_the_ks_distance_is_scipys_statistic(first, second):
    assert ks_distance(first, second) == pytest.approx(ks_2samp(first, second, method="asymp").statistic, abs=1e-12)


def _runs_with_their_own_level(rng, count, size=400, spread=0.5):
    """Runs whose samples share a level drawn once per run (the within-run dependence of a jitter
    trace: a run's phases persist through it), plus noise."""
    return [rng.normal(rng.normal(0.0, spread), 1.0, size) for _ in range(count)]


def test_the_rank_test_holds_its_level_where_the_plain_ks_p_value_does_not():
    """Measured and simulated runs from one model whose runs differ by a level: the plain KS p-value
    rejects nearly every time at 10 %, the rank test in 10 % of trials (exact by exchangeability)."""
    rng = np.random.default_rng(31)
    trials, replications = 300, 9
    rank_rejects = plain_rejects = 0
    for _ in range(trials):
        measured, *simulated = _runs_with_their_own_level(rng, replications + 1)
        result = compare([measured], simulated)
        rank_rejects += result["ks_rank"]["pvalue"] <= 0.1
        plain_rejects += result["ks"]["pvalue"] <= 0.1
    assert plain_rejects / trials > 0.6
    # 10 % of 300 trials: 30 expected, binomial sd 5.2
    assert abs(rank_rejects - 30) < 16


def test_a_measurement_farther_off_than_any_run_gets_the_smallest_rank_p_value():
    rng = np.random.default_rng(32)
    simulated = _runs_with_their_own_level(rng, 20, spread=0.1)
    rank = rank_test([rng.normal(2.0, 1.0, 400)], simulated)
    assert rank["pvalue"] == pytest.approx(1 / 21)
    assert rank["statistic"] > max(rank["runs"])


def test_the_measured_sides_rank_distance_is_the_plain_ks_statistic_and_each_run_is_against_the_rest():
    rng = np.random.default_rng(33)
    measured = [rng.normal(0, 1, 300), rng.normal(0, 1, 200)]
    simulated = [rng.normal(0.1, 1, 250) for _ in range(3)]
    result = compare(measured, simulated)
    assert result["ks_rank"]["statistic"] == pytest.approx(result["ks"]["statistic"], abs=1e-12)
    everything_but_the_second = pooled(measured + simulated[:1] + simulated[2:])
    assert result["ks_rank"]["runs"][1] == pytest.approx(ks_2samp(simulated[1], everything_but_the_second).statistic)


def test_the_rank_test_needs_two_simulated_runs():
    assert compare([normal(34, 100)], [normal(35, 100)])["ks_rank"] is None
    assert rank_test([normal(34, 100)], [normal(35, 100), np.zeros(0)]) is None
