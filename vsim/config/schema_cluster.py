"""Typed schema of a cluster file (``vsim cluster``) and of the cluster model (``models/clusters/``).

A cluster file describes several hosts joined by a distributed switch: ``[[host]]`` (each
host's model, NIC model and uplinks), ``[switch]`` (the switch's NetIOC traffic classes,
reserved on every uplink, and its network resource pools, whose reservation is a quota over
the whole switch), ``[[vm]]`` (each VM: where it powers on, its CPU and bandwidth
reservations, shares and limit, its memory for vMotion, its traffic and its placement
rules), ``[drs]`` and ``[ha]`` (the balancer and the restart of a failed host's VMs) and
``[[event]]`` (reservation changes, migrations, host failures and VMs added, at set
times). Everything here is checked on its own; the checks against the models (what a host
can reserve) are ``vsim.cluster.load``'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from vsim.config.schema_fields import non_negative, positive
from vsim.config.schema_sections import TrafficSection
from vsim.config.typed import fail, join_path


@dataclass(frozen=True)
class ClusterModel:
    """A cluster's management: how often DRS runs, how HA restarts a failed host's VMs, and how
    vMotion copies a VM's memory and switches it over."""

    drs_period: float = field(metadata=positive("s", "time between two DRS passes (a fault waits for "
                                                     "the next)"))
    ha_detection: float = field(metadata=non_negative(
        "s", "time from a host's failure to HA declaring it failed and restarting its VMs"))
    ha_boot: float = field(metadata=non_negative(
        "s", "time from a VM's restart to its traffic resuming (the guest's boot)"))
    vmotion_dirty_rate: float = field(metadata=non_negative(
        "MB/s", "memory a running guest dirties per second, sent again in the next pre-copy round "
                "(a VM's own dirty_mb_per_s overrides it)"))
    vmotion_switchover_target: float = field(metadata=positive(
        "s", "pre-copy ends once what is left to send would take at most this long at the rate "
             "the copy gets: the VM is then paused and the rest sent"))
    vmotion_switchover_overhead: float = field(metadata=non_negative(
        "s", "the pause beyond sending the last dirty pages: device state, resuming on the "
             "destination, the switch learning the VM's new port"))
    vmotion_max_rounds: int = field(metadata={
        "min": 1, "doc": "most pre-copy rounds before the switch-over, converged or not"})
    vmotion_tso_frames: int = field(metadata={
        "min": 1, "doc": "MTU frames per TSO segment the VMkernel's vMotion stream sends"})


def is_cluster_file(data) -> bool:
    """Whether parsed TOML ``data`` is a cluster file: its hosts are ``[[host]]`` tables, where a
    scenario has one ``[host]`` table."""
    return isinstance(data, dict) and isinstance(data.get("host"), list)


NETIOC_CLASSES = ("management", "vm", "vmotion", "nfs", "iscsi", "ft", "vsan", "replication", "backup")
"""NetIOC v3's system traffic classes (vSphere 6): VM ports go under "vm", migrations under "vmotion"."""


@dataclass(frozen=True)
class ClusterRunSection:
    """[run]: how long a cluster run is, its seed and its replications."""

    duration: float = field(default=600.0, metadata=positive("s", "simulated time per replication"))
    seed: int = field(default=1, metadata={"min": 0, "doc": "seed of the first replication"})
    replications: int = field(default=1, metadata={
        "min": 1, "doc": "runs with seeds seed, seed + 1, ... (vsim reproduce; vsim cluster runs "
                         "the first)"})


@dataclass(frozen=True)
class ClusterHostSection:
    """[[host]]: one host of the cluster and its uplinks on the distributed switch."""

    name: str = field(metadata={"doc": "host name, unique in the cluster"})
    model: str = field(default="hosts/hp_dl380g7_x5660", metadata={
        "doc": "host model (its cores are what CPU reservations are admitted against): hosts/NAME, "
               "or a file of your own (NAME.toml, relative to this file)"})
    nic: str = field(default="nics/intel_82599_10gbe", metadata={
        "doc": "NIC model of each of its uplinks: nics/NAME, or a file of your own"})
    uplinks: int = field(default=1, metadata={"min": 1, "max": 16,
                                              "doc": "physical NICs joined to the switch"})


