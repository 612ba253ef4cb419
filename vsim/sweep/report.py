"""What-if sweeps: tabulate, save and plot the main metrics of every point of a sweep.

``vsim sweep CONFIG`` answers questions the studies did not ask (more
instances, hyper-threading off, reservations, guest background activity,
another uplink scheduler). Each point is summarised like the studies'
figures: the trimmed mean over its replications (the studies' statistic)
with a 95 % bootstrap interval of that trimmed mean
(``vsim.metrics.stats.trimmed_mean_interval``). The columns are those of the
scenario's traffic (``sweep_metrics``): with voice, the measured VM's jitter,
every VM's jitter, loss, and the packets the guests sent against the offered
rate (below 100 % the guests fall behind their ticks); per bulk traffic group
its throughput; per request/response group its transactions/s and one-way
latency (mean and 99th percentile); always host CPU, and when there are VMs
(media servers and bulk traffic senders) per scenario group the CPU its VMs
used, and the VMs' ready and co-stop time. A metric a run does not have (no
measuring conference) is reported as missing rather than guessed.
"""

import csv
import dataclasses
import io
import json
from dataclasses import dataclass
from typing import Callable

import numpy as np

from vsim.outputs.atomic import after_commit, write_text
from vsim.outputs.stale_outputs import listed_outputs, remove_stale, written_digests
from vsim.metrics.stats import INTERVAL, trimmed_mean, trimmed_mean_interval
from vsim.results.run_text import no_samples_reason
from vsim.config.schema_sweep import sweep_field


@dataclass(frozen=True)
class Metric:
    """One column of the report: its JSON name, its heading, how to read it from a
    ``RunSummary`` and the figure it is drawn in (None: none)."""

    name: str
    heading: str
    read: Callable
    figure: str | None = None


def _per_vm_mean(field, group=None):
    """Mean of the CPU ``field`` (``VmCpu``'s) over the VMs (of scenario ``group`` only, when
    given); None without any: shown as n/a."""
    def read(summary):
        values = [getattr(vm.cpu, field) for vm in summary.cpu_vms() if group is None or vm.group == group]
        return float(np.mean(values)) if values else None
    return read


def _sent_of_offered(window):
    """Reads the voice packets the guests sent (handed to their vNICs) in the measuring
    ``window`` as a share of the offered rate: what the uplink delivered is the loss's part."""
    def read(summary):
        voice = summary.voice
        if not voice.offered_pps:
            return None
        return 100 * voice.packets_emitted / window / voice.offered_pps
    return read


def _bulk_group(group, field):
    """Reads ``field`` of bulk traffic ``group`` in the summary's uplink (None where it is absent)."""
    def read(summary):
        entry = None if summary.uplink is None else summary.uplink.groups.get(group)
        return None if entry is None else getattr(entry, field)
    return read


def _request_response_group(summary, group):
    """Request/response ``group``'s section of the summary's uplink; None where it is absent."""
    uplink = summary.uplink
    return None if uplink is None else (uplink.request_response or {}).get(group)


def _request_response_entry(group, field):
    """Reads ``field`` of request/response ``group`` in the summary's uplink (None where it is
    absent)."""
    def read(summary):
        entry = _request_response_group(summary, group)
        return None if entry is None else getattr(entry, field)
    return read


def voice_metrics(window):
    """The voice columns, for a measuring window of ``window`` seconds."""
    return (
        Metric("jitter_mean_ms", "jitter mean ms", lambda s: s.jitter.mean_ms, "jitter"),
        Metric("jitter_p99_ms", "jitter p99 ms", lambda s: s.jitter.p99_ms, "jitter"),
        Metric("all_vms_p99_ms", "all-VM p99 ms", lambda s: s.instances_jitter.p99_ms, "jitter"),
        Metric("loss_pct", "loss %", lambda s: 100 * s.voice.loss_fraction, "loss"),
        Metric("sent_pct_of_offered", "sent % of offered", _sent_of_offered(window)),
    )


