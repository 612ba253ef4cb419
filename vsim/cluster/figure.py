"""The figure of a cluster run: each VM's throughput over time across the hosts, decisions marked.

Each VM is a step line of its goodput (one colour per VM, a line style per host it runs on, so a
migrated VM's line changes style where it moves); reservation changes are dashed verticals,
faults red dotted ones, host failures black, power-ons after the start dash-dotted; each vMotion is a shaded span from its start to the
end of its switch-over, and the moving VM's switch-over pause (its throughput dip) is a marker
at its end, labelled with the pause. ``bands`` adds the paper's acceptance bands over the
periods a claim is about (the study's recipe draws them).
"""

from __future__ import annotations

from dataclasses import dataclass

from vsim.cluster.result import ClusterResult
from vsim.results.plotting import new_axes, palette, write_figure

HOST_STYLES = ("-", "--", ":", "-.")
"""Line style of a VM's throughput on each host, in the cluster's order (then round again)."""


@dataclass(frozen=True)
class Band:
    """A paper value's acceptance band for one VM over a period: label (None: unlabelled), VM,
    start, end, low, high (Gb/s)."""

    label: str | None
    vm: str
    start: float
    end: float
    low: float
    high: float


def plot_cluster(stem, result: ClusterResult, *, title: str, caption: str, bands=()) -> list:
    """Draw ``result`` as ``stem``.png and ``stem``.svg; returns the paths written."""
    fig, ax = new_axes()
    colours = dict(zip(result.vms, palette() * (1 + len(result.vms) // len(palette()))))
    styles = {host: HOST_STYLES[i % len(HOST_STYLES)] for i, host in enumerate(result.hosts)}
    for band in bands:
        ax.fill_between([band.start, band.end], [band.low] * 2, [band.high] * 2, color=colours[band.vm],
                        alpha=0.18, linewidth=0, label=band.label)
    last = max(len(result.vms) - 1, 1)
    for index, vm in enumerate(result.vms):  # the first thickest, so equal lines all show
        _draw_vm(ax, result, vm, colours[vm], styles, 1.0 + 1.4 * (last - index) / last)
    for host, style in styles.items():
        ax.plot([], [], color="grey", linestyle=style, linewidth=1, label=f"on {host}")
    _draw_marks(ax, result)
    ax.set_xlim(0, result.duration)
    return write_figure(fig, ax, stem, title=title, xlabel="time (s)", ylabel="goodput (Gb/s)",
                        caption=caption, legend_loc="outside right upper")


def _draw_vm(ax, result: ClusterResult, vm: str, colour, styles, width: float) -> None:
    """VM ``vm``'s goodput as steps, a run of segments on one host per line (labelled once)."""
    runs: list[tuple[str | None, list, list]] = []
    for segment in result.segments:
        host = segment.hosts.get(vm)
        if not runs or runs[-1][0] != host:
            if runs:  # join the runs where the VM moves
                runs[-1][1].append(segment.start)
                runs[-1][2].append(runs[-1][2][-1])
            runs.append((host, [], []))
        runs[-1][1].append(segment.start)
        runs[-1][2].append(segment.rates.get(vm, 0.0) / 1e9)
    if runs:
        runs[-1][1].append(result.duration)
        runs[-1][2].append(runs[-1][2][-1])
    labelled = False
    for host, times, rates in runs:
        ax.step(times, rates, where="post", color=colour, linewidth=width,
                linestyle=styles.get(host, ":") if host is not None else ":",
                label=None if labelled else vm)
        labelled = True


def _draw_marks(ax, result: ClusterResult) -> None:
    """Reservation changes, faults and failures as verticals; vMotions as spans, their pauses as markers."""
    seen = set()

    def once(label):
        if label in seen:
            return None
        seen.add(label)
        return label

    def note(t, text, colour):
        ax.annotate(text, (t, 1.0), xycoords=("data", "axes fraction"), rotation=90, fontsize=5.5,
                    va="top", ha="right", color=colour)

    for mark in result.marks:
        if mark.kind in ("reservation", "refused") and mark.t > 0:
            ax.axvline(mark.t, color="dimgrey", linestyle="--", linewidth=0.8,
                       label=once("reservation change"))
            note(mark.t, mark.text.split(" (")[0].split(":")[0], "dimgrey")
        elif mark.kind == "host_failure":
            ax.axvline(mark.t, color="black", linestyle="-", linewidth=1.0, label=once("host failure"))
            note(mark.t, mark.text.split(":")[0], "black")
        elif mark.kind == "power_on" and mark.t > 0:
            ax.axvline(mark.t, color="tab:cyan", linestyle="-.", linewidth=0.8, label=once("power-on"))
            note(mark.t, mark.text.split(" (")[0], "teal")
    for fault in result.faults:
        ax.axvline(fault.at, color="tab:red", linestyle=":", linewidth=1.0, label=once("reservation fault"))
        note(fault.at, f"{fault.vm} reserves {fault.bandwidth / 1e9:.4g} Gb/s: fault on {fault.host}", "tab:red")
    for migration in result.migrations:
        end = migration["ended_s"] if migration["ended_s"] is not None else result.duration
        ax.axvspan(migration["started_s"], end, color="grey", alpha=0.2,
                   label=once("vMotion (pre-copy and switch-over)"))
        if migration["outcome"] == "done":
            ax.plot([end], [0.0], marker="v", color="black", markersize=5, linestyle="none",
                    label=once("switch-over pause (the moving VM's dip)"))
            ax.annotate(f"{migration['vm']} -> {migration['target']}, paused "
                        f"{migration['pause_s'] * 1000:.0f} ms", (end, 0.0), textcoords="offset points",
                        xytext=(2, 6), fontsize=5.5, rotation=90, va="bottom")
