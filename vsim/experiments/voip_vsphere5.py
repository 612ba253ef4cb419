"""Study recipe for voip-vsphere5: vMCD media servers on an over-committed ESXi 5 host.

Figure 2 sweeps the streams of one instance (``fig2.toml``); Figures 3 and 4
sweep the number of 120-stream instances (``fig3.toml``), Figure 4 being the
host CPU of the same runs. Figure 6 and Table 2 (``fig6.toml``) run 120
streams beside a UDP flood on the FIFO uplink and on NetIOC: the voice loss
per second over time and, while the flood runs, its loss rate and the
measuring conference's jitter. A claim about one point is the paper's statistic,
the trimmed mean over replications, with its 95% bootstrap interval; a trend
claim is computed from those per-point means; a loss claim is the largest
loss of any replication at any point.
"""

import math
from typing import NamedTuple

from vsim.config.claims import Simulated
from vsim.results.plotting import (Curve, Marks, Spread, Timeline, plot_spread, plot_sweep,
                                     plot_timeline)
from vsim.metrics.stats import INTERVAL, linear_r2, slope, spearman, straight_line

NAME = "voip-vsphere5"
CONFIGS = {"fig2": "configs/voip-vsphere5/fig2.toml", "fig3": "configs/voip-vsphere5/fig3.toml",
           "fig6": "configs/voip-vsphere5/fig6.toml"}


FLOOD_LOSS = "uplink.during_traffic.voice_loss_fraction"
FLOOD_JITTER = (("mean", "uplink.during_traffic.jitter_mean_ms"),
                ("99th percentile", "uplink.during_traffic.jitter_p99_ms"))
UPLINKS = {"fifo": "without NetIOC (one FIFO)", "netioc": "with NetIOC (voice and flood pools, "
                                                            "equal shares)"}


class PointClaim(NamedTuple):
    """A claim about one point: the sweep, the swept value and the summary metric."""

    sweep: str
    x: int | str
    metric: str


POINT_CLAIMS = {
    "voip5.fig2.mean_jitter_ms.streams20": PointClaim("fig2", 20, "jitter.mean_ms"),
    "voip5.fig2.mean_jitter_ms.streams120": PointClaim("fig2", 120, "jitter.mean_ms"),
    "voip5.fig2.p99_jitter_ms.streams20": PointClaim("fig2", 20, "jitter.p99_ms"),
    "voip5.fig2.p99_jitter_ms.streams120": PointClaim("fig2", 120, "jitter.p99_ms"),
    "voip5.fig3.mean_jitter_ms.inst12": PointClaim("fig3", 12, "jitter.mean_ms"),
    "voip5.fig3.p99_jitter_ms.inst12": PointClaim("fig3", 12, "jitter.p99_ms"),
    "voip5.fig3.packet_rate_pps.inst12": PointClaim("fig3", 12, "voice.packet_rate_pps"),
    "voip5.fig3.bandwidth_mbps.inst12": PointClaim("fig3", 12, "voice.bandwidth_mbps"),
    "voip5.fig4.cpu_util_pct.inst12": PointClaim("fig3", 12, "host.cpu_util_pct"),
    "voip5.fig6.loss_pps.without_netioc": PointClaim("fig6", "fifo", "uplink.during_traffic.voice_loss_pps"),
    "voip5.fig6.loss_fraction.without_netioc": PointClaim("fig6", "fifo", FLOOD_LOSS),
    "voip5.fig6.loss_fraction.with_netioc": PointClaim("fig6", "netioc", FLOOD_LOSS),
    "voip5.tab2.mean_jitter_ms.without_netioc": PointClaim("fig6", "fifo", FLOOD_JITTER[0][1]),
    "voip5.tab2.p99_jitter_ms.without_netioc": PointClaim("fig6", "fifo", FLOOD_JITTER[1][1]),
    "voip5.tab2.mean_jitter_ms.with_netioc": PointClaim("fig6", "netioc", FLOOD_JITTER[0][1]),
    "voip5.tab2.p99_jitter_ms.with_netioc": PointClaim("fig6", "netioc", FLOOD_JITTER[1][1]),
}

