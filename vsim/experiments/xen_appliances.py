"""Study recipe for xen-appliances: an Asterisk SIP appliance's call capacity on XenServer.

Modelled: the configurations of Table 1 whose competitors exist in the model,
each a sweep of SIPp's call rate (``configs/xen-appliances/cfgN.toml``): cfg 1
(one Asterisk VM, one vCPU), cfg 2 (two vCPUs), cfg 3 and 4 (beside a CPU-bound
Debian VM running Super Pi, one and two vCPUs each, Dom0 two in cfg 4) and cfg 7
(two identical Asterisk VMs), cfg 5 (beside a Debian VM receiving nttcp's TCP
stream from another machine, ``vsim.guest.tcp_receiver``), with Table 2's nttcp
alone (``nttcp.toml``), and cfg 6 (beside IOzone's requests to a disk,
``vsim.guest.disk_benchmark``). Dom0 is a VM of its own
(``vsim.guest.driver_domain``) carrying every SIP message (through the HVM
Asterisk guest's device model, one at a time), nttcp segment and ACK (netback)
and IOzone request (blkback); all of them share the two cores under Xen's
credit scheduler.

The study's reading of a maximum is where successful calls stop following the
offered rate. Here: the offered rate (calls attempted per second, summed over
the Asterisk VMs) at which the calls successful per second fall below
``FOLLOW`` (99 %) of it, linear between the swept rates around the crossing.
"""

import math

from vsim.config.claims import Simulated
from vsim.results.plotting import Curve, Marks, Quantity, plot_grid, plot_sweep

NAME = "xen-appliances"
CONFIGS = {
    "cfg1": "configs/xen-appliances/cfg1.toml",
    "cfg2": "configs/xen-appliances/cfg2.toml",
    "cfg3": "configs/xen-appliances/cfg3.toml",
    "cfg4": "configs/xen-appliances/cfg4.toml",
    "cfg5": "configs/xen-appliances/cfg5.toml",
    "cfg6": "configs/xen-appliances/cfg6.toml",
    "nttcp": "configs/xen-appliances/nttcp.toml",
    "cfg7": "configs/xen-appliances/cfg7.toml",
}
FOLLOW = 0.99
"""Successful calls at or above this fraction of the offered rate: the server keeps up."""
SERVER_GROUP, COMPETITOR = "asterisk", "debian[0]"
MAX_CLAIMS = {"cfg1": "xen.cfg1.max_cps", "cfg2": "xen.cfg2.max_cps", "cfg4": "xen.cfg4.max_cps",
              "cfg5": "xen.cfg5.max_cps", "cfg6": "xen.cfg6.max_cps", "cfg7": "xen.cfg7.max_cps_total"}
CALL_SWEEPS = ("cfg1", "cfg2", "cfg3", "cfg4", "cfg5", "cfg6", "cfg7")
"""The sweeps of the call rate: the seven configurations of Table 1."""
PAPER_CONFIGS = {1: "xen.cfg1.max_cps", 2: "xen.cfg2.max_cps", 4: "xen.cfg4.max_cps",
                 5: "xen.cfg5.max_cps", 6: "xen.cfg6.max_cps", 7: "xen.cfg7.max_cps_total"}

BY_CONSTRUCTION: dict[str, str] = {}
"""No claim of this study is fixed by the scenario whatever the model does."""


def _servers(run):
    return [vm for vm in (run.sip or {}).values() if vm.group == SERVER_GROUP]


def _mean(values):
    values = list(values)
    return None if not values or any(v is None for v in values) else sum(values) / len(values)


def _summed(point, field):
    """``field`` of the Asterisk VMs summed in each run, averaged over the point's runs."""
    return _mean(sum(getattr(vm, field) for vm in _servers(run)) for run in point.runs)


def offered_and_followed(sweep):
    """[(offered calls/s, successful / offered)] per point, in offered order: the Asterisk
    VMs' calls summed in each run, averaged over the point's runs."""
    rows = []
    for point in sweep.points:
        offered = _summed(point, "calls_attempted_per_s")
        done = _summed(point, "calls_successful_per_s")
        if offered:
            rows.append((offered, done / offered))
    return sorted(rows)


