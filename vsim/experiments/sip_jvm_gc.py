"""Study recipe for sip-jvm-gc: a SIP servlet container's call setup under three JVM collectors.

Modelled: Figure 8 (Sun JDK 1.4.2's default collector, ``fig8.toml``), Figure 9
(the low-latency options with pretenuring, ``fig9.toml``) and the text's
throughput options (``throughput_gc.toml``), each a sweep of SIPp's call rate
against a SIP server (``vsim.guest.sip_server``) whose worker threads pause for
the collector's stop-the-world collections (``vsim.guest.jvm_gc``). The study's
requirement bounds the time from the INVITE sent to its ACK: 25 ms for half of
the calls, 50 ms for 95 % of them. The capacity is the highest call rate that
meets both, read where the swept curve crosses its bound (linear between the
two points around the crossing); the knee is the rate where the 95th
percentile first exceeds twice its value at the lowest rate.
"""

import math

from vsim.config.claims import Simulated
from vsim.results.plotting import Curve, Marks, plot_sweep

NAME = "sip-jvm-gc"
CONFIGS = {
    "fig8": "configs/sip-jvm-gc/fig8.toml",
    "fig9": "configs/sip-jvm-gc/fig9.toml",
    "throughput": "configs/sip-jvm-gc/throughput_gc.toml",
}
SERVER = "proxy[0]"
P50_BOUND_MS, P95_BOUND_MS = 25.0, 50.0
TUNED_CPU_RATE, THROUGHPUT_TIMEOUT_RATE = 250.0, 150.0

BY_CONSTRUCTION: dict[str, str] = {}
"""No claim of this study is fixed by the scenario whatever the model does."""


def _server(run):
    """The SIP server VM's section of one run."""
    return run.sip[SERVER]


def _mean(point, field):
    """The mean over a point's replications of the server's ``field`` (None where a run lacks it)."""
    values = [getattr(_server(run), field) for run in point.runs]
    return None if any(v is None for v in values) else sum(values) / len(values)


def curve(sweep, field):
    """[(call rate, mean ``field``)] over the sweep's points, in rate order."""
    return sorted((point.x, _mean(point, field)) for point in sweep.points)


def first_crossing(points, bound):
    """The x where ``points`` (x, y) first rise above ``bound``, linear between the last point
    at or below it and the first above; None if none rises above it, or the first already does."""
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        if y0 is None or y1 is None or y0 > bound:
            return None
        if y1 > bound:
            return x0 + (bound - y0) * (x1 - x0) / (y1 - y0)
    return None


def capacity(sweep):
    """The highest call rate meeting both setup bounds: the lower of the two crossings."""
    crossings = [first_crossing(curve(sweep, "setup_p50_ms"), P50_BOUND_MS),
                 first_crossing(curve(sweep, "setup_p95_ms"), P95_BOUND_MS)]
    found = [x for x in crossings if x is not None]
    return min(found) if found else None


def knee(sweep):
    """The call rate where the 95th percentile first exceeds twice its value at the lowest rate."""
    points = curve(sweep, "setup_p95_ms")
    return first_crossing(points, 2 * points[0][1])


def _value(sweep, rate, field, note):
    """The mean ``field`` at call rate ``rate`` as a claim's value (None without that point)."""
    point = next((p for p in sweep.points if p.x == rate), None)
    return Simulated(None if point is None else _mean(point, field), None, sweep.name, note)


def claim_values(sweeps):
    """Simulated value of every claim this recipe models, keyed by claim id."""
    fig8, fig9 = sweeps["fig8"], sweeps["fig9"]
    low = curve(fig8, "setup_p95_ms")[0]
    return {
        "sipgc.default.capacity_caps": Simulated(capacity(fig8), None, "fig8", CAPACITY_NOTE),
        "sipgc.default.knee_caps": Simulated(
            knee(fig8), None, "fig8",
            f"twice the p95 at {low[0]:g} calls/s ({low[1]:.1f} ms); {KNEE_NOTE}"),
        "sipgc.tuned.capacity_caps": Simulated(capacity(fig9), None, "fig9", CAPACITY_NOTE),
        "sipgc.tuned.cpu_util_pct.caps250": _value(fig9, TUNED_CPU_RATE, "cpu_util_pct",
                                                   "the server's CPU, % of its two processors"),
        "sipgc.throughput.timeout_fraction.caps150": _value(
            sweeps["throughput"], THROUGHPUT_TIMEOUT_RATE, "failed_fraction", TIMEOUT_NOTE),
    }