# Claims whose value the scenario fixes whatever the model does, with why.
BY_CONSTRUCTION = {
    "voip5.fig2.loss_fraction.max": "at most 3.9 Mb/s of voice on a 1 Gb/s link: the uplink queue cannot fill",
    "voip5.fig3.loss_fraction.max": "at most 45 Mb/s of voice on a 1 Gb/s link: the uplink queue cannot fill",
    "voip5.fig3.packet_rate_pps.inst12": "the configured streams' rate (1440 load + 4 measured streams x 50/s), "
                                         "less only what guests fail to send",
    "voip5.fig3.bandwidth_mbps.inst12": "the configured packet rate x 78-byte G.729 Ethernet frames",
    "voip5.fig6.loss_fraction.with_netioc": "the voice pool's equal share (half the link) is over "
                                            "100 times its 3.9 Mb/s: its own queue cannot fill",
}

# How to read a predicted claim that shares a fitted mechanism with a fitted one.
POINT_NOTES = {
    claim_id: ("measured through the same stalling client as the column without NetIOC, whose "
               "stalls were fitted (clients/load_generating_client): it predicts only what the "
               "uplink's scheduler changes")
    for claim_id in ("voip5.tab2.mean_jitter_ms.with_netioc", "voip5.tab2.p99_jitter_ms.with_netioc")
}

JITTER = (("mean", "jitter.mean_ms"), ("99th percentile", "jitter.p99_ms"))
CPU = "host.cpu_util_pct"
CORE = "host.core_util_pct"


def slope_ratio(early_points, late_points):
    """Least-squares slope over ``late_points`` divided by the slope over ``early_points``.

    Above 1 when y rises faster over the later range; nan when the early
    slope is zero. Every sweep point inside a range is used, not only its
    ends, so one noisy point moves the ratio less.
    """
    early = slope(*zip(*early_points))
    late = slope(*zip(*late_points))
    return late / early if early else math.nan


def slope_ratio_note(early_points, late_points, early_intervals=()):
    """How to read the slope ratio: both slopes and the p99 at each instance count, and why
    the ratio means little when the early slope is zero or below, a small fraction of the
    late one or, given the p99's 95 % intervals over 1-4 instances (``early_intervals``,
    (low, high) each), within their noise."""
    early, late = slope(*zip(*early_points)), slope(*zip(*late_points))
    shown = ", ".join(f"{x}: {y:.2f}" for x, y in dict(early_points + late_points).items())
    note = (f"p99 slope {early:.4f} ms per instance over 1-4 and {late:.4f} over 4-8 "
            f"(p99 in ms by instances {shown})")
    ys = [y for _, y in early_points]
    noise = max(((high - low) / 2 for low, high in early_intervals), default=0.0)
    if early <= 0.0:
        note += ("; the ratio divides by a slope of zero or below (its size and sign mean nothing) "
                 "because the simulated p99 does not rise from 1 to 4 instances, where the study's rises")
    elif early < 0.1 * max(late, 0.0):
        note += (f"; the simulated p99 rises by {max(ys) - min(ys):.3f} ms from 1 to 4 instances, "
                 f"{late / early:.0f} times more slowly than from 4 to 8, where the study's early "
                 f"rise is only 'slightly' slower than its later one: the ratio's size says nothing "
                 f"beyond the early rise being there")
    elif max(ys) - min(ys) < noise:
        note += (f"; the p99 moves by {max(ys) - min(ys):.3f} ms from 1 to 4 instances, less than the "
                 f"half-width of its 95 % intervals ({noise:.3f} ms): the early slope, and so the "
                 f"ratio, is within the replications' noise (run longer or more replications)")
    return note


