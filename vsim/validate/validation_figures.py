"""Figures of ``vsim validate``: per metric, empirical CDFs of both sides and, where samples have
times, the metric against time.

The CDF figure draws the measured samples (pooled over the traces) and the
simulated ones (pooled over the replications) as thick lines and every
replication as a faint line, so the spread between runs is visible beside
the distance between the sides; a metric with a long right tail (99th
percentile at least 5 times the median, all values positive) gets a log
x-axis. Curves are drawn through 512 evenly spaced quantiles, which keeps the SVG small for runs of millions of samples. The
time-series figure bins the first measured trace and the first replication
into at most 300 windows and draws each window's mean (solid) and maximum
(dotted). Both are written as PNG and SVG, atomically and byte-identically
run to run, in the style of the study figures (``vsim.results.plotting``).
"""

from pathlib import Path

import numpy as np

from vsim.results.plotting import FORMATS, new_axes, palette, write_figure
from vsim.traces.trace_metrics import METRICS
from vsim.validate.validation_report import run_stamp

_CDF_POINTS = 512
_TIME_BINS = 300
_LOG_SPREAD = 5.0


def _cdf(values):
    """The empirical CDF's corners (sorted values, share of samples <= each), for steps drawn
    ``where="post"``, from 0 at the smallest sample, so its first step is drawn too (a metric
    that is often 0 rises there by that share); past it at most ``_CDF_POINTS`` corners, evenly spread
    over the ranks, the last sample always among them."""
    ordered = np.sort(values)
    ranks = np.unique(np.linspace(0, ordered.size - 1, min(ordered.size, _CDF_POINTS)).round().astype(int))
    return (np.concatenate((ordered[:1], ordered[ranks])),
            np.concatenate(([0.0] if ordered.size else [], (ranks + 1) / ordered.size)))


def _label(metric):
    """An axis label for a metric: ``tick_start_lateness_ms`` reads "tick start lateness (ms)"."""
    unit = METRICS[metric].unit
    words = metric.removesuffix(f"_{unit}") if unit else metric
    words = words.replace("_", " ")
    return f"{words} ({unit})" if unit else words


def plot_cdf(stem, metric, measured, simulated, doc):
    """Overlaid empirical CDFs of one metric; returns the paths written."""
    fig, ax = new_axes()
    colours = palette()
    measured_values = np.concatenate([group.values for group in measured])
    simulated_values = np.concatenate([group.values for group in simulated])
    for index, group in enumerate(simulated):
        if group.values.size:
            ax.step(*_cdf(group.values), where="post", color=colours[1], alpha=0.3, linewidth=0.8,
                    label="each replication" if index == 0 else None)
    ax.step(*_cdf(simulated_values), where="post", color=colours[1], linewidth=2, label="simulated (pooled)")
    ax.step(*_cdf(measured_values), where="post", color=colours[0], linewidth=2, label="measured (pooled)")
    both = np.concatenate((measured_values, simulated_values))
    if both.min() > 0 and np.quantile(both, 0.99) >= _LOG_SPREAD * np.quantile(both, 0.5):
        ax.set_xscale("log")  # a long right tail (timer lateness): decades, not a squeezed body
    caption = (f"{doc['scenario']}. Empirical CDF of {metric}: {METRICS[metric].doc}. Measured: "
               f"{len(measured)} trace(s), "
               f"{measured_values.size} samples; simulated: {run_stamp(doc)}, {simulated_values.size} "
               f"samples, pooled; faint lines: each replication.")
    return write_figure(fig, ax, stem, title=f"{metric}: measured vs simulated",
                  xlabel=_label(metric), ylabel="fraction of samples <= x", caption=caption)


def _binned(samples):
    """(bin centres from the trace's first sample, mean per bin, max per bin) over non-empty bins."""
    times = samples.times - samples.times.min()
    span = max(float(times.max()), 1e-9)
    edges = np.linspace(0.0, span, _TIME_BINS + 1)
    index = np.clip(np.searchsorted(edges, times, side="right") - 1, 0, _TIME_BINS - 1)
    counts = np.bincount(index, minlength=_TIME_BINS)
    sums = np.bincount(index, weights=samples.values, minlength=_TIME_BINS)
    highs = np.full(_TIME_BINS, -np.inf)
    np.maximum.at(highs, index, samples.values)
    used = counts > 0
    centres = (edges[:-1] + edges[1:]) / 2
    return centres[used], sums[used] / counts[used], highs[used]


def plot_time_series(stem, metric, measured, simulated, doc):
    """One metric against time, first trace and first replication, binned; returns the paths written."""
    fig, ax = new_axes()
    colours = palette()
    window = None
    for colour, name, samples in ((colours[0], "measured", measured[0]), (colours[1], "simulated", simulated[0])):
        if samples.values.size == 0:
            continue
        centres, means, highs = _binned(samples)
        window = window or (float(samples.times.max() - samples.times.min()) / _TIME_BINS)
        ax.plot(centres, means, color=colour, linewidth=1.2, label=f"{name}: mean per window")
        ax.plot(centres, highs, color=colour, linewidth=0.8, linestyle=":", label=f"{name}: max per window")
    caption = (f"{doc['scenario']}. {metric} ({METRICS[metric].doc}) against time from each trace's "
               f"first sample: the first measured trace ({doc['measured'][0]}) and the first replication (seed "
               f"{doc['simulated']['seeds'][0]}), in {_TIME_BINS} windows (about {window or 0:.2g} s each); "
               "solid: mean per window, dotted: maximum.")
    return write_figure(fig, ax, stem, title=f"{metric} over time: measured vs simulated",
                  xlabel="time (s)", ylabel=_label(metric), caption=caption)


def figure_files():
    """Names of every figure ``write_figures`` may write, whatever the metrics compared."""
    stems = [f"cdf_{metric}" for metric in METRICS] + [f"time_{metric}" for metric in METRICS
                                                       if METRICS[metric].timed]
    return [f"{stem}.{fmt}" for stem in stems for fmt in FORMATS]


def write_figures(out, validation):
    """Every figure of a ``Validation`` into directory ``out``; returns the paths written."""
    out = Path(out)
    written = []
    for metric in validation.doc["metrics"]:
        measured, simulated = validation.measured[metric], validation.simulated[metric]
        written += plot_cdf(out / f"cdf_{metric}", metric, measured, simulated, validation.doc)
        if METRICS[metric].timed:
            written += plot_time_series(out / f"time_{metric}", metric, measured, simulated, validation.doc)
    return written
