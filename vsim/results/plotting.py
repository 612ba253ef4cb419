"""The plotting kit of every command: figures of simulated sweeps against the paper's values
(matplotlib, Agg backend).

Public: ``plot_sweep``, ``plot_panels``, ``plot_grid``, ``plot_spread``, ``plot_timeline`` (with
``Curve``, ``Panel``, ``Quantity``, ``Marks``, ``Spread``, ``Timeline``) draw whole figures; ``new_axes``,
``palette`` and ``write_figure`` are the pieces for a figure of one's own
(``vsim.validate.validation_figures`` draws its CDFs with them).

A figure shows simulated curves (per point: trimmed mean over replications,
error bars its 95% bootstrap interval, faint dots the replications themselves) and the
paper's values as separate markers with their acceptance band as error bars,
so a reader sees at once where the model lands; a spread figure adds boxes of
values with many members per point, such as every VM's jitter. A caption
under the axes says what the error bars are and how the runs were made
(length, replications, seeds). Each figure is written as PNG and SVG, atomically; SVG output carries
no date and fixed element ids, so re-running gives identical files.
"""

import io
import textwrap
from dataclasses import dataclass

import matplotlib
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from vsim.outputs.atomic import atomic_path, capturing, write_bytes

FORMATS = ("png", "svg")


@dataclass(frozen=True)
class Curve:
    """Simulated values: per x, the statistic, its (low, high) interval and, if
    given, the value of every replication (drawn as faint dots, so the spread
    between runs is visible next to the interval)."""

    label: str
    xs: list
    stats: list
    runs: list | None = None


@dataclass(frozen=True)
class Marks:
    """Paper values: per x, the value and its (low, high) acceptance band."""

    label: str
    xs: list
    values: list
    bands: list


def _yerr(centres, intervals):
    """Error-bar lengths below and above each centre (never negative: a centre computed apart
    from its interval, such as a mean of equal values, may sit a rounding error outside it)."""
    return [[max(0.0, c - low) for c, (low, _) in zip(centres, intervals)],
            [max(0.0, high - c) for c, (_, high) in zip(centres, intervals)]]


@dataclass(frozen=True)
class Spread:
    """Values spread over many members per x (every VM of every replication), drawn as boxes."""

    label: str
    xs: list
    groups: list


def palette():
    """The colours of matplotlib's property cycle, in order: one per curve of a figure."""
    return matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]


def _draw_curves(ax, curves, colours, joined=True):
    """Each curve's points with their intervals, joined by lines unless ``joined`` is False
    (points of categories, such as schedulers, have nothing between them), drawn above the
    paper's marks so a simulated point on a paper value stays visible."""
    for colour, curve in zip(colours, curves):
        _draw_curve(ax, curve, colour, "o", joined)


def _draw_curve(ax, curve, colour, marker, joined):
    """One curve: its points with their intervals (joined by lines, or not) and its replications."""
    centres = [value for value, _ in curve.stats]
    ax.errorbar(curve.xs, centres, yerr=_yerr(centres, [ci for _, ci in curve.stats]),
                color=colour, marker=marker, markersize=4, capsize=3, label=f"simulated {curve.label}",
                linestyle="-" if joined else "none", zorder=3)
    if curve.runs is not None:  # beside the point, so the interval does not hide them
        offset = 0.015 * (max(curve.xs) - min(curve.xs))
        run_xs = [x + offset for x, values in zip(curve.xs, curve.runs) for _ in values]
        run_ys = [value for values in curve.runs for value in values]
        ax.plot(run_xs, run_ys, color=colour, marker=marker, markersize=3, alpha=0.45,
                linestyle="none", label=f"replications ({curve.label})")


def _draw_marks(ax, marks, colours):
    for colour, mark, symbol in zip(colours, marks, "DsP^v"):
        ax.errorbar(mark.xs, mark.values, yerr=_yerr(mark.values, mark.bands), color=colour,
                    markerfacecolor="white", marker=symbol, markersize=8, linestyle="none",
                    capsize=5, label=f"paper {mark.label} (band)")


FIGSIZE = (6.4, 4.4)
LEGEND_WIDTH = 2.4
"""Inches a figure widens by for a legend beside its axes."""
LEGEND_ENTRY_HEIGHT = 0.17
"""Inches a legend beside the axes takes per entry (7-point text and its spacing)."""
TITLE_CHARS = 80
"""Characters of a title's line: a longer title is wrapped rather than cut at the figure's edge."""
TITLE_CHARS_BESIDE_LEGEND = 52
"""The same beside a legend, which a title wider than the axes would run into."""
DECADES = 100.0
"""Ratio of the highest to the lowest positive value of a sweep's curves from which its y-axis
is drawn on a log scale (a latency from microseconds to the retransmission timeout)."""