def claim_values(sweeps):
    """Simulated value of every claim this recipe models, keyed by claim id."""
    values = {}
    for claim_id, point in POINT_CLAIMS.items():
        mean, ci = sweeps[point.sweep].at(point.x).stat(point.metric)
        values[claim_id] = Simulated(mean, ci, point.sweep, POINT_NOTES.get(claim_id, ""))
    fig2, fig3 = sweeps["fig2"], sweeps["fig3"]
    instances = fig3.xs()
    means = {metric: [mean for mean, _ in fig3.series(metric)] for metric in ("jitter.mean_ms", CPU)}
    p99 = {x: fig3.at(x).stat("jitter.p99_ms") for x in instances if 1 <= x <= 8}
    early = [(x, y) for x, (y, _) in p99.items() if x <= 4]
    late = [(x, y) for x, (y, _) in p99.items() if x >= 4]
    early_intervals = [ci for x, (_, ci) in p99.items() if x <= 4 and ci is not None]
    values.update({
        "voip5.fig2.loss_fraction.max": Simulated(fig2.maximum("voice.loss_fraction"), None, "fig2"),
        "voip5.fig3.loss_fraction.max": Simulated(fig3.maximum("voice.loss_fraction"), None, "fig3"),
        "voip5.fig3.p99_slope_ratio": Simulated(slope_ratio(early, late), None, "fig3",
                                                slope_ratio_note(early, late, early_intervals)),
        "voip5.fig3.jitter_monotone": Simulated(spearman(instances, means["jitter.mean_ms"]), None, "fig3"),
        "voip5.fig4.cpu_linearity_r2": Simulated(linear_r2(instances, means[CPU]), None, "fig3"),
    })
    return values


def _paper_marks(claims, name, metric, label):
    """The paper's values for ``metric`` at points of sweep ``name``."""
    chosen = [(POINT_CLAIMS[c.id].x, c) for c in claims if c.id in POINT_CLAIMS
              and POINT_CLAIMS[c.id].sweep == name and POINT_CLAIMS[c.id].metric == metric]
    return Marks(label, [x for x, _ in chosen], [c.paper for _, c in chosen],
                 [tuple(c.band) for _, c in chosen])


def caption(sweep, extra=""):
    """What a figure's error bars and marks are, and how its runs were made."""
    caveat = sweep.interval_caveat()
    return (f"Points: trimmed mean over replications; error bars: {INTERVAL}"
            f"{f' ({caveat})' if caveat else ''}; paper marks: the "
            f"claim's acceptance band.{extra} Runs: {sweep.stamp()}.")


def _jitter_figure(stem, sweep, claims, title, xlabel):
    return plot_sweep(
        stem, title=title, xlabel=xlabel, ylabel="RFC 3550 jitter (ms)",
        curves=[Curve(label, sweep.xs(), sweep.series(metric),
                      [sweep.at(x).values(metric) for x in sweep.xs()]) for label, metric in JITTER],
        marks=[_paper_marks(claims, sweep.name, metric, label) for label, metric in JITTER],
        caption=caption(sweep, " Faint dots: the replications."))


def every_vm_values(point, key):
    """``key`` (a ``MediaVm`` field) of every VM's monitored conference in every replication of
    ``point``."""
    values = [getattr(vm, key) for run in point.runs for vm in run.vms.values()]
    return [value for value in values if value is not None]


def _every_vm_figure(stem, sweep, claims):
    """Fig 3 for every VM: boxes of all VMs' jitter beside the measured one's curve."""
    return plot_spread(
        stem, title="Fig 3, every VM: each VM's last conference (boxes) and the measured VM (lines)",
        xlabel="vMCD instances (4 vCPUs each, 16 logical CPUs)", ylabel="RFC 3550 jitter (ms)",
        spreads=[Spread(f"every VM's {label}", sweep.xs(),
                        [every_vm_values(sweep.at(x), key) for x in sweep.xs()])
                 for label, key in (("mean", "jitter_mean_ms"), ("99th percentile", "jitter_p99_ms"))],
        curves=[Curve(f"{label}, measured VM", sweep.xs(), sweep.series(metric))
                for label, metric in JITTER],
        marks=[_paper_marks(claims, sweep.name, metric, label) for label, metric in JITTER],
        caption=caption(sweep, " Boxes: quartiles of every VM of every replication, whiskers "
                               "their 5th to 95th percentiles."))


