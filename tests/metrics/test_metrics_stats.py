"""Tests of the summary statistics used to reduce runs and check trends."""

import math

import numpy as np
import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

from vsim.metrics.stats import (
    FEW_REPLICATIONS,
    interval_caveat,
    linear_r2,
    slope,
    spearman,
    straight_line,
    trimmed_mean,
    trimmed_mean_interval,
)

VALUES = st.lists(
    st.floats(min_value=-1e6, max_value=1e6, allow_nan=False), min_size=1, max_size=30
)


def test_trimmed_mean_drops_one_outlier_each_end():
    assert trimmed_mean([1, 2, 3, 4, 100]) == 3
    assert trimmed_mean([100, 4, 3, 2, -50]) == 3


@pytest.mark.parametrize("values, expected", [([5.0], 5.0), ([2.0, 6.0], 4.0)])
def test_trimmed_mean_small_inputs_plain_mean(values, expected):
    assert trimmed_mean(values) == expected


def test_trimmed_mean_empty_rejected():
    with pytest.raises(ValueError):
        trimmed_mean([])


@given(VALUES)
def test_trimmed_mean_within_range_and_order_free(values):
    result = trimmed_mean(values)
    assert min(values) - 1e-9 <= result <= max(values) + 1e-9
    assert trimmed_mean(list(reversed(values))) == pytest.approx(result, rel=1e-12, abs=1e-9)


@given(VALUES, st.randoms(use_true_random=False))
def test_reductions_do_not_depend_on_the_order_of_the_values(values, random):
    # sums are exact (math.fsum), so a report's last digit cannot depend on
    # the order in which a NumPy or BLAS build adds
    shuffled = list(values)
    random.shuffle(shuffled)
    assert trimmed_mean(shuffled) == trimmed_mean(values)
    assert trimmed_mean_interval(shuffled) == trimmed_mean_interval(values)


def test_interval_of_a_large_normal_sample_matches_the_closed_form():
    # with many replications the trimmed mean is nearly the mean, whose 95 %
    # interval is mean +- 1.96 s / sqrt(n)
    values = np.random.default_rng(11).normal(10.0, 2.0, 400)
    low, high = trimmed_mean_interval(values)
    half = 1.96 * values.std(ddof=1) / math.sqrt(values.size)
    assert (high - low) / 2 == pytest.approx(half, rel=0.1)
    assert (low + high) / 2 == pytest.approx(trimmed_mean(values), abs=0.1 * half)


def test_interval_narrows_with_more_replications_of_the_same_spread():
    few = trimmed_mean_interval([9.0, 11.0, 9.0, 11.0, 10.0])
    many = trimmed_mean_interval([9.0, 11.0] * 20 + [10.0])
    assert few[0] < 10.0 < few[1] and many[0] < 10.0 < many[1]
    assert many[1] - many[0] < few[1] - few[0]


def test_interval_widens_with_level():
    values = [1.0, 4.0, 2.0, 8.0, 3.0, 5.0]
    narrow = trimmed_mean_interval(values, level=0.80)
    wide = trimmed_mean_interval(values, level=0.99)
    assert wide[0] < narrow[0] and narrow[1] < wide[1]


@pytest.mark.parametrize("values", [[4.5], [2.0, 2.0, 2.0]])
def test_interval_without_spread_is_the_value(values):
    assert trimmed_mean_interval(values) == (values[0], values[0])


@pytest.mark.parametrize("level", [0.0, 1.0, 1.5])
def test_interval_bad_level_rejected(level):
    with pytest.raises(ValueError):
        trimmed_mean_interval([1.0, 2.0], level=level)


@given(VALUES)
@example([0.0, -795412.9142522448])  # interpolating between resamples overshot the smallest by an ulp
@example([2.0, 1.4, 1.4, 1.4, 1.4])  # the exact sum of three 1.4s over 3 rounded an ulp below 1.4
def test_interval_holds_the_trimmed_mean_within_the_range_and_repeats_exactly(values):
    low, high = trimmed_mean_interval(values)
    assert min(values) <= low <= trimmed_mean(values) <= high <= max(values)
    assert trimmed_mean_interval(values) == (low, high)


def test_spearman_monotone():
    x = [1, 2, 3, 4, 5]
    assert spearman(x, [1, 4, 9, 16, 25]) == pytest.approx(1.0)
    assert spearman(x, [5, 3, 2, 0, -7]) == pytest.approx(-1.0)


def test_spearman_constant_is_nan():
    assert math.isnan(spearman([1, 2, 3], [2, 2, 2]))
    assert math.isnan(spearman([0, 0, 0], [1, 2, 3]))


@given(st.sets(st.integers(-1000, 1000), min_size=2, max_size=30))
def test_spearman_strictly_increasing_is_one(xs):
    x = sorted(xs)
    y = [v**3 + 7 for v in x]
    assert spearman(x, y) == pytest.approx(1.0)


