"""Load a cluster file: its schema, its models, and what the cluster could never admit.

``load_cluster`` reads the TOML (``vsim.config.toml_io``), types it
(``vsim.config.schema_cluster.ClusterConfig``, which checks names, placement rules and events),
loads the models it names (the cluster model, each host's host and NIC models, each VM's vNIC
model) and refuses, as an ``InputError`` naming the file and key (one line, exit 2), what no run
of the cluster could ever admit: a traffic class reserving more than 75 % of some host's uplink,
a pool whose quota is over 75 % of all the uplinks, a VM reservation (at the start or in an
event) that no host could meet even alone or over its pool's quota, and VMs running from the
start that no placement fits. What a run refuses later depends on what runs then, and is
reported by the run, with its reason.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from pathlib import Path

from vsim.cluster.admission import Capacity, Demand
from vsim.cluster.placement import Unit, plan
from vsim.cluster.uplinks import HostUplinks, Pool, SwitchClass
from vsim.config.models import DEFAULT_MODELS_DIR, Model, load_model
from vsim.config.schema_cluster import ClusterConfig, ClusterModel, ClusterVmSection
from vsim.config.schema_models import HostModel, NicModel, VnicModel
from vsim.config.toml_io import load_toml
from vsim.config.typed import from_dict
from vsim.core.errors import InputError
from vsim.net.hclock.tree import RESERVABLE_FRACTION
from vsim.net.sources import make_source
from vsim.net.sources.tcp_stream import TcpStream

MBPS = 1e6
# how to read a model file outside the cluster file's folder: vsim cluster takes no --set
_OUTSIDE = ("a cluster file reads no file outside its own folder and vsim's models; to read it, "
            "put it beside the cluster file, or below")


@dataclass(frozen=True)
class ClusterHost:
    """A host as a run needs it: its uplinks (the NetIOC model of each) and what it can reserve."""

    name: str
    uplinks: HostUplinks
    capacity: Capacity


@dataclass(frozen=True)
class LoadedCluster:
    """A checked cluster file with its models: ``hosts`` in file order, each VM's stream (None:
    it sends nothing) and vNIC model, and every model loaded, by the key that named it."""

    source: str
    config: ClusterConfig
    model: ClusterModel
    hosts: dict[str, ClusterHost]
    streams: dict[str, TcpStream | None]
    vnics: dict[str, VnicModel]
    models: dict[str, Model]

    def fitted_claims(self) -> set[str]:
        """Claim ids any parameter of its models was fitted to."""
        return {claim for model in self.models.values() for claim in model.fitted_claims()}

    def model_files(self) -> dict[str, str]:
        """Per key that names a model, the model it ran with: its ref and the start of its
        SHA-256, as a scenario's results give them (``vsim.config.load.Loaded.model_files``)."""
        return {key: f"{model.ref} sha256:{hashlib.sha256(model.path.read_bytes()).hexdigest()[:12]}"
                for key, model in sorted(self.models.items())}

    def files_read(self) -> list[tuple[str, Path]]:
        """(what, path) of every file the cluster was read from, which no output may replace."""
        return [("the cluster file", Path(self.source))] + [
            (f"the model of {key}", model.path) for key, model in sorted(self.models.items())]

    def demand(self, vm) -> Demand:
        """A VM's reservations as written in its [[vm]] table."""
        return Demand(vm.cpu_reservation, vm.reservation_mbps * MBPS)


def load_cluster(path) -> LoadedCluster:
    """The cluster file at ``path``, typed, with its models and checked (``InputError`` otherwise)."""
    return read_cluster(load_toml(path), str(path), Path(path).parent)


