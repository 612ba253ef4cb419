"""What ``vsim cluster`` prints and writes: the decisions, the throughput between them, the moves.

The text report lists every decision of the run with its reason (power-ons, reservation
changes admitted, refused or faulted, DRS passes, vMotions and their switch-overs, failures and
restarts), then each VM's goodput and host in every period between two changes, then each
migration (its rounds, bytes and pause, and what its copy took from the other VMs on the
uplink it left) and each fault (how long until it was met). The JSON
is the run's plain data (``ClusterResult.to_json``) with the models read; ``--out`` adds the
figure (``vsim.cluster.figure``) and the report as a file.
"""

from __future__ import annotations

import json
from pathlib import Path

from vsim.cluster.figure import plot_cluster
from vsim.cluster.load import LoadedCluster
from vsim.cluster.result import ClusterResult
from vsim.cluster.vmotion import MB
from vsim.outputs.atomic import write_text

CELL = 13
"""Width of a VM's column in the throughput table: "9.415 host2"."""


def header(loaded: LoadedCluster, result: ClusterResult) -> str:
    """The run's first line: its name, file, seed, length and DRS's passes."""
    drs = ("DRS off" if result.period is None else
           f"DRS every {result.period:g} s from {result.first_pass:.1f} s")
    return f"{result.name}  ({result.config}, seed {result.seed}, {result.duration:g} s, {drs})"


def report_text(loaded: LoadedCluster, result: ClusterResult) -> str:
    """The text report of one run."""
    lines = [header(loaded, result), "hosts"]
    for index, spec in enumerate(loaded.config.host):
        host = loaded.hosts[spec.name]
        lines.append(f"  {spec.name:10s} {spec.model}, {spec.uplinks} x {spec.nic} "
                     f"({host.uplinks.nic.rate_bps / 1e9:g} Gb/s): reserves up to {host.capacity.cpu:g} CPUs "
                     f"and {host.capacity.port_bandwidth / 1e9:.4g} Gb/s of VM ports per uplink")
    lines.append("what happened")
    lines += [f"  {mark.t:9.2f} s  {mark.text}" for mark in result.marks]
    lines.append("goodput (Gb/s) and host of each VM between changes")
    names = list(result.vms)
    lines.append("  " + f"{'from (s)':>9s} {'to (s)':>9s}  " + "".join(f"{name[:CELL - 1]:{CELL}s}" for name in names)
                 + "vMotion")
    for segment in result.segments:
        cells = []
        for name in names:
            host = segment.hosts.get(name)
            cells.append(f"{segment.rates.get(name, 0.0) / 1e9:6.3f} {host or 'off':{CELL - 7}s}"[:CELL].ljust(CELL))
        copies = ", ".join(f"{key.split(':', 1)[1]} {rate / 1e9:.3f}" for key, rate in segment.copies.items())
        lines.append(f"  {segment.start:9.2f} {segment.end:9.2f}  " + "".join(cells) + copies)
    if result.migrations:
        lines.append("migrations")
        for m in result.migrations:
            rounds = len(m["rounds"]) - (1 if m["paused_s"] is not None else 0)
            end = f"{m['ended_s']:.2f} s" if m["ended_s"] is not None else "the end"
            lines.append(f"  {m['vm']} {m['source']} -> {m['target']} ({m['reason']}): {m['outcome']}, "
                         f"{m['started_s']:.2f} s to {end}, {rounds} pre-copy round{'s' * (rounds != 1)}, "
                         f"{m['sent_bytes'] / MB:.0f} MB of {m['memory_bytes'] / MB:.0f} MB memory sent, "
                         f"paused {m['pause_s'] * 1000:.0f} ms")
            changed = copy_effect(result, m)
            if changed:
                lines.append(f"    while its copy left {m['source']}: " + ", ".join(
                    f"{vm} {before / 1e9:.3f} -> {during / 1e9:.3f} Gb/s" for vm, before, during in changed))
    if result.faults:
        lines.append("faults")
        for fault in result.faults:
            cleared = ("still open at the end" if fault.cleared_at is None else
                       f"met {fault.cleared_at - fault.at:.1f} s later ({fault.cleared_by})")
            lines.append(f"  {fault.at:9.2f} s  {fault.vm} on {fault.host}: {fault.bandwidth / 1e9:.4g} Gb/s "
                         f"wanted ({fault.reason}); {cleared}")
    return "\n".join(lines) + "\n"


def copy_effect(result: ClusterResult, migration: dict) -> list[tuple[str, float, float]]:
    """(VM, goodput before, goodput once the copy started), b/s, of the other VMs on the source
    host whose goodput the copy changed."""
    start = migration["started_s"]
    before = next((s for s in reversed(result.segments) if s.end <= start), None)
    during = next((s for s in result.segments if s.start >= start and migration["key"] in s.copies), None)
    if before is None or during is None:
        return []
    return [(vm, before.rates[vm], during.rates[vm]) for vm in result.vms
            if vm != migration["vm"] and during.hosts.get(vm) == migration["source"]
            and before.hosts.get(vm) == migration["source"] and before.rates[vm] != during.rates[vm]]


def report_doc(loaded: LoadedCluster, result: ClusterResult) -> dict:
    """The JSON document of one run: the result and the models it read."""
    return {**result.to_json(), "models": loaded.model_files()}


def report_json(loaded: LoadedCluster, result: ClusterResult) -> str:
    """``report_doc`` as JSON text, the same for the same file and seed."""
    return json.dumps(report_doc(loaded, result), indent=1, allow_nan=False) + "\n"


def output_files(stem: str) -> list[str]:
    """The files ``--out`` writes for a cluster file named ``stem``."""
    return [f"{stem}.png", f"{stem}.svg", "report.txt", "results.json"]


def write_outputs(out, stem: str, loaded: LoadedCluster, result: ClusterResult) -> list[Path]:
    """The figure, the report and the JSON in directory ``out`` (created); the paths written."""
    out = Path(out)
    out.mkdir(exist_ok=True)
    written = plot_cluster(out / stem, result, title=f"{result.name}: goodput per VM across the hosts",
                           caption=f"{header(loaded, result)}. Fluid TCP streams under each uplink's NetIOC "
                                   f"tree; shaded: vMotion; markers: the moving VM's switch-over pause.")
    write_text(out / "report.txt", report_text(loaded, result))
    write_text(out / "results.json", report_json(loaded, result))
    return written + [out / "report.txt", out / "results.json"]