def test_linear_r2_exact_line_and_parabola():
    x = np.linspace(-3, 3, 13)
    assert linear_r2(x, 2.5 * x - 1.0) == pytest.approx(1.0)
    assert linear_r2(x, x**2) == pytest.approx(0.0, abs=1e-12)


def test_linear_r2_constant_y_is_one():
    assert linear_r2([1, 2, 3], [4, 4, 4]) == 1.0


def test_linear_r2_noisy_line_between():
    x = np.arange(10.0)
    y = x + np.array([1, -1] * 5)
    assert 0.5 < linear_r2(x, y) < 1.0


def test_fit_needs_distinct_x():
    with pytest.raises(ValueError):
        slope([1, 1, 1], [1, 2, 3])
    with pytest.raises(ValueError):
        linear_r2([1], [1])


def test_slope_known():
    assert slope([0, 1, 2, 3], [1, 3, 5, 7]) == pytest.approx(2.0)
    assert slope([0, 1, 2], [0, 1, 0]) == pytest.approx(0.0)


@given(
    st.lists(st.floats(-100, 100), min_size=2, max_size=30, unique=True),
    st.floats(-10, 10),
    st.floats(-10, 10),
)
def test_slope_and_r2_recover_line(x, a, b):
    x = np.array(x)
    assume(np.ptp(x) > 1e-3)
    y = a * x + b
    assert slope(x, y) == pytest.approx(a, abs=1e-6)
    r2 = linear_r2(x, y)
    assert r2 <= 1.0 + 1e-12
    if a != 0.0 and abs(a) * np.std(x) > 1e-3:
        assert r2 == pytest.approx(1.0, abs=1e-9)


def test_straight_line_known():
    assert straight_line([0, 1, 2, 3], [1, 3, 5, 7]) == pytest.approx((1.0, 2.0))


@given(
    st.lists(st.tuples(st.floats(-100, 100), st.floats(-100, 100)), min_size=3, max_size=30),
    st.randoms(use_true_random=False),
)
def test_straight_line_matches_polyfit_and_ignores_point_order(points, random):
    x = np.array([p[0] for p in points])
    y = np.array([p[1] for p in points])
    assume(np.ptp(x) > 1e-3)
    intercept, per_x = straight_line(x, y)
    expected_slope, expected_intercept = np.polyfit(x, y, 1)
    assert per_x == pytest.approx(expected_slope, rel=1e-6, abs=1e-6)
    assert intercept == pytest.approx(expected_intercept, rel=1e-6, abs=1e-4)
    shuffled = list(points)
    random.shuffle(shuffled)
    assert straight_line([p[0] for p in shuffled], [p[1] for p in shuffled]) == (intercept, per_x)


@given(
    st.lists(st.tuples(st.floats(-100, 100), st.floats(-100, 100)), min_size=3, max_size=30)
)
def test_r2_in_unit_interval(points):
    x = np.array([p[0] for p in points])
    y = np.array([p[1] for p in points])
    assume(np.ptp(x) > 1e-3 and np.ptp(y) > 1e-3)
    assert -1e-9 <= linear_r2(x, y) <= 1.0 + 1e-9


@pytest.mark.parametrize("values, expected", [
    ([1.0, 2.0, 3.0, float("inf")], (1.0, float("inf"))),
    ([-float("inf"), 1.0, 2.0, 3.0, 4.0], (-float("inf"), 4.0)),
])
def test_interval_of_values_not_all_finite_is_their_range_without_warnings(values, expected):
    """An infinite replication made scipy warn on stderr of a degenerate BCa interval."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert trimmed_mean_interval(values) == expected
        low, high = trimmed_mean_interval([1.0, 2.0, float("nan")])
    assert math.isnan(low) and math.isnan(high)


@pytest.mark.parametrize("replications, said", [(1, "no interval"), (2, "range of the runs"),
                                                (5, "narrower than 95 %"), (6, ""), (20, "")])
def test_few_replications_say_what_their_intervals_are_worth(replications, said):
    caveat = interval_caveat(replications)
    assert (said in caveat) if said else caveat == ""


def test_the_range_of_fewer_than_six_runs_holds_the_median_less_than_95_percent_of_the_time():
    """The fact behind FEW_REPLICATIONS: 1 - 2^(1-n) is below 0.95 up to 5 runs, above from 6."""
    coverage = {n: 1 - 2.0 ** (1 - n) for n in range(2, 8)}
    assert max(n for n, c in coverage.items() if c < 0.95) == FEW_REPLICATIONS - 1
    rng = np.random.default_rng(5)
    runs = rng.standard_normal((20000, 3))  # the median of the distribution is 0
    assert np.mean((runs.min(axis=1) < 0) & (runs.max(axis=1) > 0)) == pytest.approx(0.75, abs=0.01)


@given(st.lists(st.sampled_from([1.4, 0.1, 2.0 / 3.0, 1e-300, 7.0]), min_size=1, max_size=30))
def test_the_trimmed_mean_lies_within_the_values_it_averages(values):
    kept = sorted(values)[1:-1] if len(values) >= 3 else values
    assert min(kept) <= trimmed_mean(values) <= max(kept)