def draw_figures(outdir, sweeps, claims):
    """Figures 2, 3 (with every VM's spread) and 4 in ``outdir``; returns the paths written."""
    fig2, fig3 = sweeps["fig2"], sweeps["fig3"]
    written = _jitter_figure(outdir / "fig2", fig2, claims,
                             "Fig 2: jitter vs streams, one vMCD instance (simulated vs paper)",
                             "G.729 streams per instance")
    written += _jitter_figure(outdir / "fig3", fig3, claims,
                              "Fig 3: jitter vs vMCD instances, 120 streams each (simulated vs paper)",
                              "vMCD instances (4 vCPUs each, 16 logical CPUs)")
    written += _every_vm_figure(outdir / "fig3_vms", fig3, claims)
    cpu = fig3.series(CPU)
    intercept, per_instance = straight_line(fig3.xs(), [mean for mean, _ in cpu])
    ends = [min(fig3.xs()), max(fig3.xs())]
    written += plot_sweep(
        outdir / "fig4", title="Fig 4: host CPU vs vMCD instances (simulated vs paper)",
        xlabel="vMCD instances (120 streams each)", ylabel="host CPU (%)",
        curves=[Curve("PCPU UTIL (logical CPUs busy; the claim's metric)", fig3.xs(), cpu),
                Curve("CORE UTIL (cores with a busy thread)", fig3.xs(), fig3.series(CORE))],
        marks=[_paper_marks(claims, "fig3", CPU, "host CPU")],
        line=(f"straight-line fit of PCPU UTIL ({per_instance:.2f} %/instance)", ends,
              [intercept + per_instance * x for x in ends]),
        caption=caption(fig3))
    written += _fig6_figure(outdir / "fig6", sweeps["fig6"], claims)
    written += _table2_figure(outdir / "table2", sweeps["fig6"], claims)
    return written


def mean_timeline(point, key):
    """Per second, the mean over ``point``'s replications of the timeline ``key``."""
    runs = [getattr(run.uplink.timeline, key) for run in point.runs]
    return [sum(values) / len(values) for values in zip(*runs)]


def _fig6_figure(stem, sweep, claims):
    """Fig 6: voice packets lost per second over the run, without and with NetIOC."""
    start, stop = sweep.points[0].runs[0].uplink.traffic_window_s
    timelines = []
    for x in sweep.xs():
        lost = mean_timeline(sweep.at(x), "voice_lost_per_s")
        # second i covers [i, i + 1): the last step drawn to the run's end
        timelines.append(Timeline(UPLINKS.get(x, x), list(range(len(lost) + 1)), lost + lost[-1:]))
    band = next(((f"paper: {c.paper:g}/s, band {c.band[0]:g}-{c.band[1]:g}", *c.band, start, stop)
                 for c in claims if c.id == "voip5.fig6.loss_pps.without_netioc"), None)
    return plot_timeline(
        stem, title="Fig 6: voice packets lost per second, 120 streams beside a UDP flood",
        xlabel="time (s)", ylabel="voice packets lost per second", timelines=timelines,
        shade=("UDP flood running (390 K packets/s)", start, stop), band=band,
        caption=f"Lines: mean over replications of each second's losses. Runs: {sweep.stamp()}.",
        legend_loc="upper left")  # above the lines at zero before the flood


def _table2_figure(stem, sweep, claims):
    """Table 2: jitter during the flood, without and with NetIOC, beside the paper's values."""
    positions = list(range(len(sweep.xs())))
    ticks = [(i, UPLINKS.get(x, x).split(" (")[0]) for i, x in enumerate(sweep.xs())]

    def marks(metric, label):
        chosen = [(sweep.xs().index(POINT_CLAIMS[c.id].x), c) for c in claims
                  if c.id in POINT_CLAIMS and POINT_CLAIMS[c.id].sweep == sweep.name
                  and POINT_CLAIMS[c.id].metric == metric]
        return Marks(label, [x for x, _ in chosen], [c.paper for _, c in chosen],
                     [tuple(c.band) for _, c in chosen])

    return plot_sweep(
        stem, title="Table 2: jitter while the flood runs (simulated vs paper)", xlabel="uplink",
        ylabel="RFC 3550 jitter (ms)", xticks=ticks,
        curves=[Curve(label, positions, sweep.series(metric),
                      [sweep.at(x).values(metric) for x in sweep.xs()])
                for label, metric in FLOOD_JITTER],
        marks=[marks(metric, label) for label, metric in FLOOD_JITTER],
        caption=caption(sweep, " Jitter of the measuring conference's packets sent while the "
                               "flood runs, as the config's client reads them (the one that "
                               "generates the load; its receiving thread stalls now and then)."))
