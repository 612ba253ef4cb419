"""Typed schema of a scenario's tables other than ``[sweep]``: ``[run]``, ``[host]``,
``[vm]``, ``[measured_vm]``, ``[client]``, ``[[group]]`` (with its traffic),
``[netioc]``, ``[htb]`` and ``[validate]``.

Each class is one table; its ``validate`` method holds the checks that need
more than one of its keys (the checks against the models are in
``vsim.config.load``).
"""

from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass, field
from typing import Literal

from vsim.core.errors import InputError, InputNote

from vsim.config.schema_fields import non_negative, positive
from vsim.config.tree_tables import check_tree_tables
from vsim.config.cpu_settings import limit_beyond_vcpus
from vsim.config.typed import fail, join_path
from vsim.config import tolerances as validate_tolerances


DEFAULT_WARMUP = 5.0  # s: [run]'s warm-up when the file sets none

PHASES_DOC = ("fixed phases of the worker vCPUs' ticks, s from the run's start, each below the "
              "codec's packet interval: vCPU j of VM i takes phases[(i x vcpus + j) "
              "mod the list's length] (vcpus entries give every VM the same phases, instances x "
              "vcpus each worker its own, one entry puts every worker on it); the timer's "
              "lateness is still added to each tick; in place of the workload model's drawn "
              "(or aligned_phases) ones (default: those)")


def check_phase_list(phases, source, path):
    """A phase list, when given, has a phase (the bound by the codec is checked against the
    models: ``vsim.build.checks.check_phases``)."""
    if phases is not None and not phases:
        fail(source, join_path(path, "phases"), "expected at least one phase (s), got an empty list")


def phases_of(phases, index, vcpus):
    """The phases of the ``vcpus`` worker vCPUs of a group's VM ``index``: the group's list read
    cyclically from that VM's first vCPU (``PHASES_DOC``); None when the group gives none."""
    if phases is None:
        return None
    return tuple(phases[(index * vcpus + j) % len(phases)] for j in range(vcpus))


@dataclass(frozen=True)
class RunSection:
    """[run]: run length, warm-up, base seed and replications per point."""

    duration: float = field(default=300.0, metadata=positive("s", "simulated time per replication"))
    warmup: float = field(default=DEFAULT_WARMUP, metadata=non_negative("s", "time discarded before measuring"))
    seed: int = field(default=1, metadata={"min": 0, "doc": "base seed of the replications"})
    replications: int = field(default=5, metadata={"min": 1, "doc": "independent runs per point"})

    def validate(self, source, path, given=frozenset()):
        """A duration longer than the warm-up; a warm-up the table does not set (in ``given``)
        is called the default, one it sets is not. The refusal rests on the duration too, so
        a ``--set`` of either is named."""
        if self.warmup >= self.duration:
            origin = " (set, not the default)" if "warmup" in given else (
                f" (the default, used when run.warmup is not set), which is not shorter than the run "
                f"({self.duration} s); set run.warmup, e.g. to "
                f"{self.duration / 2:g} (half the run, as --duration does)")
            raise InputError(source, join_path(path, "warmup"),
                             f"expected a warmup shorter than the duration ({self.duration} s), got "
                             f"{self.warmup}{origin}", (join_path(path, "duration"),))


