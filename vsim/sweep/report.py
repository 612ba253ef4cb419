"""What-if sweeps: tabulate, save and plot the main metrics of every point of a sweep.

``vsim sweep CONFIG`` answers questions the studies did not ask (more
instances, hyper-threading off, reservations, guest background activity).
Each point is summarised like the studies' figures: the trimmed mean over its
replications (the studies' statistic) with a 95 % bootstrap interval of that
trimmed mean (``vsim.metrics.stats.trimmed_mean_interval``), for the measured VM's
jitter, every VM's jitter, loss, the packet rate against the offered one
(below 100 % the guests fall behind their ticks), host CPU and the VMs' ready
and co-stop time. A metric a run does not have (no measuring conference) is
reported as missing rather than guessed.
"""

import dataclasses
import json
from dataclasses import dataclass
from typing import Callable

import numpy as np

from vsim.core.atomic import write_text
from vsim.metrics.stats import INTERVAL, trimmed_mean, trimmed_mean_interval
from vsim.scenario.schema import sweep_field


def _per_vm_mean(field):
    """Mean of ``field`` over the media-server VMs (None without any: shown as n/a)."""
    def read(summary):
        values = [vm[field] for vm in summary["vms"].values()]
        return float(np.mean(values)) if values else None
    return read


def _sent_of_offered(summary):
    voice = summary["voice"]
    return 100 * voice["packet_rate_pps"] / voice["offered_pps"] if voice["offered_pps"] else None


@dataclass(frozen=True)
class Metric:
    """One column of the report: its JSON name, its heading and how to read it from a summary."""

    name: str
    heading: str
    read: Callable


METRICS = (
    Metric("jitter_mean_ms", "jitter mean ms", lambda s: s["jitter"]["mean_ms"]),
    Metric("jitter_p99_ms", "jitter p99 ms", lambda s: s["jitter"]["p99_ms"]),
    Metric("all_vms_p99_ms", "all-VM p99 ms", lambda s: s["instances_jitter"]["p99_ms"]),
    Metric("loss_pct", "loss %", lambda s: 100 * s["voice"]["loss_fraction"]),
    Metric("sent_pct_of_offered", "sent % of offered", _sent_of_offered),
    Metric("host_cpu_pct", "host CPU %", lambda s: s["host"]["cpu_util_pct"]),
    Metric("ready_pct", "ready % per VM (vCPUs summed)", _per_vm_mean("ready_pct")),
    Metric("costop_pct", "co-stop % per VM (vCPUs summed)", _per_vm_mean("costop_pct")),
)
JITTER = ("jitter_mean_ms", "jitter_p99_ms", "all_vms_p99_ms")
CPU = ("host_cpu_pct", "ready_pct", "costop_pct")
# Host CPU is a share of the host; a VM's ready and co-stop are esxtop's sums over its vCPUs.
CPU_AXIS = "%  (per VM: % of one vCPU, summed over its vCPUs)"


def show(x):
    """A swept value as it is written in TOML (``true``, ``0.005``, ``12``)."""
    return json.dumps(x)


@dataclass(frozen=True)
class PointReport:
    """One sweep point: its value, and per metric (trimmed mean, (low, high)) or None."""

    x: object
    stats: dict


def point_report(point):
    """Summarise one ``Point`` over its replications."""
    stats = {}
    for metric in METRICS:
        values = [metric.read(run) for run in point.runs]
        if any(value is None for value in values):
            stats[metric.name] = None
            continue
        stats[metric.name] = (trimmed_mean(values), trimmed_mean_interval(values))
    return PointReport(point.x, stats)


def _cell(stat):
    if stat is None:
        return "n/a"
    value, (low, high) = stat
    return f"{value:.3g} [{low:.3g}, {high:.3g}]"


def table_rows(sweep, reports):
    """Heading and rows of the report table (strings)."""
    heading = [sweep.key] + [metric.heading for metric in METRICS]
    rows = [[show(report.x)] + [_cell(report.stats[m.name]) for m in METRICS] for report in reports]
    return heading, rows