def _during_traffic(summary):
    """The summary's voice while the traffic runs; None without traffic."""
    return None if summary.uplink is None else summary.uplink.during_traffic


def _during_traffic_loss(summary):
    """Voice loss (%) over the whole seconds the scenario's traffic runs (None without traffic,
    or when its window holds no whole second of offered voice)."""
    during = _during_traffic(summary)
    fraction = None if during is None else during.voice_loss_fraction
    return None if fraction is None else 100 * fraction


def _during_traffic_jitter(summary):
    """The measuring conference's mean jitter while the traffic runs; None without traffic or
    a measuring conference."""
    during = _during_traffic(summary)
    return None if during is None or during.conference is None else during.conference.jitter_mean_ms


def _late_pct(summary):
    """The measuring conference's packets its jitter buffer discarded as late (%), None without
    a measuring conference or a packet of it after warm-up."""
    entry = summary.voice_quality.measuring_conference
    if entry is None or entry.quality.late_fraction is None:
        return None
    return 100 * entry.quality.late_fraction


LATE = Metric("late_pct", "late %", _late_pct)
"""Packets that arrived too late to be played: lost to the listener though the network lost
none, which ``loss %`` alone hides on an over-committed host."""


DURING_TRAFFIC_LOSS = Metric("loss_during_traffic_pct", "loss % while traffic runs",
                             _during_traffic_loss, "loss")
"""Loss over the traffic's active window, the window bulk throughput covers: the whole
measuring window's ``loss %`` dilutes loss that happens only while traffic runs."""

DURING_TRAFFIC_JITTER = Metric(
    "jitter_mean_during_traffic_ms", "jitter mean ms while traffic runs",
    _during_traffic_jitter, "jitter")
"""The measuring conference's mean jitter over the traffic's active window: where the traffic
runs for part of the measuring window (or loses most packets while it runs), ``jitter mean``
holds mostly the quiet part."""


def bulk_metric(group):
    """The column of a bulk traffic group: its throughput."""
    return Metric(f"throughput_mbps.{group}", f"{group} Mb/s",
                  _bulk_group(group, "throughput_mbps"), "throughput")


def request_response_metrics(group):
    """The columns of a request/response group: transactions/s and the mean and 99th
    percentile of the one-way latency (a latency-sensitive client feels the tail)."""
    return (Metric(f"transactions_per_s.{group}", f"{group} transactions/s",
                   _request_response_entry(group, "transactions_per_s"), "transactions"),
            Metric(f"one_way_latency_us.{group}", f"{group} one-way µs",
                   _request_response_entry(group, "one_way_latency_mean_us"), "latency"),
            Metric(f"one_way_latency_p99_us.{group}", f"{group} one-way p99 µs",
                   _request_response_entry(group, "one_way_latency_p99_us"), "latency"))


def resent_metric(group, window):
    """The column of a request/response group's requests lost and sent again per second of a
    measuring ``window`` of that many seconds (shown only where some run lost requests)."""
    def read(summary):
        entry = _request_response_group(summary, group)
        return None if entry is None else entry.retransmissions / window
    return Metric(f"resent_per_s.{group}", f"{group} resent/s", read)


def _lost_requests(runs, group):
    """Whether any of ``runs`` lost a request of ``group``."""
    return any(entry.retransmissions for entry in (_request_response_group(run, group) for run in runs)
               if entry is not None)


HOST_CPU = Metric("host_cpu_pct", "host CPU %", lambda s: s.host.cpu_util_pct, "host")


def _sip_field(field):
    """Reads ``field`` of the run's first SIP server VM (``SipVm``); None without one."""
    def read(summary):
        first = next(iter((summary.sip or {}).values()), None)
        return None if first is None else getattr(first, field)
    return read