@dataclass(frozen=True)
class TrafficClassSection:
    """[[switch.traffic_class]]: a NetIOC traffic class, its tags applied on every uplink."""

    name: Literal["management", "vm", "vmotion", "nfs", "iscsi", "ft", "vsan", "replication",
                  "backup"] = field(metadata={"doc": "the class: VM ports are under vm, vMotion's "
                                                     "copies under vmotion"})
    shares: float = field(default=50.0, metadata=positive(None, "weight for what reservations leave "
                                                                "(Low 25, Normal 50, High 100)"))
    reservation_mbps: float = field(default=0.0, metadata=non_negative(
        "Mb/s", "reserved on each uplink; under vm, the most the VM ports on one uplink may reserve"))
    limit_mbps: float | None = field(default=None, metadata=positive("Mb/s", "most it may send on an uplink"))


@dataclass(frozen=True)
class NetworkPoolSection:
    """[[switch.pool]]: a network resource pool of VM traffic, its reservation a quota over the switch."""

    name: str = field(metadata={"doc": "pool name, unique on the switch"})
    reservation_mbps: float = field(default=0.0, metadata=non_negative(
        "Mb/s", "quota: the most its VMs' reservations may add up to, wherever they run"))
    shares: float = field(default=50.0, metadata=positive(None, "its weight beside the other pools "
                                                                "and ports of VM traffic on an uplink"))


def _default_classes() -> tuple[TrafficClassSection, ...]:
    """vSphere 6's default shares for the classes a cluster run carries: VM traffic High, vMotion Normal."""
    return (TrafficClassSection("vm", 100.0), TrafficClassSection("vmotion", 50.0))


@dataclass(frozen=True)
class SwitchSection:
    """[switch]: the distributed switch joining the hosts' uplinks, with its NetIOC settings."""

    name: str = field(default="dvs", metadata={"doc": "the switch's name, for reports"})
    traffic_class: tuple[TrafficClassSection, ...] = field(default_factory=tuple, metadata={
        "doc": "the traffic classes ([[switch.traffic_class]]; none: vm with shares 100 and vmotion "
               "with 50, nothing reserved, vSphere 6's defaults); vm and vmotion must be among them"})
    pool: tuple[NetworkPoolSection, ...] = field(default_factory=tuple, metadata={
        "doc": "network resource pools of VM traffic ([[switch.pool]])"})

    def validate(self, source, path):
        """Each class and pool named once; the classes VMs and migrations need are there."""
        _unique([c.name for c in self.traffic_class], source, join_path(path, "traffic_class"), "class")
        _unique([p.name for p in self.pool], source, join_path(path, "pool"), "pool")
        names = {c.name for c in self.classes()}
        for needed in ("vm", "vmotion"):
            if needed not in names:
                fail(source, join_path(path, "traffic_class"),
                     f"expected a traffic class named {needed!r} (VM ports go under vm, vMotion's "
                     f"copies under vmotion)")


    def classes(self) -> tuple[TrafficClassSection, ...]:
        """The traffic classes the switch applies: those given, or vSphere 6's defaults."""
        return self.traffic_class or _default_classes()