def table_text(title, sweep, reports):
    """The report as aligned plain text, for a terminal."""
    heading, rows = table_rows(sweep, reports)
    widths = [max(len(row[i]) for row in [heading] + rows) for i in range(len(heading))]
    lines = [title, "  ".join(cell.ljust(width) for cell, width in zip(heading, widths)).rstrip()]
    lines += ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]
    return "\n".join(lines) + "\n"


def table_markdown(title, sweep, reports):
    """The report as a Markdown table."""
    heading, rows = table_rows(sweep, reports)
    lines = [f"# {title}", "", f"Trimmed mean over replications [{INTERVAL}].",
             f"Runs: {sweep.stamp()}.", "",
             "| " + " | ".join(heading) + " |", "|" + " --- |" * len(heading)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def report_json(title, sweep, reports):
    """Plain-data report: the statistics per point, then every replication's summary."""
    data = sweep.to_json()
    data["name"] = title
    data["statistic"] = f"trimmed mean over replications [{INTERVAL}]"
    for entry, report in zip(data["points"], reports):
        entry["stats"] = {name: None if stat is None else {"value": stat[0], "ci95": list(stat[1])}
                          for name, stat in report.stats.items()}
    return json.dumps(data, indent=2, sort_keys=True) + "\n"


def axis(sweep):
    """(x positions, x-axis label, tick labels or None) for the swept key."""
    cls, name = sweep_field(sweep.key)
    meta = {f.name: f.metadata for f in dataclasses.fields(cls)}[name]
    xs = sweep.xs()
    label = sweep.key + (f" ({meta['unit']})" if meta.get("unit") else "")
    if all(isinstance(x, bool) for x in xs):
        return [int(x) for x in xs], label, [(int(x), show(x)) for x in xs]
    if all(isinstance(x, str) for x in xs):
        return list(range(len(xs))), label, list(enumerate(xs))
    return xs, label, None


def _curves(sweep, reports, names, xs):
    from vsim.experiments.figures import Curve  # matplotlib: imported only to draw

    by_name = {metric.name: metric for metric in METRICS}
    curves = []
    for name in names:
        if any(report.stats[name] is None for report in reports):
            continue
        runs = [[by_name[name].read(run) for run in point.runs] for point in sweep.points]
        curves.append(Curve(by_name[name].heading, xs, [r.stats[name] for r in reports], runs))
    return curves


FIGURES = ("jitter", "cpu")


def report_files(stem):
    """Names of every file ``write_report`` may write for a config named ``stem``."""
    return ["results.json", "summary.md"] + [f"{stem}_{suffix}.{ext}" for suffix in FIGURES
                                             for ext in ("png", "svg")]


def plot_report(stem, title, sweep, reports):
    """Write ``stem``_jitter and ``stem``_cpu (PNG and SVG); return the paths written."""
    from vsim.experiments.figures import plot_sweep  # matplotlib: imported only to draw

    xs, label, ticks = axis(sweep)
    written = []
    for suffix, names, ylabel in zip(FIGURES, (JITTER, CPU), ("jitter (ms)", CPU_AXIS)):
        curves = _curves(sweep, reports, names, xs)
        if curves:
            path = stem.with_name(f"{stem.name}_{suffix}")
            written += plot_sweep(path, title=title, xlabel=label, ylabel=ylabel, curves=curves,
                                  marks=[], xticks=ticks,
                                  caption=f"Points: trimmed mean over replications; error bars: "
                                          f"{INTERVAL}; faint dots: the replications. "
                                          f"Runs: {sweep.stamp()}.")
    return written


def write_report(outdir, stem, title, sweep, reports):
    """results.json, summary.md and the figures of a sweep in ``outdir``; the paths written."""
    outdir.mkdir(parents=True, exist_ok=True)
    written = [outdir / "results.json", outdir / "summary.md"]
    write_text(written[0], report_json(title, sweep, reports))
    write_text(written[1], table_markdown(title, sweep, reports))
    return written + plot_report(outdir / stem, title, sweep, reports)
