"""netioc-vsphere6 Figure 2 across both hosts: the steps DRS resolves by migrating, and its delay.

``configs/netioc-vsphere6/fig2.toml`` is the study's cluster (two hosts, one 10 GbE uplink
each, DRS fully automated) run by ``vsim.cluster``: VM1 reserves 7.5 Gb/s; VM2's 4.5 Gb/s is
a fault on host 1, which DRS resolves at its next pass by moving VM2 to host 2 (step b); VM3's
3 Gb/s is another, and DRS moves VM3 (step c). The allocations after each move are the hosts'
NetIOC trees' (reservations first, the rest by shares), the delay DRS's period (vSphere 6's
300 s) and the vMotion's pre-copy. The first pass's phase is drawn per replication, so the
replications are the spread of faults falling at other moments of DRS's period.
"""

from __future__ import annotations

import numpy as np

from vsim.cluster.figure import Band, plot_cluster
from vsim.config.claims import Simulated
from vsim.metrics.stats import trimmed_mean, trimmed_mean_interval

CLUSTER = "fig2"
CONFIG = "configs/netioc-vsphere6/fig2.toml"
STEPS = {"netioc6.fig2.b.after_migration_gbps": "vm2", "netioc6.fig2.c.after_migration_gbps": "vm3"}
"""Each step's claim and the VM whose migration ends it."""
VMS = ("vm1", "vm2", "vm3")
DELAY = "netioc6.fig2.migration_delay_s"


def _ended(run, vm):
    """When ``vm``'s migration ended in ``run`` (None: it did not)."""
    return next((m["ended_s"] for m in run.migrations if m["vm"] == vm and m["outcome"] == "done"), None)


def after_migration(run, vm):
    """Each VM's goodput (Gb/s) just after ``vm``'s migration ended, or None if it never did."""
    end = _ended(run, vm)
    if end is None:
        return None
    rates = run.rates_at(end)
    return [rates[name] / 1e9 for name in VMS]


def longest_delay(run):
    """The longest time from a reservation fault to the end of the migration that met it, s
    (None when no fault was met by a migration)."""
    delays = [delay for _, delay in run.fault_delays()]
    return max(delays) if delays else None


def fig2_claims(sweep):
    """The three claims of Fig 2 across both hosts from the cluster's replications."""
    out = {}
    for claim_id, vm in STEPS.items():
        values = [after_migration(run, vm) for run in sweep.runs]
        if any(v is None for v in values):
            out[claim_id] = Simulated(None, None, CLUSTER, f"{vm} was not migrated in every replication")
            continue
        mean = np.mean(np.array(values), axis=0)
        spread = np.ptp(np.array(values), axis=0)
        out[claim_id] = Simulated([float(v) for v in mean], None, CLUSTER,
                                  f"[VM1, VM2, VM3] once {vm.upper()}'s vMotion has ended, the same in every "
                                  f"replication (largest spread {float(spread.max()):.2g} Gb/s): each host's "
                                  f"NetIOC tree gives reservations first, the rest by equal shares")
    delays = [longest_delay(run) for run in sweep.runs]
    met = [d for d in delays if d is not None]
    if len(met) < len(delays) or not met:
        out[DELAY] = Simulated(None, None, CLUSTER, "a fault was not met by a migration in every replication")
        return out
    every = [delay for run in sweep.runs for _, delay in run.fault_delays()]
    period = sweep.runs[0].period
    within = sum(delay <= period for delay in every)
    out[DELAY] = Simulated(trimmed_mean(met), trimmed_mean_interval(met), CLUSTER,
                           f"trimmed mean over {len(met)} replications of each one's longer fault-to-"
                           f"migration delay (faults b and c); over all {len(every)} faults "
                           f"{min(every):.0f}-{max(every):.0f} s, {within} within {period:g} s: the wait "
                           f"for DRS's next pass (every {period:g} s, its phase drawn per replication) plus "
                           f"a vMotion of about {_vmotion_seconds(sweep):.0f} s, so a fault just after a "
                           f"pass is met only after the whole period and the vMotion")
    return out


def _vmotion_seconds(sweep):
    """The mean length of the replications' vMotions, s."""
    lengths = [m["ended_s"] - m["started_s"] for run in sweep.runs for m in run.migrations
               if m["outcome"] == "done"]
    return float(np.mean(lengths)) if lengths else float("nan")


def fig2_cluster_figure(stem, sweep, claims):
    """Fig 2 across both hosts: the first replication's goodput per VM over time, the paper's
    bands over the periods after each migration."""
    run = sweep.runs[0]
    paper = {c.id: c for c in claims}
    bands = []
    ends = {claim_id: _ended(run, vm) for claim_id, vm in STEPS.items()}
    stops = {"netioc6.fig2.b.after_migration_gbps": next((f.at for f in run.faults if f.vm == "vm3"), run.duration),
             "netioc6.fig2.c.after_migration_gbps": run.duration}
    for claim_id in STEPS:
        claim = paper.get(claim_id)
        if claim is None or ends[claim_id] is None:
            continue
        for vm, (low, high) in zip(VMS, claim.band):
            bands.append(Band(None if bands else "paper: each VM's band after each migration (steps b, c)",
                              vm, ends[claim_id], stops[claim_id], low, high))
    delay = paper.get(DELAY)
    note = "" if delay is None else (f" Paper: each migration within {delay.paper:g} s of its fault; "
                                     f"here {', '.join(f'{d:.0f}' for _, d in run.fault_delays())} s.")
    return plot_cluster(stem, run, bands=bands,
                        title="Fig 2 across both hosts: goodput per VM as reservations are set, faults "
                              "raised and DRS migrates (simulated vs paper)",
                        caption=f"First replication (seed {run.seed}, DRS's first pass at "
                                f"{run.first_pass:.0f} s). Shaded per VM: the paper's band after each "
                                f"migration.{note} Runs: {sweep.stamp()}.")
