"""Figures of simulated sweeps against the paper's values (matplotlib, Agg backend).

A figure shows simulated curves (per point: trimmed mean over replications,
error bars the 95% interval, faint dots the replications themselves) and the paper's values as separate markers with
their acceptance band as error bars, so a reader sees at once where the model
lands. Each figure is written as PNG and SVG, atomically; SVG output carries
no date and fixed element ids, so re-running gives identical files.
"""

from dataclasses import dataclass

import matplotlib
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from vsim.core.atomic import atomic_path

FORMATS = ("png", "svg")


@dataclass(frozen=True)
class Curve:
    """Simulated values: per x, the statistic, its (low, high) interval and, if
    given, the value of every replication (drawn as faint dots, so the spread
    between runs is visible next to the interval)."""

    label: str
    xs: list
    stats: list
    runs: list = None


@dataclass(frozen=True)
class Marks:
    """Paper values: per x, the value and its (low, high) acceptance band."""

    label: str
    xs: list
    values: list
    bands: list


def _yerr(centres, intervals):
    return [[c - low for c, (low, _) in zip(centres, intervals)],
            [high - c for c, (_, high) in zip(centres, intervals)]]


def plot_sweep(stem, *, title, xlabel, ylabel, curves, marks, line=None):
    """Draw ``curves`` and paper ``marks`` and write ``stem``.png and ``stem``.svg.

    ``line``, when given, is (label, xs, ys) of a fitted line drawn dashed.
    Returns the paths written.
    """
    fig = Figure(figsize=(6.4, 4.4), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    colours = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
    for colour, curve in zip(colours, curves):
        centres = [value for value, _ in curve.stats]
        ax.errorbar(curve.xs, centres, yerr=_yerr(centres, [ci for _, ci in curve.stats]),
                    color=colour, marker="o", markersize=4, capsize=3, label=f"simulated {curve.label}")
        if curve.runs is not None:  # beside the point, so the interval does not hide them
            offset = 0.015 * (max(curve.xs) - min(curve.xs))
            run_xs = [x + offset for x, values in zip(curve.xs, curve.runs) for _ in values]
            run_ys = [value for values in curve.runs for value in values]
            ax.plot(run_xs, run_ys, color=colour, marker="o", markersize=3, alpha=0.45,
                    linestyle="none", label=f"replications ({curve.label})")
    for colour, mark, symbol in zip(colours, marks, "DsP^v"):
        ax.errorbar(mark.xs, mark.values, yerr=_yerr(mark.values, mark.bands), color=colour,
                    markerfacecolor="white", marker=symbol, markersize=8, linestyle="none",
                    capsize=5, label=f"paper {mark.label} (band)")
    if line is not None:
        label, xs, ys = line
        ax.plot(xs, ys, color="grey", linestyle="--", linewidth=1, label=label)
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    written = []
    with matplotlib.rc_context({"svg.hashsalt": "vsim"}):
        for fmt in FORMATS:
            path = stem.with_suffix(f".{fmt}")
            with atomic_path(path) as tmp:
                fig.savefig(tmp, format=fmt, metadata={"Date": None} if fmt == "svg" else None)
            written.append(path)
    return written