SIP = (Metric("p50_setup_ms", "setup p50 ms (INVITE to ACK)", _sip_field("setup_p50_ms"), "setup"),
       Metric("p95_setup_ms", "setup p95 ms (INVITE to ACK)", _sip_field("setup_p95_ms"), "setup"),
       Metric("failed_fraction", "failed calls (fraction)", _sip_field("failed_fraction"), "calls"),
       Metric("sip_cpu_util_pct", "SIP server CPU % of its vCPUs", _sip_field("cpu_util_pct"), "host"))
"""The columns of a scenario with a SIP server: its first SIP server VM's setup time (first
INVITE to the server's handling of the ACK) as p50 and p95, the share of its calls that
failed and its CPU."""


def group_used_metric(group):
    """The column of a scenario group's CPU: what its VMs used, per VM (vCPUs summed)."""
    return Metric(f"used_pct.{group}", f"{group} used % per VM (vCPUs summed)",
                  _per_vm_mean("used_pct", group), "cpu")


def group_ready_metric(group):
    """The column of a scenario group's ready time, per VM (esxtop's %RDY, vCPUs summed): the
    ready column over every VM hides which group waits."""
    return Metric(f"ready_pct.{group}", f"{group} ready % per VM (vCPUs summed)",
                  _per_vm_mean("ready_pct", group), "cpu")


def group_limited_metric(group):
    """The column of the part of a scenario group's ready time its CPU limit caused, per VM
    (esxtop's %MLMTD, vCPUs summed), over the group's VMs as its ready column is, so that
    limited never exceeds ready in a row."""
    return Metric(f"limited_pct.{group}", f"{group} limited % per VM (vCPUs summed, part of its ready)",
                  _per_vm_mean("limited_pct", group), "cpu")


def _limited_groups(runs, groups):
    """Those of ``groups`` whose VMs some run held at their CPU limit."""
    return [group for group in groups
            if any(vm.group == group and vm.cpu.limited_pct > 0
                   for run in runs for vm in run.cpu_vms())]


VM_CPU = (Metric("ready_pct", "ready % per VM (vCPUs summed)", _per_vm_mean("ready_pct"), "cpu"),
          Metric("costop_pct", "co-stop % per VM (vCPUs summed)", _per_vm_mean("costop_pct"), "cpu"))


def _measured_vm_field(field):
    """Reads the CPU ``field`` (``VmCpu``'s) of the VM that hosts the measuring conference; None
    without one."""
    def read(summary):
        vm = summary.measuring_vm()
        return None if vm is None else getattr(vm.cpu, field)
    return read


def measured_vm_metrics(limited):
    """The columns of the measured VM's own CPU, for scenarios that give it settings of its own
    ([measured_vm]): the question is about that VM, which a mean over every VM hides. The
    part of its ready time its limit caused only when ``limited``."""
    fields = [("used_pct", "used"), ("ready_pct", "ready")] + ([("limited_pct", "limited")] if limited else [])
    return tuple(Metric(f"measured_vm.{field}", f"measured VM {word} % (vCPUs summed)",
                        _measured_vm_field(field), "cpu") for field, word in fields)


def _runs(sweep):
    return [run for point in sweep.points for run in point.runs]


def _uplink_groups(sweep, part):
    """Names of the uplink's ``part`` (``groups``, ``request_response``) in any run, in order."""
    names = {}
    for run in _runs(sweep):
        if run.uplink is not None:
            names.update(dict.fromkeys(getattr(run.uplink, part) or {}))
    return list(names)


def _vm_groups(sweep):
    """Names of the scenario groups of the VMs whose CPU any run gives, in order."""
    names = {}
    for run in _runs(sweep):
        names.update(dict.fromkeys(vm.group for vm in run.cpu_vms()))
    return list(names)