def first_drop(points, level):
    """The x where ``points`` (x, y) first fall below ``level``, linear between the last point
    at or above it and the first below; None if none falls below it or the first already does."""
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        if y0 < level:
            return None
        if y1 < level:
            return x0 + (y0 - level) * (x1 - x0) / (y0 - y1)
    return None


def max_calls(sweep):
    """The study's maximum: the offered rate where successful calls stop following it."""
    points = offered_and_followed(sweep)
    if points and points[0][1] < FOLLOW:
        return None
    return first_drop(points, FOLLOW)


def at_offered(sweep, rate, value):
    """``value(run)`` at offered rate ``rate``, linear between the swept points around it."""
    rows = sorted((_summed(point, "calls_attempted_per_s"), _mean(value(run) for run in point.runs))
                  for point in sweep.points)
    for (x0, y0), (x1, y1) in zip(rows, rows[1:]):
        if x0 <= rate <= x1 and y0 is not None and y1 is not None:
            return y0 if x1 == x0 else y0 + (rate - x0) * (y1 - y0) / (x1 - x0)
    return None


def _server_cpu(run):
    return _mean(vm.cpu_util_pct for vm in _servers(run))


def _competitor_work(run):
    vm = (run.cpu_bound_vms or {}).get(COMPETITOR)
    return None if vm is None else vm.work_pct


def _ratio(top, bottom):
    return None if top is None or not bottom else top / bottom


def claim_values(sweeps):
    """Simulated value of every claim this recipe models, keyed by claim id."""
    maxima = {name: max_calls(sweeps[name]) for name in CALL_SWEEPS}
    values = {claim: Simulated(maxima[name], None, name, MAX_NOTE) for name, claim in MAX_CLAIMS.items()}
    cfg1 = maxima["cfg1"]
    values["xen.cfg1.vm_cpu_pct_at_max"] = Simulated(
        None if cfg1 is None else at_offered(sweeps["cfg1"], cfg1, _server_cpu), None, "cfg1",
        "the Asterisk VM's CPU (% of its vCPU) at cfg 1's maximum, linear between swept rates; "
        "the guest's device model in Dom0 saturates first")
    values["xen.cfg3.below_cfg1"] = Simulated(
        _ratio(maxima["cfg3"], cfg1), None, "cfg3",
        "cfg 3's maximum over cfg 1's: the credit scheduler shares the cores with Dom0 and the "
        "CPU-bound VM, and a core runs slower while the other is busy (the host's socket contention)")
    cfg3 = maxima["cfg3"]
    work = None if cfg3 is None else at_offered(sweeps["cfg3"], cfg3, _competitor_work)
    values["xen.cfg3.superpi_slowdown"] = Simulated(
        None if not work else 100.0 / work - 1.0, None, "cfg3",
        "Super Pi as fixed work: its run time grows as 100 % over the work the Debian VM gets "
        "done (at cfg 3's maximum): the CPU the credit scheduler gives it, at the speed the busy "
        "other core leaves it (the host's socket contention); no overhead on its own instructions")
    values["xen.cfg5.nttcp_overhead"] = Simulated(
        nttcp_overhead(sweeps["nttcp"]), None, "nttcp",
        "1 - the stream's rate through Dom0 over the wire's goodput (the rate with nothing on the "
        "host in the way, as natively: 94.15 Mb/s), nttcp alone, averaged over the runs")
    return values


def _receiver(run):
    return (run.tcp_receivers or {}).get(COMPETITOR)


def nttcp_overhead(sweep):
    """1 - virtualised over native Mb/s of the receiver, at the sweep's first point."""
    runs = sweep.points[0].runs
    rate = _mean(_receiver(run).throughput_mbps for run in runs)
    line = _mean(_receiver(run).line_mbps for run in runs)
    return None if rate is None or not line else 1.0 - rate / line


MAX_NOTE = (f"the offered rate where successful calls fall below {FOLLOW:g} x offered "
            f"(summed over the Asterisk VMs), linear between swept rates")