@dataclass(frozen=True)
class HostSection:
    """[host]: the host, scheduler and NIC models and how the host runs its VMs."""

    model: str = field(default="hosts/dell_r710_x5690", metadata={
        "doc": "host model: hosts/NAME in vsim's models/, or a file of your own (NAME.toml, relative "
               "to this file)"})
    scheduler: str = field(default="schedulers/esx5_proportional_share",
                           metadata={"doc": "CPU scheduler model: schedulers/NAME, or a file of your "
                                             "own (NAME.toml)"})
    nic: str = field(default="nics/broadcom_netxtreme2_1gbe", metadata={"doc": "uplink NIC model"})
    hyperthreading: bool = field(default=True, metadata={"doc": "use both threads of each core"})
    numa_home_nodes: bool = field(default=False, metadata={
        "doc": "confine each VM's vCPUs to one socket, its NUMA home node (VMs dealt round-robin "
               "over the sockets); the hypervisor's transmit worlds stay unconfined"})
    uplink: Literal["fifo", "multiqueue", "netioc", "pfifo", "htb"] = field(default="fifo", metadata={
        "doc": "uplink scheduler: one drop-tail FIFO, NIC transmit queues served round robin, "
               "NetIOC over the [netioc] tree, Linux's pfifo qdisc (the NIC model's rate and "
               "queue_packets as its limit, bytes counted as tc does) or Linux's htb over the "
               "[htb] classes"})
    uplink_queues: int = field(default=4, metadata={
        "min": 1, "doc": "NIC transmit queues of the multiqueue uplink"})
    background_tasks: int = field(default=0, metadata={
        "min": 0, "doc": "always-runnable CPU-bound tasks outside the VMs, each in a group of its "
                         "own at the default weight: the host's other work"})
    steal_trace: str | None = field(default=None, metadata={
        "doc": "a steal trace (vsim probe steal; path relative to this file) replayed on the logical "
               "CPUs: logical CPU i loses trace CPU (i mod N)'s stolen time in each interval, at its "
               "start, to an outer hypervisor that preempts everything (none: no steal)"})


@dataclass(frozen=True)
class VmSection:
    """[vm]: the identical media-server VMs: size, load, models and CPU settings."""

    instances: int = field(default=1, metadata={"min": 0, "doc": "identical media-server VMs "
                                                               "(0: only [[group]] VMs)"})
    vcpus: int = field(default=4, metadata={"min": 1, "doc": "vCPUs per VM"})
    streams_per_instance: int = field(default=120, metadata={"min": 0, "doc": "load streams per VM"})
    workload: str = field(default="workloads/vmcd_g729", metadata={"doc": "workload model"})
    vnic: str = field(default="vnics/vmxnet3", metadata={"doc": "virtual NIC model"})
    shares: float | None = field(default=None, metadata={"min": 1, "min_exclusive": False,
                                                         "doc": "CPU shares (default 1000 per vCPU)"})
    reservation: float = field(default=0.0, metadata=non_negative("CPUs", "CPU reservation per VM"))
    limit: float | None = field(default=None, metadata=positive("CPUs", "CPU limit per VM"))
    affinity: list[int] | None = field(default=None, metadata={"min": 0,
                                       "doc": "logical CPUs the VMs' vCPUs may run on"})
    background_burst: float | None = field(default=None, metadata=non_negative(
        "s", "core-seconds of each guest background burst, queued with the media ticks on a "
             "random worker vCPU (0: none; default: the workload model's)"))
    background_interval: float | None = field(default=None, metadata=positive(
        "s", "mean time between one VM's background bursts, Poisson arrivals (default: the "
             "workload model's)"))
    phases: list[float] | None = field(default=None, metadata=non_negative("s", PHASES_DOC))

    def vm_phases(self, index):
        """The phases of VM ``index``'s worker vCPUs (``phases_of``), None when not given."""
        return phases_of(self.phases, index, self.vcpus)

    def background(self, workload):
        """(burst, interval) of guest background work: this section's, else the workload model's."""
        burst = workload.background_burst if self.background_burst is None else self.background_burst
        interval = (workload.background_interval if self.background_interval is None
                    else self.background_interval)
        return burst, interval

    def validate(self, source, path):
        """No limit below the reservation, distinct affinity CPUs."""
        if self.limit is not None and self.limit < self.reservation:
            fail(source, f"{path}.limit", f"expected a limit >= the reservation ({self.reservation}), "
                 f"got {self.limit}")
        if self.affinity is not None and len(set(self.affinity)) != len(self.affinity):
            fail(source, f"{path}.affinity", "expected distinct logical CPU numbers")
        check_phase_list(self.phases, source, path)


@dataclass(frozen=True)
class MeasuredVmSection:
    """CPU settings of the measured VM (the first, which hosts the measuring conference).

    Unset keys take [vm]'s values, so a scenario can give the one VM whose
    jitter is measured more shares, a reservation or a limit than its
    neighbours: the what-if of protecting a latency-sensitive VM.
    """

    shares: float | None = field(default=None, metadata={
        "min": 1, "min_exclusive": False, "doc": "CPU shares of the measured VM (default: as [vm])"})
    reservation: float | None = field(default=None, metadata=non_negative(
        "CPUs", "CPU reservation of the measured VM (default: as [vm])"))
    limit: float | None = field(default=None, metadata=positive(
        "CPUs", "CPU limit of the measured VM (default: as [vm])"))

    def overrides(self):
        """The keys this section sets, with their values."""
        return {name: value for name, value in asdict(self).items() if value is not None}