@dataclass(frozen=True)
class ClusterVmSection:
    """[[vm]]: one VM: where it powers on, its reservations, its memory and traffic, its placement rules."""

    name: str = field(metadata={"doc": "VM name, unique in the cluster"})
    host: str | None = field(default=None, metadata={
        "doc": "the host it powers on at (none: DRS places it, or its same_host_as VM's host)"})
    powered_on: bool = field(default=True, metadata={
        "doc": "whether it runs from the start; false: a vm_added event powers it on"})
    vcpus: int = field(default=1, metadata={"min": 1, "doc": "virtual CPUs"})
    memory_mb: float = field(default=2048.0, metadata=positive("MB", "memory, all of which vMotion copies"))
    dirty_mb_per_s: float | None = field(default=None, metadata=non_negative(
        "MB/s", "memory it dirties per second while running (default: the cluster model's "
                "vmotion_dirty_rate)"))
    cpu_reservation: float = field(default=0.0, metadata=non_negative(
        "CPUs", "CPU reserved, admitted against its host's cores"))
    pool: str | None = field(default=None, metadata={
        "doc": "the network resource pool its port belongs to (none: directly in VM traffic)"})
    shares: float = field(default=50.0, metadata=positive(None, "its port's weight for what "
                                                                "reservations leave"))
    reservation_mbps: float = field(default=0.0, metadata=non_negative(
        "Mb/s", "bandwidth its port reserves, admitted on its host's uplink"))
    limit_mbps: float | None = field(default=None, metadata=positive("Mb/s", "most its port may send"))
    vnic: str = field(default="vnics/vmxnet3", metadata={
        "doc": "vNIC model (its TSO segments set the bytes NetIOC counts): vnics/NAME or a file"})
    traffic: TrafficSection | None = field(default=None, metadata={
        "doc": "what it sends ([vm.traffic], a tcp_stream; none: nothing)"})
    same_host_as: str | None = field(default=None, metadata={
        "doc": "placement rule: it runs on the host of this VM, placed before it, and moves with it"})
    apart_from: tuple[str, ...] = field(default_factory=tuple, metadata={
        "doc": "placement rule: it never runs on a host of these VMs"})

    def validate(self, source, path):
        """A CPU reservation its vCPUs can use; a limit at least its reservation; rules naming others."""
        if self.cpu_reservation > self.vcpus:
            fail(source, join_path(path, "cpu_reservation"),
                 f"expected at most {self.vcpus} CPU{'s' * (self.vcpus != 1)} (one per vCPU), got "
                 f"{self.cpu_reservation:g}")
        if self.limit_mbps is not None and self.limit_mbps < self.reservation_mbps:
            fail(source, join_path(path, "limit_mbps"), f"expected a limit of at least the reservation "
                 f"{self.reservation_mbps:g} Mb/s, got {self.limit_mbps:g}")
        if self.same_host_as == self.name:
            fail(source, join_path(path, "same_host_as"), "expected another VM's name, got its own")
        if self.name in self.apart_from:
            fail(source, join_path(path, "apart_from"), "expected other VMs' names, got its own")


EVENT_KINDS = ("reservation", "migrate", "host_failure", "vm_added")


@dataclass(frozen=True)
class ClusterEventSection:
    """[[event]]: something that happens to the cluster at a set time."""

    at: float = field(metadata=non_negative("s", "when it happens"))
    kind: Literal["reservation", "migrate", "host_failure", "vm_added"] = field(metadata={
        "doc": "reservation: a VM's reservations change (admitted, refused or faulted); migrate: a "
               "vMotion of vm to host; host_failure: host fails and HA restarts its VMs; vm_added: "
               "vm (powered_on = false) powers on"})
    vm: str | None = field(default=None, metadata={"doc": "the VM (reservation, migrate, vm_added)"})
    host: str | None = field(default=None, metadata={
        "doc": "migrate: the destination; host_failure: the host that fails"})
    reservation_mbps: float | None = field(default=None, metadata=non_negative(
        "Mb/s", "reservation: the VM's new bandwidth reservation"))
    cpu_reservation: float | None = field(default=None, metadata=non_negative(
        "CPUs", "reservation: the VM's new CPU reservation"))

    def validate(self, source, path):
        """The keys its kind needs, and none it ignores."""
        needs = {"reservation": ("vm",), "migrate": ("vm", "host"), "host_failure": ("host",),
                 "vm_added": ("vm",)}[self.kind]
        for key in ("vm", "host"):
            if key in needs and getattr(self, key) is None:
                fail(source, join_path(path, key), f"expected the {key} a {self.kind} event is about")
            if key not in needs and getattr(self, key) is not None:
                fail(source, join_path(path, key), f"expected no {key} in a {self.kind} event")
        rates = (self.reservation_mbps, self.cpu_reservation)
        if self.kind == "reservation" and rates == (None, None):
            fail(source, join_path(path, "reservation_mbps"),
                 "expected reservation_mbps or cpu_reservation (or both): the new reservation")
        if self.kind != "reservation":
            for key, value in zip(("reservation_mbps", "cpu_reservation"), rates):
                if value is not None:
                    fail(source, join_path(path, key), f"expected no {key} in a {self.kind} event")