def _fig5(stem, sweeps, claims):
    """Fig 5: maximum calls/s per configuration, the model's beside the paper's."""
    paper = {c.id: c for c in claims}
    numbers = {int(name[3:]): max_calls(sweeps[name]) for name in CALL_SWEEPS}
    model = sorted((n, v) for n, v in numbers.items() if v is not None)
    curves = [Curve("model", [n for n, _ in model], [(v, (v, v)) for _, v in model])]
    shown = [(n, paper[cid].paper, tuple(paper[cid].band)) for n, cid in PAPER_CONFIGS.items()
             if cid in paper]
    cfg3, cfg1 = paper.get("xen.cfg3.below_cfg1"), paper.get("xen.cfg1.max_cps")
    if cfg3 is not None and cfg1 is not None:  # the study gives cfg 3 only as a fraction of cfg 1
        shown.append((3, cfg3.paper * cfg1.paper, tuple(b * cfg1.paper for b in cfg3.band)))
    shown.sort()
    marks = [Marks("Fig 5", [n for n, _, _ in shown], [v for _, v, _ in shown],
                   [band for _, _, band in shown])]
    labels = {1: "1: 1 VM, 1 vCPU", 2: "2: 1 VM, 2 vCPUs", 3: "3: + CPU hog", 4: "4: + CPU hog, 2 vCPUs",
              5: "5: + nttcp", 6: "6: + IOzone", 7: "7: 2 Asterisk VMs"}
    any_sweep = next(iter(sweeps.values()))
    return plot_sweep(stem, title="Fig 5: maximum calls/s under the seven configurations of Table 1",
                      xlabel="configuration", ylabel="maximum calls/s",
                      curves=curves, marks=marks, xticks=sorted(labels.items()),
                      caption="Maximum: where successful calls fall below 99 % of the offered rate; "
                              "cfg 3's paper mark is 0.85 x cfg 1's, a marker. "
                              f"Runs: {any_sweep.stamp()}.")


def _calls_figure(stem, sweeps):
    """The panels (e) of Figures 6-12 together: successful calls/s against the offered rate,
    every modelled configuration, the Asterisk VMs summed."""
    curves = []
    for name in CALL_SWEEPS:
        sweep = sweeps[name]
        rows = [(offered, offered * followed) for offered, followed in offered_and_followed(sweep)]
        curves.append(Curve(f"cfg {name[3:]}", [x for x, _ in rows], [(y, (y, y)) for _, y in rows]))
    top = max((x for c in curves for x in c.xs), default=1.0)
    any_sweep = next(iter(sweeps.values()))
    return plot_sweep(stem, title="Successful calls/s against offered calls/s (Figures 6-12 (e))",
                      xlabel="offered calls/s (Asterisk VMs summed)", ylabel="successful calls/s",
                      curves=curves, marks=[], line=("offered", [0.0, top], [0.0, top]),
                      caption=f"A call counts when it started in the measured window and "
                              f"succeeded. Runs: {any_sweep.stamp()}.")


TITLES = {"cfg1": "one Asterisk VM, one vCPU", "cfg2": "one Asterisk VM, two vCPUs",
          "cfg3": "beside a CPU-bound Debian VM (Super Pi)", "cfg4": "beside Super Pi, two vCPUs each",
          "cfg5": "beside a Debian VM receiving nttcp", "cfg6": "beside a Debian VM running IOzone",
          "cfg7": "two Asterisk VMs"}
FIGURES = {"cfg1": 6, "cfg2": 7, "cfg3": 8, "cfg4": 9, "cfg5": 10, "cfg6": 11, "cfg7": 12}
"""The study's figure of each configuration's panels (a)-(e)."""


def _per_point(sweep, value):
    """A curve's (offered calls/s summed, (mean, (lowest, highest))) per point of ``sweep``,
    ``value(run)`` of each replication, in offered order; points where it is None are left out."""
    rows = []
    for point in sweep.points:
        offered = _summed(point, "calls_attempted_per_s")
        values = [value(run) for run in point.runs]
        if offered and values and all(v is not None for v in values):
            rows.append((offered, (sum(values) / len(values), (min(values), max(values)))))
    return sorted(rows)