@dataclass(frozen=True)
class ClientSection:
    """[client]: the measuring client's model and conference, and the jitter buffer."""

    model: str = field(default="clients/measuring_client", metadata={"doc": "measuring client model"})
    measuring_conference: bool = field(default=True, metadata={
        "doc": "add the measuring conference to the first media-server VM ([vm]'s first, or the "
               "first media-server [[group]]'s when vm.instances = 0)"})
    jitter_buffer: Literal["fixed", "adaptive"] = field(default="fixed", metadata={
        "doc": "the receivers' jitter buffer: a fixed playout delay or Ramjee et al.'s adaptive "
               "one (its parameters in the client model); late packets count as lost"})
    jitter_buffer_nominal: float | None = field(default=None, metadata=positive(
        "s", "the fixed jitter buffer's playout delay beyond the first packet's network delay "
             "(default: the client model's)"))

    def validate(self, source, path):
        """A nominal delay only for the fixed buffer."""
        if self.jitter_buffer_nominal is not None and self.jitter_buffer != "fixed":
            fail(source, f"{path}.jitter_buffer_nominal",
                 f'expected no nominal delay with jitter_buffer = "{self.jitter_buffer}" '
                 '(it applies to the fixed jitter buffer only)')


@dataclass(frozen=True)
class TrafficSection:
    """Traffic a group's VMs send, one source each, from the registry of sources."""

    kind: str = field(metadata={"doc": "traffic source: udp_flood, tcp_stream, nfs_read (bulk "
                                       "fluids), "
                                       "tcp_rr (request/response transactions, closed loop), "
                                       "packets_replay (a packets trace's packets at their "
                                       "recorded send times, open loop), sipp_uac (a SIP "
                                       "server's client) or web_users (a web application's "
                                       "closed-loop users) (vsim.net.sources)"})
    params: dict[str, bool | int | float | str] = field(default_factory=dict, metadata={
        "doc": "the source's parameters per VM (udp_flood: pps, ip_bytes, on, off, arrivals "
               "(\"paced\", \"poisson\" or \"batched\" on wake-ups: wakeup, wakeup_median, "
               "wakeup_sigma, write_spacing, stall_share, stall_mean, wakeup_phase, send_buffer), ...; tcp_stream: "
               "mtu, window_bytes, rtt; nfs_read: "
               "rtt, block_bytes, workers, mtu; tcp_rr: "
               "request_bytes, response_bytes, outstanding, think_time, timestamps; packets_replay: "
               "trace (a packets trace, path relative to this file), stream, traffic_class (keep "
               "one stream's or class's packets), offset (s from the traffic's start to the first "
               "packet); web_users: users, think_time (mean, s))"})
    active_from: float = field(default=0.0, metadata={
        "min": 0, "max": 1, "doc": "fraction of the run after which the traffic starts, so a "
                                   "shortened run keeps the scenario's shape"})
    active_until: float = field(default=1.0, metadata={
        "min": 0, "max": 1, "min_exclusive": True,
        "doc": "fraction of the run after which the traffic stops"})

    def validate(self, source, path):
        """The traffic stops after it starts; its times are fractions of the run only."""
        if self.active_until <= self.active_from:
            fail(source, f"{path}.active_from", f"active_from {self.active_from} must be before "
                 f"active_until {self.active_until} (fractions of the run)")
        for name in ("start", "stop"):
            if name in self.params:
                fail(source, f"{path}.params.{name}",
                     "no absolute start or stop: use active_from and active_until")


