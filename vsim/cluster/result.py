"""What a cluster run gives: each VM's throughput as steps over time, and every decision made.

The rates hold between the cluster's interactions (``vsim.cluster.engine``), so a run is a list
of ``Segment``s, each with every VM's goodput and host and every vMotion copy's goodput; the
marks say what happened when (reservation changes admitted, refused or faulted, DRS passes,
vMotions and their switch-overs, host failures, power-ons), the faults when each was raised and
cleared, the migrations their rounds and bytes. Everything derived (a VM's throughput per second,
its bytes on each host, the delay from a fault to the migration that met it) is read from those.
``to_json`` is the plain data, the same for the same file and seed, byte for byte.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Segment:
    """From ``start`` to ``end`` (s): each VM's goodput (b/s), host (None: not on one) and port
    reservation in force there (b/s), each copy's goodput (b/s)."""

    start: float
    end: float
    rates: dict
    hosts: dict
    copies: dict
    reserved: dict


@dataclass(frozen=True)
class Mark:
    """Something that happened at ``t``: its kind, a sentence, the VM and host it concerns."""

    t: float
    kind: str
    text: str
    vm: str | None = None
    host: str | None = None


@dataclass
class Fault:
    """A reservation a VM's host could not meet: when, what was wanted (b/s, CPUs), why, and when
    and how it was cleared (None: still open at the end)."""

    vm: str
    host: str
    at: float
    bandwidth: float
    cpu: float
    reason: str
    cleared_at: float | None = None
    cleared_by: str = ""


@dataclass(frozen=True)
class ClusterResult:
    """One replication of a cluster file."""

    name: str
    config: str
    seed: int
    duration: float
    hosts: list
    vms: list
    segments: list
    marks: list
    faults: list
    migrations: list
    first_pass: float
    period: float | None

    def rates_at(self, t: float) -> dict:
        """Each VM's goodput (b/s) at ``t`` (the segment holding it; the last one's at the end)."""
        for segment in self.segments:
            if segment.start <= t < segment.end:
                return dict(segment.rates)
        return dict(self.segments[-1].rates) if self.segments else {}

    def hosts_at(self, t: float) -> dict:
        """Each VM's host at ``t`` (None: not on one)."""
        for segment in self.segments:
            if segment.start <= t < segment.end:
                return dict(segment.hosts)
        return dict(self.segments[-1].hosts) if self.segments else {}

    def per_second(self, vm: str) -> list[float]:
        """VM ``vm``'s goodput in each whole second of the run, Gb/s."""
        bins = [0.0] * math.ceil(self.duration)
        for segment in self.segments:
            rate = segment.rates.get(vm, 0.0)
            if rate <= 0:
                continue
            second = int(segment.start)
            while second < len(bins) and second < segment.end:
                overlap = min(segment.end, second + 1) - max(segment.start, second)
                bins[second] += rate * overlap / 1e9
                second += 1
        return bins

    def bytes_by_host(self, vm: str) -> dict:
        """Bytes VM ``vm`` sent from each host it ran on."""
        out: dict[str, float] = {}
        for segment in self.segments:
            host = segment.hosts.get(vm)
            rate = segment.rates.get(vm, 0.0)
            if rate > 0:
                assert host is not None  # only a VM on a host sends
                out[host] = out.get(host, 0.0) + rate / 8 * (segment.end - segment.start)
        return out

    def fault_delays(self) -> list[tuple[Fault, float]]:
        """(fault, seconds from it to the end of the migration that met it) for each fault a
        migration cleared."""
        return [(fault, fault.cleared_at - fault.at) for fault in self.faults
                if fault.cleared_at is not None and fault.cleared_by.startswith("migrated")]

    def to_json(self) -> dict:
        """The result as plain data (rates in Gb/s)."""
        return {"name": self.name, "config": self.config, "seed": self.seed, "duration_s": self.duration,
                "hosts": list(self.hosts), "vms": list(self.vms),
                "drs": {"first_pass_s": self.first_pass, "period_s": self.period},
                "segments": [{"start_s": s.start, "end_s": s.end,
                              "gbps": {vm: s.rates[vm] / 1e9 for vm in self.vms},
                              "host": {vm: s.hosts[vm] for vm in self.vms},
                              "reserved_gbps": {vm: s.reserved[vm] / 1e9 for vm in self.vms},
                              "vmotion_gbps": {key: rate / 1e9 for key, rate in s.copies.items()}}
                             for s in self.segments],
                "marks": [asdict(mark) for mark in self.marks],
                "faults": [asdict(fault) for fault in self.faults],
                "migrations": list(self.migrations),
                "bytes": {vm: self.bytes_by_host(vm) for vm in self.vms}}
