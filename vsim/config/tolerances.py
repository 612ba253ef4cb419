"""Tolerances of ``vsim validate``: ``METRIC.STAT = VALUE``, parsed, checked and applied.

A scenario states them in its ``[validate]`` table and the command line adds
or replaces them (``--tolerance jitter_ms.p99=0.2``). METRIC is one of
``vsim.traces.trace_metrics.METRICS``; STAT is one of ``STATS``:

* ``p50``, ``p90``, ``p95``, ``p99``, ``mean``: the simulated value may differ from
  the measured one by at most VALUE, in the metric's unit (ms for ``*_ms``);
* ``p50_rel``, ``p90_rel``, ``p95_rel``, ``p99_rel``, ``mean_rel``: the same difference
  over the measured value (0.1 = 10 %);
* ``ks``: the two-sample Kolmogorov-Smirnov statistic is at most VALUE (0-1);
* ``ks_pvalue``: its p-value is at least VALUE (0-1); it assumes independent
  samples, which jitter and transit samples are not;
* ``ks_rank_pvalue``: the rank test's p-value is at least VALUE (0-1): the
  share of the runs (the measurement and each replication) whose KS distance
  to the others is at least the measurement's, which respects the dependence
  within a run; it needs 2 replications, and 20+ to go below 0.05;
* ``wasserstein``: the Wasserstein distance is at most VALUE, in the
  metric's unit.
"""

import math
from dataclasses import dataclass

from vsim.core.errors import InputError
from vsim.core.errors import did_you_mean
from vsim.traces.trace_metrics import METRICS


@dataclass(frozen=True)
class Stat:
    """A checkable statistic: how to read it from a comparison, which way it must lie, its range."""

    doc: str
    at_least: bool = False
    at_most_one: bool = False
    replications: int = 1  # the fewest simulated replications it can be read from

    def passes(self, value, tolerance):
        if value is None or math.isnan(value):
            return False
        return value >= tolerance if self.at_least else value <= tolerance


def _abs_error(quantity, relative):
    key = "rel_error" if relative else "error"

    def read(comparison):
        entry = comparison[quantity]
        if relative and entry["rel_error"] is None:  # measured value 0: any difference is infinite
            return 0.0 if entry["error"] == 0 else math.inf
        return abs(entry[key])
    return read


STATS = {}
READERS = {}
for _quantity in ("p50", "p90", "p95", "p99", "mean"):
    STATS[_quantity] = Stat(f"|simulated - measured| {_quantity} at most VALUE (the metric's unit)")
    READERS[_quantity] = _abs_error(_quantity, relative=False)
    STATS[f"{_quantity}_rel"] = Stat(f"|simulated - measured| {_quantity} over the measured one, at most VALUE")
    READERS[f"{_quantity}_rel"] = _abs_error(_quantity, relative=True)
STATS["ks"] = Stat("Kolmogorov-Smirnov statistic at most VALUE", at_most_one=True)
READERS["ks"] = lambda comparison: comparison["ks"]["statistic"]
STATS["ks_pvalue"] = Stat("Kolmogorov-Smirnov p-value at least VALUE", at_least=True, at_most_one=True)
READERS["ks_pvalue"] = lambda comparison: comparison["ks"]["pvalue"]
STATS["ks_rank_pvalue"] = Stat("rank test p-value at least VALUE: the share of the runs (the measurement "
                               "and each replication) at least as far in KS from the others as the "
                               "measurement (2+ replications; 20+ to go below 0.05)",
                               at_least=True, at_most_one=True, replications=2)
READERS["ks_rank_pvalue"] = lambda comparison: (comparison["ks_rank"] or {}).get("pvalue")
STATS["wasserstein"] = Stat("Wasserstein distance at most VALUE (the metric's unit)")
READERS["wasserstein"] = lambda comparison: comparison["wasserstein"]


def key_problem(key):
    """What is wrong with the tolerance key ``METRIC.STAT`` (a one-line expectation), or None."""
    metric, dot, stat = key.rpartition(".")
    if not dot or not metric:
        return f"expected METRIC.STAT (e.g. jitter_ms.p99), got {key!r}"
    if metric not in METRICS:
        hint = did_you_mean(metric, list(METRICS)) or f"expected one of: {', '.join(METRICS)}"
        return f"unknown metric {metric!r}; {hint}"
    if stat not in STATS:
        hint = did_you_mean(stat, list(STATS)) or f"expected one of: {', '.join(STATS)}"
        return f"unknown statistic {stat!r}; {hint}"
    return None


def value_problem(key, value):
    """What is wrong with tolerance ``value`` for ``key`` (a valid key), or None."""
    stat = STATS[key.rpartition(".")[2]]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return f"expected a finite number, got {value!r}"
    if value < 0 or (stat.at_most_one and value > 1):
        return f"expected a number {'in 0..1' if stat.at_most_one else '>= 0'}, got {value!r}"
    return None


def parse_option(text):
    """``(key, value)`` of a ``--tolerance METRIC.STAT=VALUE`` option; ``InputError`` naming it otherwise."""
    key, eq, raw = text.partition("=")
    key = key.strip()
    if not eq:
        raise InputError("--tolerance", text, "expected METRIC.STAT=VALUE (e.g. jitter_ms.p99=0.2)")
    problem = key_problem(key)
    if problem is None:
        try:
            value = float(raw)
        except ValueError:
            value = raw.strip()
        problem = value_problem(key, value)
    if problem is not None:
        raise InputError("--tolerance", text, problem)
    return key, value


def check(tolerances, comparisons):
    """One check per tolerance, in key order: ``{key, metric, stat, value, tolerance, bound, passed}``.

    ``comparisons`` maps each metric to its ``vsim.validate.distributions.compare`` result.
    """
    checks = []
    for key in sorted(tolerances):
        metric, _, stat = key.rpartition(".")
        value = READERS[stat](comparisons[metric])
        checks.append({"key": key, "metric": metric, "stat": stat, "value": value,
                       "tolerance": tolerances[key], "bound": ">=" if STATS[stat].at_least else "<=",
                       "passed": STATS[stat].passes(value, tolerances[key])})
    return checks