@dataclass(frozen=True)
class GroupSection:
    """A group of identical VMs beside [vm]'s: its own size, CPU settings, workload and traffic."""

    name: str = field(metadata={"doc": "group name; its VMs are NAME[0], NAME[1], ..."})
    count: int = field(default=1, metadata={"min": 1, "doc": "VMs in the group"})
    vcpus: int = field(default=1, metadata={"min": 1, "doc": "vCPUs per VM"})
    workload: Literal["media_server", "idle", "cpu_bound", "sip_server", "web_app", "dom0",
                      "tcp_receiver", "disk_benchmark"] = field(default="idle", metadata={
        "doc": "what the guest runs: a media server (model, streams), nothing but its traffic, "
               "CPU work at cpu_demand of each vCPU (a noisy neighbour, vsim.guest.cpu_bound), "
               "a SIP server (model: a sip_servers/ model; gc: its JVM's collector) answering the "
               "SIPp client its traffic table names (kind = \"sipp_uac\"), which runs off the host, "
               "a two-tier web application (model: a web_apps/ model; each of the group's count "
               "is a web VM and a database VM of vcpus each, vsim.guest.web_app) answering the "
               "closed-loop users its traffic table names (kind = \"web_users\"), "
               "or Xen's driver domain (one VM, vsim.guest.driver_domain) whose vCPUs carry every "
               "SIP server's messages in and out at the server model's dom0_message each, "
               "or a TCP bulk receiver fed from another machine (model: a tcp_receivers/ model, "
               "vsim.guest.tcp_receiver: nttcp's receiving side), its segments through the "
               "driver domain when there is one, or a disk benchmark (model: a disk_benchmarks/ "
               "model, vsim.guest.disk_benchmark: IOzone's side), its requests through the driver "
               "domain when there is one to a disk of its model"})
    cpu_demand: float = field(default=1.0, metadata={
        "min": 0, "min_exclusive": True, "max": 1,
        "doc": "a cpu_bound VM's demand: the share of each vCPU's time it wants (1: always runnable)"})
    cpu_burst: float = field(default=0.01, metadata=positive(
        "s", "a cpu_bound VM's bursts of work when cpu_demand < 1, in core-seconds, between idle "
             "gaps that make the demand"))
    model: str = field(default="workloads/vmcd_g729", metadata={
        "doc": "workload model of a media server (workloads/...), of a SIP server (sip_servers/...) "
               "of a TCP receiver (tcp_receivers/...), of a disk benchmark (disk_benchmarks/...) "
               "or of a web application (web_apps/...)"})
    gc: str | None = field(default=None, metadata={
        "doc": "a SIP server's JVM collector model (jvm_gc/...; none: no collection pauses)"})
    streams: int = field(default=0, metadata={"min": 0, "doc": "a media server's streams per VM: "
                                                             "> 0 with workload = \"media_server\" "
                                                             "(unused by an idle VM)"})
    vnic: str = field(default="vnics/vmxnet3", metadata={"doc": "virtual NIC model"})
    stack: str | None = field(default=None, metadata={
        "doc": "a tcp_stream sender's guest network stack (netstacks/...): its vCPU's and the "
               "hypervisor's CPU per frame from vsim.net.stack's per-packet and per-byte costs, "
               "with the device of its vnic (none: the vnic model's tx_cost and guest_tx_cost)"})
    shares: float | None = field(default=None, metadata={"min": 1, "min_exclusive": False,
                                                         "doc": "CPU shares (default 1000 per vCPU)"})
    reservation: float = field(default=0.0, metadata=non_negative("CPUs", "CPU reservation per VM"))
    limit: float | None = field(default=None, metadata=positive("CPUs", "CPU limit per VM"))
    traffic: TrafficSection | None = field(default=None, metadata={
        "doc": "bulk traffic each VM sends (none: only its workload's frames)"})
    phases: list[float] | None = field(default=None, metadata=non_negative(
        "s", "a media server's " + PHASES_DOC))

    def vm_phases(self, index):
        """The phases of VM ``index``'s worker vCPUs (``phases_of``), None when not given."""
        return phases_of(self.phases, index, self.vcpus)

    def background(self, workload):
        """(burst, interval) of guest background work: the workload model's."""
        return workload.background_burst, workload.background_interval

    @property
    def uplink_traffic(self):
        """The traffic its VMs send on the host's uplink: its traffic table, except a SIP
        server's or a web application's, which names the clients that call it from off the host
        (None)."""
        return None if self.workload in ("sip_server", "web_app") else self.traffic

    def validate(self, source, path):
        """A name of its own, CPU settings that fit its VMs, and work or traffic for them."""
        if self.name == "vm" or not self.name.isidentifier():
            fail(source, f"{path}.name", f"expected a name of letters, digits and _ other than "
                 f"'vm' (the [vm] section's VMs), got {self.name!r}")
        if self.limit is not None and self.limit < self.reservation:
            fail(source, f"{path}.limit", f"expected a limit >= the reservation ({self.reservation}), "
                 f"got {self.limit}")
        if self.reservation > self.vcpus:
            fail(source, f"{path}.reservation",
                 f"expected at most {self.vcpus} CPUs (one per vCPU), got {self.reservation}")
        if self.limit is not None and self.limit > self.vcpus:
            fail(source, f"{path}.limit", limit_beyond_vcpus(self.vcpus, self.limit))
        if self.workload == "media_server" and self.streams == 0:
            fail(source, f"{path}.streams", "expected the media server's streams per VM (> 0)")
        if self.workload == "cpu_bound" and self.traffic is not None:
            fail(source, f"{path}.traffic", "expected no [group.traffic] for a cpu_bound workload "
                 "(its VMs only compute; send traffic from a group of its own)")
        check_phase_list(self.phases, source, path)
        if self.phases is not None and self.workload != "media_server":
            fail(source, f"{path}.phases", "expected phases only with workload = \"media_server\" "
                 "(they place its worker vCPUs' ticks)")
        if self.workload == "idle" and self.traffic is None:
            fail(source, f"{path}.traffic", "expected a [group.traffic] table for an idle workload "
                 "(a VM with neither work nor traffic changes nothing)")
        if self.workload in ("tcp_receiver", "disk_benchmark") and self.traffic is not None:
            fail(source, f"{path}.traffic", f"expected no [group.traffic] for a {self.workload} "
                 "workload (what it receives or reads is its model's)")
        if self.workload == "dom0" and (self.count != 1 or self.traffic is not None):
            fail(source, f"{path}.workload", "expected one dom0 VM (count = 1) without a "
                 "[group.traffic] table: the driver domain only carries the guests' messages")
        self._validate_sip(source, path)

    def _validate_sip(self, source, path):
        """A SIP server has its SIPp client (its model's kind the loader checks), a web
        application its users; a SIPp client and a collector belong to a SIP server, users to a
        web application."""
        sip = self.workload == "sip_server"
        if sip and (self.traffic is None or self.traffic.kind != "sipp_uac"):
            fail(source, f"{path}.traffic", "expected a [group.traffic] table of kind = \"sipp_uac\" "
                 "for workload = \"sip_server\": the SIPp client whose calls it answers")
        if not sip and self.traffic is not None and self.traffic.kind == "sipp_uac":
            fail(source, f"{path}.traffic.kind", "expected sipp_uac traffic only for workload = "
                 "\"sip_server\" (the client calls a SIP server)")
        web = self.workload == "web_app"
        if web and (self.traffic is None or self.traffic.kind != "web_users"):
            fail(source, f"{path}.traffic", "expected a [group.traffic] table of kind = \"web_users\" "
                 "for workload = \"web_app\": the users whose requests it answers")
        if not web and self.traffic is not None and self.traffic.kind == "web_users":
            fail(source, f"{path}.traffic.kind", "expected web_users traffic only for workload = "
                 "\"web_app\" (the users ask a web application)")
        if not sip and self.gc is not None:
            fail(source, f"{path}.gc", "expected gc only for workload = \"sip_server\" "
                 "(the collector of a SIP server's JVM)")


