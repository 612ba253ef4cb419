"""netioc-vsphere6 Experiment 2 (Figure 4): Olio's response time beside twelve TCP streams.

Four scenarios, each swept over the study's 150 and 500 users
(``configs/netioc-vsphere6/exp2_*.toml``): Olio alone; beside the twelve
netperf VMs under the default scheduler (the web VM's responses share a NIC
queue with netperf windows); under NetIOC without reservations (a queue of
its own at the rate its demand is allocated); under NetIOC with the web VM's
500 Mb/s reservation (its queue served at least at that rate). The four run
on the same seeds, so they differ by their uplink, not by their users' draws.
The claims read each case's mean response time, averaged over the
replications: their order at both user counts, and how much more the
reserved case takes than Olio alone (the larger of the two user counts).
"""

import numpy as np

from vsim.config.claims import Simulated
from vsim.results.plotting import Curve, Marks, plot_sweep

CASES = {  # sweep name: (config, the study's case)
    "exp2_alone": ("configs/netioc-vsphere6/exp2_alone.toml", "no competing traffic"),
    "exp2_default": ("configs/netioc-vsphere6/exp2_default.toml", "default scheduler"),
    "exp2_netioc": ("configs/netioc-vsphere6/exp2_netioc.toml", "NetIOC, no reservation"),
    "exp2_reserved": ("configs/netioc-vsphere6/exp2_reserved.toml",
                      "NetIOC, web VM reserves 500 Mb/s"),
}
CONFIGS = {name: config for name, (config, _) in CASES.items()}
ORDER = ("exp2_default", "exp2_netioc", "exp2_reserved", "exp2_alone")
"""The study's order of response times, highest first."""
APP = "olio[0]"


def response_ms(point):
    """Each replication's mean Olio response time (ms) at a sweep point."""
    return [run.web_apps[APP].response_time_mean_ms for run in point.runs]


def mean_response_ms(sweep):
    """{users: mean over the replications of the mean response time, ms}."""
    return {point.x: float(np.mean(response_ms(point))) for point in sweep.points}


def exp2_claims(sweeps):
    """The Exp 2 claims: the order of the four cases at every user count, and the reserved
    case's increase over Olio alone."""
    means = {name: mean_response_ms(sweeps[name]) for name in ORDER}
    users = list(means["exp2_alone"])
    ordered = all(means[a][n] > means[b][n] for n in users for a, b in zip(ORDER, ORDER[1:]))
    increase = {n: means["exp2_reserved"][n] / means["exp2_alone"][n] - 1 for n in users}
    table = "; ".join(f"{n} users: " + ", ".join(f"{CASES[name][1]} {means[name][n]:.2f}"
                                                 for name in ORDER) for n in users)
    return {
        "netioc6.exp2.ordering": Simulated(1.0 if ordered else 0.0, None, "exp2_reserved",
                                           f"mean response time, ms: {table}"),
        "netioc6.exp2.resp_increase_with_reservation": Simulated(
            max(increase.values()), None, "exp2_reserved",
            "the larger over the user counts ("
            + ", ".join(f"{n} users: {v:+.3f}" for n, v in increase.items()) + ")"),
    }


def exp2_figure(stem, sweeps, claims):
    """Fig 4: Olio's mean response time against users for the four cases, with the study's
    bound for the reserved case (Olio alone's time, up to 15 % more)."""
    curves = []
    for name in ORDER:
        sweep = sweeps[name]
        per_run = [response_ms(point) for point in sweep.points]
        curves.append(Curve(CASES[name][1], sweep.xs(),
                            [(float(np.mean(r)), (float(np.min(r)), float(np.max(r))))
                             for r in per_run], per_run))
    bound = next((c for c in claims if c.id == "netioc6.exp2.resp_increase_with_reservation"), None)
    marks = []
    if bound is not None:
        alone = mean_response_ms(sweeps["exp2_alone"])
        marks.append(Marks(f"paper: reserved within {100 * bound.paper:g} % of alone (band)",
                           list(alone), [v * (1 + bound.paper) for v in alone.values()],
                           [(v * (1 + bound.band[0]), v * (1 + bound.band[1]))
                            for v in alone.values()]))
    return plot_sweep(stem, title="Exp 2 (Fig 4): Olio response time beside twelve TCP streams",
                      xlabel="Olio users", ylabel="mean response time (ms)", curves=curves,
                      marks=marks,
                      caption="Mean over the replications, bars from the lowest to the highest; "
                              "the study's figure gives no values, only the order of the cases "
                              "and the reserved case's bound, marked on Olio alone's time. "
                              f"Runs: {sweeps['exp2_reserved'].stamp()}.")