def sweep_metrics(sweep):
    """The columns of ``sweep``'s report, those of the traffic its runs carry: the voice
    columns when some run offers voice (with the loss while traffic runs when some run
    has traffic beside the voice, and the late discards when some run has any), a column
    per bulk traffic group and three per request/response group (four where some run lost
    requests: those sent again per second), host CPU, and when there are VMs the CPU each
    scenario group's VMs used and the VMs' ready and co-stop time, each group's own ready time
    where there are several groups or some run held its VMs at their limit, the part the limit
    caused where one did, and the measured VM's own CPU where the scenario gives it settings
    of its own."""
    runs = _runs(sweep)
    metrics = []
    if any(run.voice.offered_pps for run in runs):
        voice = list(voice_metrics(sweep.duration - sweep.warmup))
        loss = next(i for i, metric in enumerate(voice) if metric.name == "loss_pct")
        during = [entry for entry in map(_during_traffic, runs) if entry is not None]
        if during:
            voice.insert(loss + 1, DURING_TRAFFIC_LOSS)
            if any(entry.conference is not None for entry in during):
                voice.insert(1, DURING_TRAFFIC_JITTER)
        if any(_late_pct(run) for run in runs):
            voice.insert(loss + 1, LATE)
        metrics += voice
    metrics += [bulk_metric(group) for group in _uplink_groups(sweep, "groups")]
    for group in _uplink_groups(sweep, "request_response"):
        metrics += request_response_metrics(group)
        if _lost_requests(runs, group):
            metrics.append(resent_metric(group, sweep.duration - sweep.warmup))
    if any(run.sip for run in runs):
        metrics += SIP
    metrics.append(HOST_CPU)
    groups = _vm_groups(sweep)
    metrics += [group_used_metric(group) for group in groups]
    if groups:
        metrics += VM_CPU
    limited = _limited_groups(runs, groups)
    for group in groups:
        if len(groups) > 1 or group in limited:
            metrics.append(group_ready_metric(group))
        if group in limited:
            metrics.append(group_limited_metric(group))
    if any(run.measured_vm is not None for run in runs):
        metrics += measured_vm_metrics(any(_measured_vm_field("limited_pct")(run) for run in runs))
    return tuple(metrics)


def notes(sweep):
    """Lines under the table that keep a column from being misread: host CPU leaves out
    request/response traffic, whose CPU is not modelled; points whose measuring conference
    had no packets after warm-up (n/a), and why; points whose all-VM columns leave out VMs
    without packets."""
    lines = []
    if _uplink_groups(sweep, "request_response"):
        lines.append("note: host CPU % leaves out the request/response traffic, whose CPU is not "
                     "modelled (its stack's time is the NIC model's host path latency)")
    return lines + _missing_voice_notes(sweep)


def _missing_voice_notes(sweep):
    """Per point, a line where some run's measuring conference had no packets after warm-up
    (why, as ``vsim run`` says it) or some run's all-VM columns count only some VMs."""
    window = sweep.duration - sweep.warmup
    lines = []
    for point in sweep.points:
        runs = [run for run in point.runs if run.voice.offered_pps]
        where = point_text(sweep, point)
        silent = [run for run in runs if run.jitter.measuring_conference and not run.jitter.samples]
        if silent:
            reasons = sorted({no_samples_reason(run, window) for run in silent} - {""})
            lines.append(f"note: at {where} the measuring conference had no packets after warm-up "
                         f"in {len(silent)} of {len(point.runs)} runs"
                         + (f" ({'; '.join(reasons)})" if reasons else ""))
        counted = [(run.instances_jitter.vms_with_samples, run.instances_jitter.vms) for run in runs]
        short = [(got, of) for got, of in counted if got < of]
        if short:
            fewest = min(short)
            lines.append(f"note: at {where} the all-VM jitter leaves out VMs without packets after "
                         f"warm-up (as few as {fewest[0]} of {fewest[1]} counted)")
    return lines


def interval_notes(sweep):
    """A line under the table when its replications are too few for 95 % intervals."""
    caveat = sweep.interval_caveat()
    return [f"note: {caveat}"] if caveat else []


def show(x):
    """A swept value as it is written in TOML (``true``, ``0.005``, ``12``)."""
    return json.dumps(x)