def read_cluster(data, source: str, base: Path) -> LoadedCluster:
    """The cluster of parsed TOML ``data`` read from ``source``, its own model files relative to
    ``base``: typed, with its models and checked (``InputError`` otherwise)."""
    if isinstance(data.get("host"), dict):
        raise InputError(source, "host", "expected [[host]] tables (a cluster file): one [host] table "
                         "makes a scenario, run by vsim run")
    config = from_dict(ClusterConfig, data, source=source)
    models: dict[str, Model] = {}
    read: dict[tuple, Model] = {}  # each model file read once, however many keys name it

    def model(key, ref, cls):
        if (ref, cls) not in read:
            read[(ref, cls)] = load_model(DEFAULT_MODELS_DIR, ref, cls, referrer=source, key=key, base=base,
                                          outside_hint=_OUTSIDE)
        models[key] = read[(ref, cls)]
        return models[key].values

    cluster_model = model("model", config.model, ClusterModel)
    classes = tuple(SwitchClass(c.name, c.shares, c.reservation_mbps * MBPS,
                                math.inf if c.limit_mbps is None else c.limit_mbps * MBPS)
                    for c in config.switch.classes())
    pools = tuple(Pool(p.name, p.shares) for p in config.switch.pool)
    vm_class = next(c for c in classes if c.name == "vm")
    hosts = {}
    for index, spec in enumerate(config.host):
        where = f"host[{index}]"
        host_model = model(f"{where}.model", spec.model, HostModel)
        nic = model(f"{where}.nic", spec.nic, NicModel)
        if not math.isfinite(nic.rate_bps):
            raise InputError(source, f"{where}.nic", f"expected a NIC model with a finite line rate "
                             f"(a cluster's uplinks are physical NICs), got {spec.nic}")
        uplinks = HostUplinks(spec.name, nic, spec.uplinks, classes, pools, source)
        _check_classes(uplinks, source, where)
        cores = host_model.sockets * host_model.cores_per_socket
        hosts[spec.name] = ClusterHost(spec.name, uplinks, Capacity(cores, vm_class.reservation, spec.uplinks))
    streams, vnics = {}, {}
    for index, vm in enumerate(config.vm):
        vnics[vm.name] = model(f"vm[{index}].vnic", vm.vnic, VnicModel)
        streams[vm.name] = _stream(vm, source, f"vm[{index}].traffic")
    loaded = LoadedCluster(source, config, cluster_model, hosts, streams, vnics, models)
    _check_pools(loaded)
    _check_reservations(loaded)
    _check_start(loaded)
    if config.drs.automation == "off":
        for index, vm in enumerate(config.vm):
            if vm.host is None and vm.same_host_as is None:
                raise InputError(source, f"vm[{index}].host", "expected the host it powers on at: with "
                                 "drs.automation = \"off\" nothing places a VM")
    return loaded


def _stream(vm, source, where) -> TcpStream | None:
    """A VM's traffic: a TCP stream (the fluid a cluster's uplinks share), or None."""
    if vm.traffic is None:
        return None
    made = make_source(vm.traffic.kind, vm.traffic.params, source, f"{where}.params")
    if not isinstance(made, TcpStream):
        raise InputError(source, f"{where}.kind", f"expected \"tcp_stream\" (a cluster's VMs send bulk "
                         f"TCP streams), got {vm.traffic.kind!r}")
    return made


def _check_classes(uplinks: HostUplinks, source: str, where: str) -> None:
    """The switch's class reservations fit each uplink of the host (NetIOC's 75 % cap)."""
    try:
        uplinks.class_tree()
    except InputError as error:
        raise InputError(source, "switch.traffic_class", f"{error.expected}, on each uplink of "
                         f"{where} ({uplinks.name}: {uplinks.nic.rate_bps / 1e9:g} Gb/s)") from None


def _check_pools(loaded: LoadedCluster) -> None:
    """Each pool's quota is at most 75 % of all the cluster's uplinks, and the VMs of a pool
    running from the start reserve at most its quota."""
    config, source = loaded.config, loaded.source
    total = sum(h.uplinks.nic.rate_bps * h.uplinks.uplinks for h in loaded.hosts.values())
    cap = RESERVABLE_FRACTION * total
    for index, pool in enumerate(config.switch.pool):
        quota = pool.reservation_mbps * MBPS
        if quota > cap * (1 + 1e-12):
            raise InputError(source, f"switch.pool[{index}].reservation_mbps",
                             f"expected at most {cap / MBPS:g} Mb/s ({RESERVABLE_FRACTION:.0%} of the "
                             f"cluster's {total / 1e9:g} Gb/s of uplinks), got {pool.reservation_mbps:g}")
        start = sum(vm.reservation_mbps for vm in config.vm if vm.pool == pool.name and vm.powered_on)
        if start > pool.reservation_mbps * (1 + 1e-12):
            raise InputError(source, f"switch.pool[{index}].reservation_mbps",
                             f"expected at least the {start:g} Mb/s its VMs running from the start "
                             f"reserve, got {pool.reservation_mbps:g}")