CAPACITY_NOTE = (f"where p50 crosses {P50_BOUND_MS:g} ms or p95 crosses {P95_BOUND_MS:g} ms, "
                 f"linear between the swept rates around it")
KNEE_NOTE = ("the model's p95 stays at its low-load value until collections delay more than 5 % "
             "of the calls; the study blames the earlier rise on messages queueing behind each "
             "other, which calls paced evenly with a fixed cost per message do not do")
TIMEOUT_NOTE = ("a call fails when SIPp's INVITE or BYE retransmissions run out (Timer B, 32 s); "
                "pauses of a few seconds delay calls and drop messages but fail none")


def _setup_figure(stem, sweep, claims, figure, capacity_id, knee_id=None):
    """One figure's setup percentiles against the call rate, the requirement and the paper's
    capacity (and knee) marked."""
    rates = [x for x, _ in curve(sweep, "setup_p95_ms")]
    curves = [Curve(f"setup p{q}", rates, [(y, (y, y)) for _, y in curve(sweep, f"setup_p{q}_ms")])
              for q in (50, 95)]
    paper = {c.id: c for c in claims}
    marks = []
    cap = paper.get(capacity_id)
    if cap is not None:
        marks.append(Marks("capacity (p95 at its bound)", [cap.paper], [P95_BOUND_MS],
                           [(P95_BOUND_MS, P95_BOUND_MS)]))
    bend = paper.get(knee_id) if knee_id else None
    if bend is not None:
        low = curve(sweep, "setup_p95_ms")[0][1]
        marks.append(Marks("knee (p95 twice its low-load value)", [bend.paper], [2 * low],
                           [(2 * low, 2 * low)]))
    return plot_sweep(stem, title=f"{figure}: call setup time (INVITE to ACK) against call rate",
                      xlabel="call rate (calls/s)", ylabel="setup time (ms)", curves=curves, marks=marks,
                      levels=[(f"requirement: p{q} <= {bound:g} ms", bound)
                              for q, bound in ((50, P50_BOUND_MS), (95, P95_BOUND_MS))],
                      caption="Paced calls and a fixed cost per message: one replication per point. "
                              "Paper marks at the rates the study states, on the curve they describe. "
                              f"Runs: {sweep.stamp()}.")


def _cpu_figure(stem, sweeps, claims):
    """The server's CPU against the call rate under each collector, Fig 9's at 250 calls/s marked."""
    curves = []
    for label, name in (("default collector (Fig 8)", "fig8"), ("low-latency with pretenuring (Fig 9)", "fig9"),
                        ("throughput options", "throughput")):
        points = curve(sweeps[name], "cpu_util_pct")
        curves.append(Curve(label, [x for x, _ in points], [(y, (y, y)) for _, y in points]))
    claim = next((c for c in claims if c.id == "sipgc.tuned.cpu_util_pct.caps250"), None)
    marks = [] if claim is None else [Marks("Fig 9 at 250 calls/s", [TUNED_CPU_RATE], [claim.paper],
                                            [tuple(claim.band)])]
    return plot_sweep(stem, title="SIP server CPU against call rate, three JVM collectors",
                      xlabel="call rate (calls/s)", ylabel="server CPU (% of two processors)",
                      curves=curves, marks=marks,
                      caption="Collections' work runs on the server's threads; the concurrent "
                              f"collector's marking is not modelled. Runs: {sweeps['fig9'].stamp()}.")


def draw_figures(outdir, sweeps, claims):
    """Fig 8, Fig 9 and the servers' CPU in ``outdir``; returns the paths written."""
    finite = {c.id for c in claims if c.paper is not None and math.isfinite(c.paper)}
    chosen = [c for c in claims if c.id in finite]
    return (_setup_figure(outdir / "fig8_setup", sweeps["fig8"], chosen, "Fig 8 (default collector)",
                          "sipgc.default.capacity_caps", "sipgc.default.knee_caps")
            + _setup_figure(outdir / "fig9_setup", sweeps["fig9"], chosen,
                            "Fig 9 (low-latency collector, pretenuring)", "sipgc.tuned.capacity_caps")
            + _cpu_figure(outdir / "cpu", sweeps, chosen))