def point_text(sweep, point):
    """``vm.instances 8``, or ``host.hyperthreading false, vm.instances 8``: where a point is."""
    return ", ".join(f"{key} {show(value)}" for key, value in point.setting(sweep.key))


@dataclass(frozen=True)
class PointReport:
    """One sweep point: its value, and per metric (trimmed mean, (low, high)) or None."""

    x: object
    stats: dict


def point_report(point, metrics):
    """Summarise one ``Point`` over its replications, per column of ``metrics``."""
    stats = {}
    for metric in metrics:
        values = [metric.read(run) for run in point.runs]
        if any(value is None for value in values):
            stats[metric.name] = None
            continue
        stats[metric.name] = (trimmed_mean(values), trimmed_mean_interval(values))
    return PointReport(point.x, stats)


def _number(value):
    """Three significant digits, or whole numbers with thousands separators from 1000 up
    (``238,811`` transactions/s rather than ``2.39e+05``)."""
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.3g}"


def _cell(stat):
    """A table cell: the value and its interval, the value alone where the interval is that one
    value (a single run: nothing to show), n/a where a run lacks the metric."""
    if stat is None:
        return "n/a"
    value, (low, high) = stat
    if low == high == value:
        return _number(value)
    return f"{_number(value)} [{_number(low)}, {_number(high)}]"


def table_rows(sweep, reports):
    """Heading and rows of the report table (strings)."""
    metrics = sweep_metrics(sweep)
    heading = list(sweep.keys()) + [metric.heading for metric in metrics]
    rows = [[show(value) for _, value in point.setting(sweep.key)] + [_cell(report.stats[m.name]) for m in metrics]
            for point, report in zip(sweep.points, reports)]
    return heading, rows


def table_text(title, sweep, reports, more_notes=()):
    """The report as aligned plain text, for a terminal, with ``more_notes`` (lines) under the
    table's own notes and before what its intervals are worth."""
    heading, rows = table_rows(sweep, reports)
    widths = [max(len(row[i]) for row in [heading] + rows) for i in range(len(heading))]
    lines = [title, "  ".join(cell.ljust(width) for cell, width in zip(heading, widths)).rstrip()]
    lines += ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]
    return "\n".join(lines + notes(sweep) + list(more_notes) + interval_notes(sweep)) + "\n"