def _check_reservations(loaded: LoadedCluster) -> None:
    """Every reservation the file asks for (a VM's, an event's) could be met by some host alone
    and, for a VM of a pool, within the pool's quota."""
    config, source = loaded.config, loaded.source
    most_cpu = max(h.capacity.cpu for h in loaded.hosts.values())
    most_port = max(h.capacity.port_bandwidth for h in loaded.hosts.values())
    quotas = {pool.name: pool.reservation_mbps for pool in config.switch.pool}
    vms = {vm.name: vm for vm in config.vm}
    asked: list[tuple[str, ClusterVmSection, float | None, float | None]] = [
        (f"vm[{i}]", vm, vm.cpu_reservation, vm.reservation_mbps) for i, vm in enumerate(config.vm)]
    asked += [(f"event[{i}]", vms[e.vm], e.cpu_reservation, e.reservation_mbps)
              for i, e in enumerate(config.event) if e.kind == "reservation" and e.vm is not None]
    for where, vm, cpu, mbps in asked:
        if cpu is not None and cpu > vm.vcpus:
            raise InputError(source, f"{where}.cpu_reservation", f"expected at most {vm.vcpus} CPU"
                             f"{'s' * (vm.vcpus != 1)}, one per vCPU of {vm.name!r}, got {cpu:g}")
        if cpu is not None and cpu > most_cpu * (1 + 1e-12):
            raise InputError(source, f"{where}.cpu_reservation", f"expected at most {most_cpu:g} CPUs, "
                             f"the most cores of a host of the cluster (no host could ever admit it), "
                             f"got {cpu:g}")
        if mbps is None:
            continue
        if mbps * MBPS > most_port * (1 + 1e-12):
            raise InputError(source, f"{where}.reservation_mbps", f"expected at most {most_port / MBPS:g} "
                             f"Mb/s, what the vm class reserves on an uplink for VM ports (no host could "
                             f"ever admit it), got {mbps:g}")
        if vm.pool is not None and mbps > quotas[vm.pool] * (1 + 1e-12):
            raise InputError(source, f"{where}.reservation_mbps", f"expected at most {quotas[vm.pool]:g} "
                             f"Mb/s, the quota of pool {vm.pool!r} (never admitted), got {mbps:g}")


def start_units(loaded: LoadedCluster) -> list[Unit]:
    """The VMs running from the start as units to place (``vsim.cluster.placement``): those that
    run together one unit, on the host named for them if any."""
    config = loaded.config
    anchors = config.together()
    running = [vm for vm in config.vm if vm.powered_on]
    groups: dict[str, list] = {}
    for vm in running:
        groups.setdefault(anchors[vm.name], []).append(vm)
    names = list(groups)
    index = {name: i for i, name in enumerate(names)}
    units = []
    for name in names:
        members = groups[name]
        pinned = next((vm.host for vm in members if vm.host is not None), None)
        apart = {index[anchors[other]] for vm in members for other in vm.apart_from
                 if anchors[other] in index}
        apart |= {index[anchors[vm.name]] for vm in running for other in vm.apart_from
                  if anchors[other] == name}
        units.append(Unit(tuple(vm.name for vm in members), tuple(loaded.demand(vm) for vm in members),
                          sum(vm.memory_mb for vm in members), None,
                          None if pinned is None else (pinned,), frozenset(apart - {index[name]})))
    return units


def _check_start(loaded: LoadedCluster) -> None:
    """The VMs running from the start fit the hosts as the file places them."""
    units = start_units(loaded)
    capacities = {name: host.capacity for name, host in loaded.hosts.items()}
    found = plan(capacities, units)
    if not found.found:
        raise InputError(loaded.source, "vm", f"expected VMs running from the start that the hosts can "
                         f"admit together; {found.reason}")