def _curve(label, sweep, value):
    rows = _per_point(sweep, value)
    return Curve(label, [x for x, _ in rows], [stat for _, stat in rows])


def _server_names(sweep):
    """The Asterisk VMs' names, as in the runs, in order."""
    return sorted({vm_name for point in sweep.points for run in point.runs
                   for vm_name, vm in (run.sip or {}).items() if vm.group == SERVER_GROUP})


def _competitor(run):
    """The Debian VM's CPU (% of its vCPUs' time), whichever workload it runs, or None."""
    for section in (run.cpu_bound_vms, run.tcp_receivers, run.disk_benchmarks):
        vm = (section or {}).get(COMPETITOR)
        if vm is not None:
            return vm.cpu.used_pct
    return None


def _dom0(run, field):
    vm = next(iter((run.dom0 or {}).values()), None)
    return None if vm is None else field(vm)


def panel_quantities(sweep):
    """The study's panels of one configuration against the offered rate: (a) the VMs' CPU,
    (b) Dom0's, (c) the network as Dom0 carries it, (d) each physical CPU, (e) the calls,
    and the SIPp client's retransmissions."""
    window = sweep.duration - sweep.warmup
    servers = _server_names(sweep)
    vms = [_curve(f"{name} (Asterisk)", sweep, lambda run, name=name: run.sip[name].cpu.used_pct)
           for name in servers]
    if any(_competitor(run) is not None for point in sweep.points for run in point.runs):
        vms.append(_curve("debian[0] (competitor)", sweep, _competitor))
    cpus = max((len(run.host.lcpu_util_pct) for point in sweep.points for run in point.runs), default=0)
    physical = [_curve(f"PCPU {i}", sweep, lambda run, i=i: run.host.lcpu_util_pct[i]) for i in range(cpus)]
    calls = [_curve("successful", sweep, lambda run: sum(vm.calls_successful_per_s for vm in _servers(run))),
             _curve("failed", sweep, lambda run: sum(vm.calls_failed_per_s for vm in _servers(run))),
             _curve("unfinished at the run's end", sweep,
                    lambda run: sum(vm.calls_unfinished_per_s for vm in _servers(run)))]
    resent = [_curve(name, sweep, lambda run, name=name: run.sip[name].retransmissions / window)
              for name in servers]
    return [Quantity("(a) CPU of the VMs", "% of one vCPU, summed", vms),
            Quantity("(b) CPU of Domain-0", "% of one vCPU, summed",
                     [_curve("Dom0", sweep, lambda run: _dom0(run, lambda vm: vm.cpu.used_pct))]),
            Quantity("(c) network, as Dom0 carries it", "guest messages/s (whole run)",
                     [_curve("Dom0", sweep, lambda run: _dom0(run, lambda vm: vm.messages / sweep.duration))]),
            Quantity("(d) physical CPU", "% busy", physical),
            Quantity("(e) calls", "calls/s", calls),
            Quantity("SIPp retransmissions", "retransmissions/s", resent)]


def _panels_figure(stem, name, sweep):
    """Panels (a)-(e) of the configuration's figure in the study, against the offered rate."""
    return plot_grid(stem, title=f"cfg {name[3:]}, {TITLES[name]} (Figure {FIGURES[name]}, panels a-e)",
                     xlabel="offered calls/s", quantities=panel_quantities(sweep),
                     caption="Points: mean over replications, bars from the lowest to the highest; "
                             "Dom0's messages are every guest message it carried (SIP, nttcp "
                             "segments, IOzone requests) over the whole run, warm-up included. "
                             f"Runs: {sweep.stamp()}.")


def draw_figures(outdir, sweeps, claims):
    """Fig 5, the successful calls against the offered rate and each configuration's panels
    in ``outdir``; returns the paths written."""
    chosen = [c for c in claims if c.paper is not None and math.isfinite(c.paper)]
    written = _fig5(outdir / "fig5_max_calls", sweeps, chosen) + _calls_figure(outdir / "calls", sweeps)
    for name in CALL_SWEEPS:
        written += _panels_figure(outdir / f"{name}_panels", name, sweeps[name])
    return written
