"""How far a simulated distribution is from a measured one: quantiles, KS, Wasserstein, means.

Each side is a list of groups of samples of one metric: one group per
measured trace, one per simulated replication. Quantiles, the two-sample
Kolmogorov-Smirnov statistic (``scipy.stats.ks_2samp``) and the Wasserstein
(earth mover's) distance (``scipy.stats.wasserstein_distance``) are taken on
the pooled samples of each side. Errors are simulated minus measured, and
relative errors divide by the measured value (None where it is 0).

The mean of each side comes with a 95 % percentile-bootstrap interval that
resamples whole groups (a cluster bootstrap: the mean of a resample is its
groups' total over their count), because samples within a run are strongly
correlated (a jitter value is a running mean of the previous ones) and only
the runs are independent. A side with a single group is cut into
``BATCHES`` consecutive batches instead (batch means, the classic remedy
for one long correlated run). Timed samples come from
``vsim.traces.trace_metrics`` in time order, so a batch is a stretch of
the run's time across all its streams (or threads, or workers), not one
stream: streams that run side by side are not independent runs. The
generator is seeded, so the interval is the same on every run.

KS p-values assume independent samples; with correlated samples in the
thousands they are tiny even for small differences. Worse, the statistic
itself varies from run to run far more than its sample count suggests: one
run's jitter samples are a running mean of each other, and a run's random
phases persist through it, so two replications of one model lie 0.13 to 0.35
apart (fig2, 20 s, eight seed pairs). ``rank_test`` respects that dependence
by treating runs, not samples, as the independent units: the measured side
is one more run, and its KS distance to the simulated runs is ranked among
each simulated run's distance to the rest. Under the hypothesis that the
measured run is one the model could give, the runs are exchangeable and that
rank is uniform, so the share of runs at least as far off is an exact
p-value, whatever the correlation within a run.
"""

import math
import warnings

import numpy as np
from scipy.stats import bootstrap, ks_2samp, wasserstein_distance

QUANTILES = {"p50": 0.50, "p90": 0.90, "p95": 0.95, "p99": 0.99}
BATCHES = 10
RESAMPLES = 9999
SEED = 3550
LEVEL = 0.95


def pooled(groups):
    """All samples of a side, groups in order."""
    arrays = [np.asarray(group, dtype=float) for group in groups]
    return np.concatenate(arrays) if arrays else np.zeros(0)


def _units(groups):
    """(sums, counts) of the side's independent units: its groups, or batches of its only group."""
    groups = [np.asarray(group, dtype=float) for group in groups]
    if len(groups) == 1:
        groups = np.array_split(groups[0], min(BATCHES, groups[0].size))
    groups = [group for group in groups if group.size]
    return (np.array([math.fsum(group) for group in groups]),
            np.array([group.size for group in groups], dtype=float))


def _ratio_of_totals(sums, counts, axis=-1):
    return np.sum(sums, axis=axis) / np.sum(counts, axis=axis)


def mean_interval(groups, level=LEVEL):
    """(mean of the pooled samples, (low, high)) with a seeded cluster-bootstrap interval."""
    sums, counts = _units(groups)
    if counts.size == 0:
        raise ValueError("mean_interval needs at least one sample")
    centre = math.fsum(sums) / math.fsum(counts)
    unit_means = sums / counts
    if counts.size < 2 or np.all(unit_means == unit_means[0]):
        return centre, (centre, centre)
    result = bootstrap((sums, counts), _ratio_of_totals, paired=True, vectorized=True,
                       n_resamples=RESAMPLES, confidence_level=level, method="percentile",
                       rng=np.random.default_rng(SEED))
    interval = result.confidence_interval
    return centre, (min(float(interval.low), centre), max(float(interval.high), centre))


def ks_distance(first, second):
    """The two-sample Kolmogorov-Smirnov statistic: the largest gap between the two empirical CDFs."""
    first, second = np.sort(np.asarray(first, dtype=float)), np.sort(np.asarray(second, dtype=float))
    points = np.concatenate((first, second))
    gaps = (np.searchsorted(first, points, side="right") / first.size
            - np.searchsorted(second, points, side="right") / second.size)
    return float(np.max(np.abs(gaps)))


def rank_test(measured_groups, simulated_groups):
    """The measured side's KS distance to the simulation, ranked among the simulated runs' own.

    The units are the measured side (all its groups pooled: one measurement)
    and each non-empty simulated group (one replication). Each unit's
    distance is its KS statistic against the pooled samples of all the other
    units, so the measured side's is the plain KS statistic of ``compare``;
    the statistic is the same function of every unit, which is what makes
    the units exchangeable when the measurement is one the model could give.
    ``pvalue`` is the share of the units whose distance is at least the
    measured side's (itself included), so it is at least 1 / (runs + 1): 20
    or more replications are needed before it can fall below 0.05. None with
    fewer than two simulated runs, where there is nothing to rank against.
    """
    measured = pooled(measured_groups)
    runs = [np.asarray(group, dtype=float) for group in simulated_groups]
    runs = [run for run in runs if run.size]
    if len(runs) < 2 or measured.size == 0:
        return None
    units = [measured] + runs
    distances = [ks_distance(unit, pooled(units[:index] + units[index + 1:]))
                 for index, unit in enumerate(units)]
    observed = distances[0]
    at_least = sum(distance >= observed for distance in distances)
    return {"statistic": observed, "runs": distances[1:], "pvalue": at_least / len(units)}


def _errors(measured, simulated):
    error = simulated - measured
    return {"measured": measured, "simulated": simulated, "error": error,
            "rel_error": error / abs(measured) if measured != 0 else None}


def compare(measured_groups, simulated_groups):
    """The comparison of one metric's two sides, as plain data for reports and tolerance checks.

    Raises ValueError when a side has no samples.
    """
    measured, simulated = pooled(measured_groups), pooled(simulated_groups)
    if measured.size == 0 or simulated.size == 0:
        raise ValueError("both sides need samples")
    result = {"samples": {"measured": int(measured.size), "simulated": int(simulated.size)}}
    for name, q in QUANTILES.items():
        result[name] = _errors(float(np.quantile(measured, q)), float(np.quantile(simulated, q)))
    measured_mean, measured_ci = mean_interval(measured_groups)
    simulated_mean, simulated_ci = mean_interval(simulated_groups)
    result["mean"] = {**_errors(measured_mean, simulated_mean),
                      "measured_interval": list(measured_ci), "simulated_interval": list(simulated_ci)}
    with warnings.catch_warnings():
        # scipy falls back to the asymptotic p-value when the exact one does
        # not converge (ties between small samples); the fallback is the
        # answer, so the warning would only alarm a reader of stderr
        warnings.filterwarnings("ignore", message="ks_2samp: Exact calculation unsuccessful",
                                category=RuntimeWarning)
        ks = ks_2samp(measured, simulated)
    result["ks"] = {"statistic": float(ks.statistic), "pvalue": float(ks.pvalue)}
    result["ks_rank"] = rank_test(measured_groups, simulated_groups)
    result["wasserstein"] = float(wasserstein_distance(measured, simulated))
    return result