@dataclass(frozen=True)
class DrsSection:
    """[drs]: the balancer: whether it moves VMs, and when it runs."""

    automation: Literal["fully_automated", "off"] = field(default="fully_automated", metadata={
        "doc": "fully_automated: DRS places VMs at power-on and migrates them to meet reservations; "
               "off: a VM powers on only on its own host, and a change its host cannot meet is refused"})
    period_s: float | None = field(default=None, metadata=positive(
        "s", "time between passes (default: the cluster model's drs_period)"))
    first_pass_s: float | None = field(default=None, metadata=non_negative(
        "s", "time of the first pass (default: drawn for each replication, uniformly within the "
             "first period)"))


@dataclass(frozen=True)
class HaSection:
    """[ha]: whether a failed host's VMs are restarted on the others."""

    enabled: bool = field(default=True, metadata={"doc": "restart a failed host's VMs elsewhere"})
    restart_delay_s: float | None = field(default=None, metadata=non_negative(
        "s", "time from the failure to the restart (default: the cluster model's ha_detection)"))


@dataclass(frozen=True)
class ClusterConfig:
    """A whole cluster file: its hosts, switch, VMs, balancer and events, typed and checked."""

    name: str = field(metadata={"doc": "what this cluster run shows"})
    study: str | None = field(default=None, metadata={
        "doc": "the study of the claims file whose claims it reproduces (a study's recipe runs "
               "only cluster files that name it)"})
    model: str = field(default="clusters/vsphere6", metadata={
        "doc": "the cluster model (DRS, HA and vMotion): clusters/NAME or a file of your own"})
    run: ClusterRunSection = field(default_factory=ClusterRunSection)
    host: tuple[ClusterHostSection, ...] = field(default_factory=tuple, metadata={
        "doc": "the hosts ([[host]] tables), at least one"})
    switch: SwitchSection = field(default_factory=SwitchSection)
    vm: tuple[ClusterVmSection, ...] = field(default_factory=tuple, metadata={
        "doc": "the VMs ([[vm]] tables)"})
    drs: DrsSection = field(default_factory=DrsSection)
    ha: HaSection = field(default_factory=HaSection)
    event: tuple[ClusterEventSection, ...] = field(default_factory=tuple, metadata={
        "doc": "what happens, at set times ([[event]] tables, in any order)"})

    def validate(self, source, path):
        """Names that exist and are used once, a VM on one host only, placement rules without
        cycles or contradictions, and events about VMs and hosts of the cluster."""
        if not self.host:
            fail(source, "host", "expected at least one [[host]] table")
        _unique([h.name for h in self.host], source, "host", "host")
        hosts = [h.name for h in self.host]
        first: dict[str, int] = {}
        for index, vm in enumerate(self.vm):
            where = f"vm[{index}]"
            if vm.name in first:
                twin = self.vm[first[vm.name]]
                if twin.host != vm.host and None not in (twin.host, vm.host):
                    fail(source, f"{where}.host", f"expected VM {vm.name!r} on one host; it is on "
                         f"{twin.host!r} (vm[{first[vm.name]}]) and on {vm.host!r}")
                fail(source, f"{where}.name", f"expected a VM name used once, got {vm.name!r} "
                     f"(also vm[{first[vm.name]}])")
            first[vm.name] = index
            if vm.host is not None and vm.host not in hosts:
                fail(source, f"{where}.host", f"expected a host of the cluster ({', '.join(hosts)}), "
                     f"got {vm.host!r}")
            if vm.pool is not None and vm.pool not in {p.name for p in self.switch.pool}:
                fail(source, f"{where}.pool", f"expected a pool of the switch "
                     f"({', '.join(p.name for p in self.switch.pool) or 'none defined'}), got {vm.pool!r}")
        names = list(first)
        for index, vm in enumerate(self.vm):
            for key, others in (("same_host_as", [vm.same_host_as] if vm.same_host_as else []),
                                ("apart_from", list(vm.apart_from))):
                for other in others:
                    if other not in first:
                        fail(source, f"vm[{index}].{key}", f"expected a VM of the cluster, got {other!r}")
        self._check_rules(source)
        self._check_events(source, hosts, names)

    def _check_rules(self, source):
        """same_host_as chains end at a VM placed on its own (no cycle); a chain's VMs named on
        hosts agree, none runs from the start without the VM it follows, and none of them is kept
        apart from another."""
        by_name = {vm.name: (index, vm) for index, vm in enumerate(self.vm)}
        for index, vm in enumerate(self.vm):
            chain, anchor = [vm.name], vm
            while anchor.same_host_as is not None:
                if anchor.same_host_as in chain:
                    loop = chain[chain.index(anchor.same_host_as):] + [anchor.same_host_as]
                    fail(source, f"vm[{index}].same_host_as", "expected placement rules without a "
                         f"cycle (a VM placed before the one it follows), got {' -> '.join(loop)}")
                chain.append(anchor.same_host_as)
                anchor = by_name[anchor.same_host_as][1]
            if vm.host is not None and anchor.host is not None and vm.host != anchor.host:
                fail(source, f"vm[{index}].host", f"expected {anchor.host!r}, the host of {anchor.name!r} "
                     f"that {vm.name!r} runs with (same_host_as), got {vm.host!r}")
            if vm.powered_on and not anchor.powered_on:
                fail(source, f"vm[{index}].powered_on", f"expected false, as {anchor.name!r} that it "
                     f"runs with (same_host_as), which a vm_added event powers on later")
        groups = self.together()
        for index, vm in enumerate(self.vm):
            for other in vm.apart_from:
                if groups[other] == groups[vm.name]:
                    fail(source, f"vm[{index}].apart_from", f"expected VMs it may run apart from; "
                         f"{other!r} runs on its host by same_host_as rules")

    def together(self):
        """{VM name: the VM its same_host_as rules lead to}: VMs with the same one run together."""
        by_name = {vm.name: vm for vm in self.vm}
        anchors = {}
        for vm in self.vm:
            current = vm
            while current.same_host_as is not None:
                current = by_name[current.same_host_as]
            anchors[vm.name] = current.name
        return anchors

    def _check_events(self, source, hosts, names):
        """Events name VMs and hosts of the cluster; a VM is added once, and only one powered off."""
        added: dict[str, int] = {}
        powered = {vm.name: vm.powered_on for vm in self.vm}
        for index, event in enumerate(self.event):
            where = f"event[{index}]"
            if event.vm is not None and event.vm not in names:
                fail(source, f"{where}.vm", f"expected a VM of the cluster ({', '.join(names) or 'none'}), "
                     f"got {event.vm!r}")
            if event.host is not None and event.host not in hosts:
                what = "the destination of a migration" if event.kind == "migrate" else "the host"
                fail(source, f"{where}.host", f"expected {what}: a host of the cluster "
                     f"({', '.join(hosts)}), got {event.host!r}")
            if event.kind == "vm_added" and event.vm is not None:
                if powered[event.vm]:
                    fail(source, f"{where}.vm", f"expected a VM with powered_on = false; {event.vm!r} "
                         f"already runs from the start (it would run twice)")
                if event.vm in added:
                    fail(source, f"{where}.vm", f"expected each VM added once; {event.vm!r} is also "
                         f"added by event[{added[event.vm]}]")
                added[event.vm] = index

    def events_in_order(self):
        """(index in the file, event) by time, events at one time in file order."""
        return sorted(enumerate(self.event), key=lambda item: (item[1].at, item[0]))


def _unique(names, source, path, what):
    """Each of ``names`` (of the tables at ``path``) once."""
    seen: dict[str, int] = {}
    for index, name in enumerate(names):
        if name in seen:
            fail(source, f"{path}[{index}].name", f"expected a {what} name used once, got {name!r} "
                 f"(also {path}[{seen[name]}])")
        seen[name] = index
