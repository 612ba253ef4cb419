"""Summary statistics used to reduce repeated runs and to test trends.

Each function takes plain sequences or NumPy arrays and returns Python
floats, so results can be written straight into reports. Sums over the
handful of runs or sweep points are taken with ``math.fsum``, which rounds
once and exactly, so a report's last digit does not depend on how a NumPy or
BLAS build orders its additions.
"""

import math

import numpy as np


def _nonempty(name, values):
    array = np.asarray(values, dtype=float).ravel()
    if array.size == 0:
        raise ValueError(f"{name} needs at least one value")
    return array


def _pair(x, y):
    xs = np.asarray(x, dtype=float).ravel()
    ys = np.asarray(y, dtype=float).ravel()
    if xs.size != ys.size:
        raise ValueError(f"x and y differ in length: {xs.size} != {ys.size}")
    return xs, ys


def trimmed_mean(values):
    """The paper's "trimmed average of 5 runs".

    With at least 3 values the single highest and the single lowest are
    dropped before averaging, which removes one outlier run at each end;
    with 1 or 2 values nothing can be dropped and the plain mean is returned.
    The mean is held within the values it averages (dividing their exact sum can round
    a mean of equal values an ulp below them). Raises ValueError on empty input.
    """
    array = np.sort(_nonempty("trimmed_mean", values))
    if array.size >= 3:
        array = array[1:-1]
    return min(max(_mean(array), float(array[0])), float(array[-1]))


BOOTSTRAP_RESAMPLES = 9999
BOOTSTRAP_SEED = 3550
INTERVAL = "95 % percentile-bootstrap interval of the trimmed mean over the replications"


FEW_REPLICATIONS = 6
"""Replications below which a percentile-bootstrap interval falls well short of its nominal
95 %: the range of n runs holds their distribution's median with probability 1 - 2^(1-n)
only (75 % for 3, 94 % for 5), and the bootstrap interval lies inside that range."""


def interval_caveat(replications):
    """A sentence saying how far the intervals of ``replications`` runs per point go, or '' from
    ``FEW_REPLICATIONS`` on (a table or figure with fewer should not pass for 95 %)."""
    if replications >= FEW_REPLICATIONS:
        return ""
    if replications <= 1:
        return "one replication: no interval"
    return (f"with {replications} replications the intervals are narrower than 95 % "
            f"(with 2 or 3, the range of the runs): read them as the spread seen, and run "
            f"{FEW_REPLICATIONS} or more for a confidence interval")


def _trimmed_means(samples, axis=-1):
    """Trimmed mean of each resample along ``axis`` (vectorised for the bootstrap).

    The kept values are added one column at a time, so every resample's sum
    is formed in the same order on any NumPy build.
    """
    ordered = np.sort(np.moveaxis(samples, axis, -1), axis=-1)
    if ordered.shape[-1] >= 3:
        ordered = ordered[..., 1:-1]
    total = ordered[..., 0].copy()
    for column in range(1, ordered.shape[-1]):
        total += ordered[..., column]
    return total / ordered.shape[-1]


def trimmed_mean_interval(values, level=0.95):
    """Two-sided percentile-bootstrap interval ``(low, high)`` of ``trimmed_mean(values)``.

    The interval belongs to the statistic reported (the trimmed mean of the
    replications), not to the plain mean: the replications are resampled with
    replacement ``BOOTSTRAP_RESAMPLES`` times and the interval spans the
    central ``level`` of the resampled trimmed means (scipy.stats.bootstrap,
    percentile method, which needs no symmetry and no normality). The values
    are sorted first and the generator is seeded, so the interval depends only
    on the set of values and is byte-identical run to run; where the resampled
    distribution is lopsided the interval is widened to hold the trimmed mean
    itself. With fewer than 2
    values, or all equal, the spread is unknown or nil and ``(t, t)`` is
    returned. Resampling cannot size the spread of values that are not all
    finite (a ratio over a zero slope in one replication): an infinite value
    gives the range of the values, a NaN gives ``(nan, nan)``. Raises
    ValueError on empty input or a level outside (0, 1).
    """
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie in (0, 1), got {level}")
    array = np.sort(_nonempty("trimmed_mean_interval", values))
    if np.isnan(array).any():
        return float("nan"), float("nan")
    centre = trimmed_mean(array)
    if array.size < 2 or array[0] == array[-1]:
        return centre, centre
    if not np.isfinite(array).all():
        return min(float(array[0]), centre), max(float(array[-1]), centre)
    from scipy.stats import bootstrap

    result = bootstrap((array,), _trimmed_means, vectorized=True, n_resamples=BOOTSTRAP_RESAMPLES,
                       confidence_level=level, method="percentile",
                       rng=np.random.default_rng(BOOTSTRAP_SEED))
    interval = result.confidence_interval  # clipped to the values: interpolation may overshoot by an ulp
    low = min(max(float(interval.low), float(array[0])), centre)
    high = max(min(float(interval.high), float(array[-1])), centre)
    return low, high


def spearman(x, y):
    """Spearman rank correlation of ``x`` and ``y``.

    Measures whether ``y`` grows monotonically with ``x`` regardless of
    shape. Returns nan when either input is constant (or has fewer than two
    values), where a rank correlation is undefined.
    """
    xs, ys = _pair(x, y)
    if xs.size < 2 or np.all(xs == xs[0]) or np.all(ys == ys[0]):
        return float("nan")
    from scipy.stats import spearmanr

    return float(spearmanr(xs, ys).statistic)


def _mean(array):
    return math.fsum(array) / array.size


def _fit_input(x, y):
    xs, ys = _pair(x, y)
    if xs.size < 2 or np.all(xs == xs[0]):
        raise ValueError("a straight-line fit needs at least two distinct x values")
    return xs, ys


def _ols(xs, ys):
    x_mean, y_mean = _mean(xs), _mean(ys)
    dx = xs - x_mean
    b = math.fsum(dx * (ys - y_mean)) / math.fsum(dx * dx)
    return y_mean - b * x_mean, b


def straight_line(x, y):
    """``(intercept, slope)`` of the ordinary least-squares straight line through ``(x, y)``.

    Raises ValueError unless there are at least two distinct x values.
    """
    return _ols(*_fit_input(x, y))


def slope(x, y):
    """Slope of the ordinary least-squares straight line through ``(x, y)``.

    Raises ValueError unless there are at least two distinct x values.
    """
    return straight_line(x, y)[1]


def linear_r2(x, y):
    """Coefficient of determination (1 - SSres/SStot) of a least-squares line.

    Tells how much of the variation of ``y`` a straight line in ``x``
    explains. A constant ``y`` is fitted exactly by a flat line and gives
    1.0. ``y`` is scaled to unit peak before fitting, which leaves R^2
    unchanged and keeps sums of squares of tiny values from underflowing.
    Raises ValueError unless there are at least two distinct x values.
    """
    xs, ys = _fit_input(x, y)
    if np.all(ys == ys[0]):
        return 1.0
    ys = ys / np.max(np.abs(ys))
    a, b = _ols(xs, ys)
    ss_res = math.fsum((ys - (a + b * xs)) ** 2)
    ss_tot = math.fsum((ys - _mean(ys)) ** 2)
    return 1.0 - ss_res / ss_tot