@dataclass(frozen=True)
class NetiocNodeSection:
    """One node of the NetIOC tree, rates in Mb/s of link time."""

    name: str = field(metadata={"doc": "node name, unique in the tree"})
    kind: Literal["class", "pool", "port"] = field(default="class", metadata={
        "doc": "traffic class (a leaf when nothing is below it), resource pool or port"})
    parent: str | None = field(default=None, metadata={"doc": "the node it belongs to (none: "
                                                              "directly under the uplink)"})
    shares: float = field(default=50.0, metadata=positive(None, "weight for what reservations leave"))
    reservation_mbps: float = field(default=0.0, metadata=non_negative("Mb/s", "guaranteed rate"))
    limit_mbps: float | None = field(default=None, metadata=positive("Mb/s", "most it may send"))
    members: tuple[str, ...] = field(default_factory=tuple, metadata={
        "doc": "VM groups ('vm' for [vm]) whose vNICs a leaf carries"})


@dataclass(frozen=True)
class NetiocSection:
    """The NetIOC tree of the host's uplink (used when host.uplink = "netioc")."""

    node: tuple[NetiocNodeSection, ...] = field(default_factory=tuple, metadata={
        "doc": "the nodes, parents before their children"})

    def validate(self, source, path):
        """The nodes form a tree listed parents first (``check_tree_tables``)."""
        check_tree_tables(self.node, source, path)