def new_axes():
    """A figure of the project's size with one set of axes, drawn without a display."""
    fig = Figure(figsize=FIGSIZE, layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.add_subplot()


def write_figure(fig, ax, stem, *, title, xlabel, ylabel, caption=None, legend_loc="best"):
    """Label ``ax``, put ``caption`` (what the error bars are, how the runs were made) under it,
    place the legend at ``legend_loc`` (matplotlib's names; ``outside ...`` ones put it beside
    the axes, clear of every point), and write ``fig`` as ``stem``.png
    and ``stem``.svg, atomically."""
    beside = legend_loc.startswith("outside")  # the title must then stay over the axes
    ax.set_title("\n".join(textwrap.wrap(title, TITLE_CHARS_BESIDE_LEGEND if beside else TITLE_CHARS)),
                 fontsize=10)
    if caption:
        fig.supxlabel(caption, fontsize=6.5, color="dimgrey", wrap=True)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if ax.get_yscale() == "linear":
        low = ax.dataLim.y0  # from 0, unless something drawn is negative
        ax.set_ylim(bottom=0.0 if low >= 0 else low - HEADROOM * (ax.dataLim.y1 - low))
    ax.grid(alpha=0.3)
    if beside:  # wider, so the axes keep their width beside it
        entries = len(ax.get_legend_handles_labels()[0])  # and taller, so a long legend clears the title
        fig.set_size_inches(FIGSIZE[0] + LEGEND_WIDTH, max(FIGSIZE[1], LEGEND_ENTRY_HEIGHT * entries + 1.5))
        fig.legend(fontsize=7, loc=legend_loc)
    else:
        ax.legend(fontsize=8, loc=legend_loc)
    return _save(fig, stem)


def _save(fig, stem):
    """Write ``fig`` as ``stem``.png and ``stem``.svg (no date, fixed ids), atomically."""
    written = []
    with matplotlib.rc_context({"svg.hashsalt": "vsim"}):
        for fmt in FORMATS:
            path = stem.with_suffix(f".{fmt}")
            metadata = {"Date": None} if fmt == "svg" else None
            if capturing():  # a worker drawing for its parent: in memory
                image = io.BytesIO()
                fig.savefig(image, format=fmt, metadata=metadata)
                write_bytes(path, image.getvalue())
            else:
                with atomic_path(path) as tmp:
                    fig.savefig(tmp, format=fmt, metadata=metadata)
            written.append(path)
    return written


TICK_CHARS = 48
"""Characters across the axes that tick labels as wide as the longest may take before they
are slanted, so that long model names do not run into each other."""

HEADROOM = 0.05
"""Space left above the highest point or error bar, as a share of it, so no marker is cut off."""


def _leave_headroom(ax):
    """Start the y-axis at 0 (or ``HEADROOM`` below the lowest value drawn, when one is
    negative: an overhead can be) and end it ``HEADROOM`` above everything drawn (1 when all is 0)."""
    bottom, top = ax.dataLim.y0, ax.dataLim.y1
    span = max(top, 0.0) - min(bottom, 0.0)
    ax.set_ylim(min(0.0, bottom - HEADROOM * span), top + HEADROOM * span if top > 0 else 1)


def _whole_numbers(xs):
    return all(isinstance(x, int) and not isinstance(x, bool) for x in xs)


def plot_sweep(stem, *, title, xlabel, ylabel, curves, marks, line=None, xticks=None, caption=None,
               legend_loc="best", levels=()):
    """Draw ``curves`` and paper ``marks`` and write ``stem``.png and ``stem``.svg.

    ``line``, when given, is (label, xs, ys) of a fitted line drawn dashed;
    ``levels`` are (label, y) of horizontal lines drawn dotted across the axes (a requirement);
    ``xticks``, when given, is (position, label) of every tick, for a swept
    value that is not a number (``true``/``false``, a model's name), whose
    points are categories and are not joined by lines, else whole-number xs get
    whole-number ticks only; ``caption``, when given, is printed under the
    axes; ``legend_loc`` places the legend. The y-axis runs from 0 to a little
    above the highest point, or on a log scale where the curves span
    ``DECADES`` or more. Returns the paths written.
    """
    fig, ax = new_axes()
    colours = palette()
    _draw_curves(ax, curves, colours, joined=xticks is None)
    _draw_marks(ax, marks, colours)
    if line is not None:
        label, xs, ys = line
        ax.plot(xs, ys, color="grey", linestyle="--", linewidth=1, label=label)
    for (label, y), style in zip(levels, (":", "-.", "--")):
        ax.axhline(y, color="black", linestyle=style, linewidth=1, label=label)
    if xticks is not None:
        long = max(len(text) for _, text in xticks) * len(xticks) > TICK_CHARS
        ax.set_xticks([position for position, _ in xticks], [text for _, text in xticks],
                      rotation=20 if long else 0, ha="right" if long else "center")
    elif _whole_numbers([x for series in (*curves, *marks) for x in series.xs]):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if _spans_decades(curves):
        ax.set_yscale("log")
        ylabel += " (log scale)"
    else:
        _leave_headroom(ax)
    return write_figure(fig, ax, stem, title=title, xlabel=xlabel, ylabel=ylabel, caption=caption,
                  legend_loc=legend_loc)


def _spans_decades(curves):
    """Whether every value of ``curves`` is positive and the highest ``DECADES`` times the
    lowest or more: on a linear axis the low ones would lie flat on the floor."""
    values = [v for curve in curves for v in _values(curve)]
    return bool(values) and min(values) > 0 and max(values) >= DECADES * min(values)


def _values(curve):
    """The statistics and replications a curve draws (None where a point has none)."""
    for stat in curve.stats:
        if stat is not None:
            yield stat[0] if isinstance(stat, (tuple, list)) else stat
    for runs in curve.runs or ():
        yield from (v for v in runs if v is not None)


def plot_spread(stem, *, title, xlabel, ylabel, spreads, curves, marks, caption=None):
    """Boxes of each ``spreads`` entry per x (side by side, right of x), with ``curves`` and paper ``marks``.

    A box spans the quartiles, its whiskers the 5th to 95th percentiles, and
    the values beyond them are drawn as points. Returns the paths written.
    """
    fig, ax = new_axes()
    colours = palette()
    width = 0.28
    for index, (colour, spread) in enumerate(zip(colours, spreads)):
        offset = (index + 1) * width  # right of the point, clear of the curve and the marks
        ax.boxplot(spread.groups, positions=[x + offset for x in spread.xs], widths=width * 0.9,
                   whis=(5, 95), manage_ticks=False, patch_artist=True,
                   boxprops={"facecolor": colour, "alpha": 0.3, "edgecolor": colour},
                   medianprops={"color": colour}, whiskerprops={"color": colour},
                   capprops={"color": colour},
                   flierprops={"marker": ".", "markersize": 3, "markeredgecolor": colour})
        ax.plot([], [], color=colour, linewidth=6, alpha=0.3, label=spread.label)
    _draw_curves(ax, curves, colours)
    _draw_marks(ax, marks, colours)
    ax.set_xticks(sorted({x for spread in spreads for x in spread.xs}))
    return write_figure(fig, ax, stem, title=title, xlabel=xlabel, ylabel=ylabel, caption=caption)


@dataclass(frozen=True)
class Timeline:
    """A quantity per second of a run: its label, the seconds and the values."""

    label: str
    seconds: list
    values: list


def plot_timeline(stem, *, title, xlabel, ylabel, timelines, shade=None, band=None, caption=None,
                  legend_loc="best"):
    """Draw ``timelines`` as steps over time and write ``stem``.png and ``stem``.svg.

    ``shade``, when given, is (label, start, stop) of a period to shade (the
    time a flood runs); ``band`` is (label, low, high, start, stop) of the
    paper's acceptance band over that period; ``legend_loc`` places the
    legend where it hides no line. Returns the paths written.
    """
    fig, ax = new_axes()
    if shade is not None:
        label, start, stop = shade
        ax.axvspan(start, stop, color="grey", alpha=0.12, label=label)
    if band is not None:
        label, low, high, start, stop = band
        ax.fill_between([start, stop], [low, low], [high, high], color="tab:red", alpha=0.15,
                        label=label)
    for colour, timeline in zip(palette(), timelines):
        ax.step(timeline.seconds, timeline.values, where="post", color=colour, linewidth=1,
                label=timeline.label)
    return write_figure(fig, ax, stem, title=title, xlabel=xlabel, ylabel=ylabel, caption=caption,
                  legend_loc=legend_loc)


@dataclass(frozen=True)
class Panel:
    """One of a figure's side-by-side axes: its title and its curves, each curve drawn in the
    colour of its ``line`` (an index) with the marker of its ``kind`` (an index)."""

    title: str
    curves: list
    lines: list
    kinds: list


MARKERS = "osD^vP"
"""A marker per kind of curve (a metric) in a figure of panels, whose colours are its lines'."""


def plot_panels(stem, *, title, xlabel, ylabel, panels, xticks=None, caption=None, joined=True):
    """``panels`` (``Panel``) side by side on one y axis, the legend beside them, written as
    ``stem``.png and .svg: the same line has the same colour in every panel and the same kind
    the same marker, so a second key reads as lines and a third as panels. ``xticks`` as for
    ``plot_sweep``; points are joined unless ``joined`` is False. Returns the paths written."""
    fig = Figure(figsize=(FIGSIZE[0] * (0.4 + 0.6 * len(panels)) + LEGEND_WIDTH, FIGSIZE[1]),
                 layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, len(panels), sharey=True, squeeze=False)[0]
    colours = palette()
    for ax, panel in zip(axes, panels):
        for curve, line, kind in zip(panel.curves, panel.lines, panel.kinds):
            _draw_curve(ax, curve, colours[line % len(colours)], MARKERS[kind % len(MARKERS)],
                        joined and xticks is None)
        if panel.title:
            ax.set_title(panel.title, fontsize=9)
        if xticks is not None:
            ax.set_xticks([position for position, _ in xticks], [text for _, text in xticks])
        ax.set_xlabel(xlabel)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel(ylabel)
    bottom = min(min(ax.dataLim.y0 for ax in axes), 0.0)  # as _leave_headroom, over every panel
    top = max(ax.dataLim.y1 for ax in axes)
    span = max(top, 0.0) - bottom
    axes[0].set_ylim(bottom - HEADROOM * span if bottom < 0 else 0.0, top + HEADROOM * span if top > 0 else 1)
    fig.suptitle("\n".join(textwrap.wrap(title, TITLE_CHARS_BESIDE_LEGEND)), fontsize=10)
    if caption:
        fig.supxlabel(caption, fontsize=6.5, color="dimgrey", wrap=True)
    handles, labels = {}, []
    for ax in axes:  # every curve once, though several panels draw it
        for handle, label in zip(*ax.get_legend_handles_labels()):
            if label not in handles:
                handles[label] = handle
                labels.append(label)
    fig.legend([handles[label] for label in labels], labels, fontsize=7, loc="outside right upper")
    return _save(fig, stem)


@dataclass(frozen=True)
class Quantity:
    """One of a grid's axes: a quantity of its own (its title and y label) and its curves,
    each in the colour of its position in the panel."""

    title: str
    ylabel: str
    curves: list


GRID_COLUMNS = 3
"""Axes per row of a ``plot_grid`` figure."""


def plot_grid(stem, *, title, xlabel, quantities, caption=None):
    """``quantities`` (``Quantity``) in a grid of axes, ``GRID_COLUMNS`` a row, each with its own
    y axis and legend (CPU in %, calls/s and retransmissions/s of one sweep side by side), all
    against one x; written as ``stem``.png and .svg. Returns the paths written."""
    rows = -(-len(quantities) // GRID_COLUMNS)
    columns = min(GRID_COLUMNS, len(quantities))
    fig = Figure(figsize=(FIGSIZE[0] * 0.62 * columns, FIGSIZE[1] * 0.8 * rows + 0.6), layout="constrained")
    FigureCanvasAgg(fig)
    axes = list(fig.subplots(rows, columns, squeeze=False).flat)
    colours = palette()
    for ax, quantity in zip(axes, quantities):
        for index, curve in enumerate(quantity.curves):
            _draw_curve(ax, curve, colours[index % len(colours)], MARKERS[index % len(MARKERS)], True)
        ax.set_title(quantity.title, fontsize=9)
        ax.set_xlabel(xlabel, fontsize=8)
        ax.set_ylabel(quantity.ylabel, fontsize=8)
        ax.grid(alpha=0.3)
        _leave_headroom(ax)
        if quantity.curves:
            ax.legend(fontsize=6.5, loc="best")
    for ax in axes[len(quantities):]:  # the grid's unused places
        ax.set_visible(False)
    fig.suptitle("\n".join(textwrap.wrap(title, TITLE_CHARS)), fontsize=10)
    if caption:
        fig.supxlabel(caption, fontsize=6.5, color="dimgrey", wrap=True)
    return _save(fig, stem)