def table_markdown(title, sweep, reports):
    """The report as a Markdown table."""
    heading, rows = table_rows(sweep, reports)
    lines = [f"# {title}", "", f"Trimmed mean over replications [{INTERVAL}].",
             f"Runs: {sweep.stamp()}.", "",
             "| " + " | ".join(heading) + " |", "|" + " --- |" * len(heading)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    below = notes(sweep) + interval_notes(sweep)
    if below:
        lines += [""] + below
    return "\n".join(lines) + "\n"


def report_json(title, sweep, reports, files=None, digests=None):
    """Plain-data report: the statistics per point, then every replication's summary; with
    ``files``, the names of the files written beside it, and with ``digests`` their SHA-256 (its
    directory's manifest, ``vsim.outputs.stale_outputs``)."""
    data = sweep.to_json()
    data["name"] = title
    if files is not None:
        data["files"] = sorted(files)
    if digests is not None:
        data["sha256"] = dict(sorted(digests.items()))
    data["statistic"] = f"trimmed mean over replications [{INTERVAL}]"
    for entry, report in zip(data["points"], reports):
        entry["stats"] = {name: None if stat is None else {"value": stat[0], "ci95": list(stat[1])}
                          for name, stat in report.stats.items()}
    return json.dumps(data, indent=2, sort_keys=True) + "\n"


def axis(sweep):
    """(x positions, x-axis label, tick labels or None) for the swept key; models of one
    folder (``schedulers/linux_cfs``) are labelled by their names, the folder in the label."""
    cls, name = sweep_field(sweep.key)
    meta = {f.name: f.metadata for f in dataclasses.fields(cls)}[name]
    xs = list(dict.fromkeys(sweep.xs()))  # a design of several keys holds each value many times
    label = sweep.key + (f" ({meta['unit']})" if meta.get("unit") else "")
    if all(isinstance(x, bool) for x in xs):  # in the sweep's order, as the table lists them
        return list(range(len(xs))), label, [(i, show(x)) for i, x in enumerate(xs)]
    if all(isinstance(x, str) for x in xs):
        folders = {x.rpartition("/")[0] for x in xs}
        if len(folders) == 1 and "" not in folders:  # models of one folder: their names, the folder once
            folder = folders.pop()
            return list(range(len(xs))), f"{label} ({folder}/)", [(i, x.removeprefix(f"{folder}/"))
                                                                   for i, x in enumerate(xs)]
        return list(range(len(xs))), label, list(enumerate(xs))
    return xs, label, None


def _curves(sweep, reports, metrics, xs):
    from vsim.results.plotting import Curve  # matplotlib: imported only to draw

    curves = []
    for metric in metrics:
        if any(report.stats[metric.name] is None for report in reports):
            continue
        runs = [[metric.read(run) for run in point.runs] for point in sweep.points]
        curves.append(Curve(metric.heading, xs, [r.stats[metric.name] for r in reports], runs))
    return curves


FIGURES = {"jitter": "jitter (ms)", "loss": "voice loss (%)", "host": "host CPU (%)",
           "cpu": "CPU per VM (% of one vCPU, summed)", "throughput": "throughput (Mb/s)",
           "transactions": "transactions/s", "latency": "one-way latency (µs)",
           "setup": "call setup time (ms)", "calls": "failed calls (fraction)"}
"""Each figure a sweep may draw (file suffix) and its y-axis; a metric names its figure. Host
CPU (of the whole host, at most 100 %) and the VMs' (of one vCPU, summed over a VM's vCPUs:
up to 100 x vCPUs) have figures of their own, so the two kinds of percentage never share an axis."""

UNITS = {"host": "Host CPU: esxtop's PCPU UTIL, the mean over logical CPUs of the time not idle.",
         "cpu": "A VM's used, ready, co-stop and limited time: % of one vCPU, summed over its vCPUs "
                "(esxtop's per-VM convention)."}
"""What a CPU figure's percentages are of, said in its caption (too long for its y-axis)."""


def report_files(stem):
    """Names of every file ``write_report`` may write for a config named ``stem``."""
    return ["results.json", "summary.md", "points.csv", "runs.csv", "points.parquet", "runs.parquet"] + [f"{stem}_{suffix}.{ext}" for suffix in FIGURES
                                             for ext in ("png", "svg")]


def _has_loss(curves):
    """Whether any replication of ``curves`` lost voice (a loss figure of zeros says nothing)."""
    return any(value > 0 for curve in curves for values in curve.runs for value in values)


MAX_LINES = 6
"""The most values a second key may take to be drawn as a line per value."""
MAX_PANELS = 4
"""The most values a third key may take to be drawn as a panel per value."""


def layout(sweep):
    """How a sweep's figures show its keys: (line key, panel key, scattered). The first key is
    the x axis; a second key of few values (``MAX_LINES``) is a line per value, a third
    (``MAX_PANELS``) a panel per value. Keys that take more values than that (a sample over
    ranges), or a fourth key, leave the figures as unjoined points against the first key
    (``scattered``): points.csv holds every key."""
    keys = sweep.keys()
    if len(keys) == 1:
        return None, None, False
    counts = [len({value for point in sweep.points for k, value in point.held if k == key}) for key in keys[1:]]
    if len(keys) > 3 or counts[0] > MAX_LINES or (len(keys) == 3 and counts[1] > MAX_PANELS):
        return None, None, True
    return keys[1], keys[2] if len(keys) == 3 else None, False


def _held_value(point, key):
    """The value ``point`` holds ``key`` at, of the keys beside the sweep's first."""
    return dict(point.held)[key]


def _panels(sweep, reports, metrics, positions):
    """The ``Panel``s of one figure of a sweep of several keys (``layout``): per panel value,
    per metric and line value with points, a curve; None where a metric is missing somewhere."""
    from vsim.results.plotting import Curve, Panel  # matplotlib: imported only to draw

    line_key, panel_key, _ = layout(sweep)
    metrics = [m for m in metrics if all(report.stats[m.name] is not None for report in reports)]
    pairs = list(zip(sweep.points, reports))
    panel_values = [None] if panel_key is None else list(dict.fromkeys(_held_value(p, panel_key) for p in sweep.points))
    line_values = [None] if line_key is None else list(dict.fromkeys(_held_value(p, line_key) for p in sweep.points))
    panels = []
    for panel_value in panel_values:
        curves, lines, kinds = [], [], []
        for kind, metric in enumerate(metrics):
            for line, line_value in enumerate(line_values):
                chosen = [(p, r) for p, r in pairs
                          if (panel_key is None or _held_value(p, panel_key) == panel_value)
                          and (line_key is None or _held_value(p, line_key) == line_value)]
                if not chosen:
                    continue
                label = metric.heading + ("" if line_key is None else f", {line_key} = {show(line_value)}")
                curves.append(Curve(label, [positions[p.x] for p, _ in chosen],
                                    [r.stats[metric.name] for _, r in chosen],
                                    [[metric.read(run) for run in p.runs] for p, _ in chosen]))
                lines.append(line if line_key is not None else kind)
                kinds.append(kind)
        panels.append(Panel("" if panel_key is None else f"{panel_key} = {show(panel_value)}",
                            curves, lines, kinds))
    return panels


def swept_title(title, sweep):
    """``title`` with the keys that vary from point to point, so that a name stating one value
    of them (``HT on``) is not read as holding at every point: ``..., at each point's
    host.hyperthreading and vm.instances``."""
    keys = sweep.keys()
    named = keys[0] if len(keys) == 1 else f"{', '.join(keys[:-1])} and {keys[-1]}"
    return f"{title}, at each point's {named}"


def plot_report(stem, title, sweep, reports):
    """Write ``stem``_SUFFIX (PNG and SVG) for each figure of ``FIGURES`` that has a curve
    (the loss figure only when some run lost voice); return the paths written. A sweep of
    several keys draws its second key as lines and its third as panels (``layout``)."""
    from vsim.results.plotting import plot_panels, plot_sweep  # matplotlib: imported only to draw

    xs, label, ticks = axis(sweep)
    positions = dict(zip(dict.fromkeys(sweep.xs()), xs))
    metrics = sweep_metrics(sweep)
    several = len(sweep.keys()) > 1
    written = []
    for suffix, ylabel in FIGURES.items():
        chosen = [m for m in metrics if m.figure == suffix]
        panels = _panels(sweep, reports, chosen, positions) if several else None
        curves = ([curve for panel in panels for curve in panel.curves] if several
                  else _curves(sweep, reports, chosen, xs))
        if not curves or (suffix == "loss" and not _has_loss(curves)):
            continue
        path = stem.with_name(f"{stem.name}_{suffix}")
        caveat = sweep.interval_caveat()
        caption = (f"Points: trimmed mean over replications; error bars: {INTERVAL}"
                   f"{f' ({caveat})' if caveat else ''}; faint dots: the replications. Runs: {sweep.stamp()}.")
        if layout(sweep)[2]:
            caption += (f"\nEach point has its own {', '.join(sweep.keys()[1:])} (points.csv): "
                        "the points are not joined.")
        if suffix in UNITS:
            caption += f"\n{UNITS[suffix]}"
        if suffix == HOST_CPU.figure:
            caption += "".join(f"\n{line.removeprefix('note: ')}." for line in notes(sweep))
        if several:
            written += plot_panels(path, title=swept_title(title, sweep), xlabel=label, ylabel=ylabel,
                                   panels=panels, xticks=ticks, caption=caption,
                                   joined=not layout(sweep)[2])
        else:
            written += plot_sweep(path, title=swept_title(title, sweep), xlabel=label, ylabel=ylabel, curves=curves,
                                  marks=[], xticks=ticks, caption=caption, legend_loc="outside right upper")
    return written


def _csv_value(x):
    """A swept value in a CSV cell: a string as it is, anything else as in TOML (``true``, ``12``)."""
    return x if isinstance(x, str) else show(x)


def _csv_text(rows):
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue()


def _cell_number(value):
    """A number in a CSV cell: Python's shortest exact form; empty where a run lacks it."""
    return "" if value is None else repr(float(value))


def points_csv(sweep, reports):
    """One row per point: the swept values (a column per key), the replications, and per metric its trimmed mean and
    the low and high ends of its 95 % interval (``NAME``, ``NAME_low``, ``NAME_high``; empty
    where a run lacks the metric)."""
    metrics = sweep_metrics(sweep)
    rows = [list(sweep.keys()) + ["replications"]
            + [f"{m.name}{end}" for m in metrics for end in ("", "_low", "_high")]]
    for point, report in zip(sweep.points, reports):
        row = [_csv_value(value) for _, value in point.setting(sweep.key)] + [str(len(point.runs))]
        for metric in metrics:
            stat = report.stats[metric.name]
            row += ["", "", ""] if stat is None else [_cell_number(v) for v in (stat[0], *stat[1])]
        rows.append(row)
    return _csv_text(rows)


def runs_csv(sweep):
    """One row per replication, in sweep order: the swept values (a column per key), the seed, and each metric's
    value in that run (empty where the run lacks it)."""
    metrics = sweep_metrics(sweep)
    rows = [list(sweep.keys()) + ["seed"] + [m.name for m in metrics]]
    for point in sweep.points:
        setting = [_csv_value(value) for _, value in point.setting(sweep.key)]
        for seed, run in zip(point.seeds, point.runs):
            rows.append(setting + [str(seed)] + [_cell_number(m.read(run)) for m in metrics])
    return _csv_text(rows)


def title_with_overrides(title, overrides):
    """A scenario's name with the ``--set`` overrides that change what it describes (those of
    the sweep's key and values show on the x axis): a figure passed on alone should not say
    6 instances of a run of 12."""
    changed = [item for item in overrides if not item.startswith("sweep.")]
    return f"{title}, as changed by --set {' '.join(changed)}" if changed else title


def write_report(outdir, stem, title, sweep, reports):
    """results.json, summary.md, points.csv, runs.csv, their Parquet twins (points.parquet,
    runs.parquet, ``vsim.sweep.tidy``) and the figures of a sweep in ``outdir``;
    the paths written.

    results.json lists the files written (``files``) and their digests (``sha256``), so that the
    next report written into ``outdir`` removes those it does not write again (a figure it has
    no curve for, another scenario's figures) and leaves nothing stale beside it; other files,
    and these once changed, are left alone."""
    outdir.mkdir(parents=True, exist_ok=True)
    previous = listed_outputs(outdir / "results.json")
    title = title_with_overrides(title, sweep.overrides)
    written = ([outdir / "results.json", outdir / "summary.md", outdir / "points.csv", outdir / "runs.csv"]
               + plot_report(outdir / stem, title, sweep, reports))
    write_text(written[1], table_markdown(title, sweep, reports))
    write_text(written[2], points_csv(sweep, reports))
    write_text(written[3], runs_csv(sweep))
    from vsim.sweep.tidy import points_columns, runs_columns, write_parquet  # pyarrow: only here
    written += [write_parquet(outdir / "points.parquet", points_columns(sweep, reports)),
                write_parquet(outdir / "runs.parquet", runs_columns(sweep))]
    write_text(written[0], report_json(title, sweep, reports, files=[path.name for path in written],
                                       digests=written_digests(written[1:])))
    after_commit(lambda: remove_stale(outdir, previous, written))
    return written