@dataclass(frozen=True)
class HtbNodeSection:
    """One htb class of the host's uplink, as ``tc class add ... htb`` sets it."""

    name: str = field(metadata={"doc": "class name, unique in the tree"})
    parent: str | None = field(default=None, metadata={"doc": "the class it belongs to (none: a top "
                                                              "class under the qdisc)"})
    rate_mbps: float = field(default=1.0, metadata=positive("Mb/s", "guaranteed rate (tc rate)"))
    ceil_mbps: float | None = field(default=None, metadata=positive(
        "Mb/s", "most it may borrow up to (tc ceil; default: its rate)"))
    burst_bytes: float | None = field(default=None, metadata=positive("B", "tc burst (default: tc's)"))
    cburst_bytes: float | None = field(default=None, metadata=positive("B", "tc cburst (default: tc's)"))
    quantum_bytes: float | None = field(default=None, metadata=positive(
        "B", "a leaf's share of what is borrowed (default: rate / r2q, as tc)"))
    prio: int | None = field(default=None, metadata={"min": 0, "doc": "a leaf's borrowing priority "
                                                                      "(lower first; default 0)"})
    limit_packets: int | None = field(default=None, metadata={"min": 1, "doc": "a leaf's pfifo limit "
                                                                               "(default: txqueuelen)"})
    members: tuple[str, ...] = field(default_factory=tuple, metadata={
        "doc": "VM groups ('vm' for [vm]) whose vNICs a leaf carries"})


@dataclass(frozen=True)
class HtbSection:
    """The htb classes of the host's uplink (used when host.uplink = "htb")."""

    node: tuple[HtbNodeSection, ...] = field(default_factory=tuple, metadata={
        "doc": "the classes, parents before their children"})

    def validate(self, source, path):
        """The classes form a tree listed parents first (``check_tree_tables``); a quantum or
        prio on an inner class is taken, as tc takes it, with a note that it changes nothing."""
        check_tree_tables(self.node, source, path)
        parents = {node.parent for node in self.node}
        for node in self.node:
            for key in ("quantum_bytes", "prio"):
                if node.name in parents and getattr(node, key) is not None:
                    warnings.warn(InputNote(
                        f"{source}: {path}.node.{node.name}.{key}: the kernel ignores it on an inner "
                        f"class (its leaves' own decide what each borrows); taken as tc takes it, "
                        f"changing nothing"))


@dataclass(frozen=True)
class ValidateSection:
    """Tolerances ``vsim validate`` checks when this scenario is compared with measured traces."""

    tolerances: dict[str, float] = field(default_factory=dict, metadata={
        "min": 0, "doc": "METRIC.STAT = VALUE, e.g. \"jitter_ms.p99\" = 0.2 (simulated p99 within "
                         "0.2 ms of the measured one) or \"jitter_ms.ks_rank_pvalue\" = 0.05; metrics: "
                         + ", ".join(validate_tolerances.METRICS) + "; statistics: "
                         + ", ".join(validate_tolerances.STATS)})
    traffic_class: str | None = field(default=None, metadata={
        "doc": "compare only the packets of this class on both sides (packets traces), e.g. "
               "\"voice\" when the measured trace also holds a flood the simulation does not export"})

    def validate(self, source, path):
        """Each tolerance names a known METRIC.STAT and has a value it allows."""
        for key, value in self.tolerances.items():
            problem = (validate_tolerances.key_problem(key)
                       or validate_tolerances.value_problem(key, value))
            if problem is not None:
                fail(source, join_path(join_path(path, "tolerances"), key), problem)
