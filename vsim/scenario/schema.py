"""Typed schema of scenarios and component models.

A scenario TOML file has the tables ``[run]``, ``[host]``, ``[vm]``,
``[client]`` and optionally ``[measured_vm]`` (the measured VM's own CPU
settings), ``[[group]]`` (further groups of VMs, each with its own CPU
settings, workload and traffic), ``[netioc]`` (the uplink's NetIOC tree),
``[sweep]`` (the independent variable of a figure) and ``[validate]`` (how
close ``vsim validate`` requires the simulation to come to measured traces). Component
parameters live in ``models/`` and are validated into the ``*Model`` classes
here. Every number carries its bounds, so impossible values
(negative cores, a hyper-threading rate above 1) are rejected with the key
path that holds them.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Literal

from vsim.scenario.named_tables import split_named_key
from vsim.scenario.typed import check_field, did_you_mean, fail, join_path, scalar_fields
from vsim.validate import tolerances as validate_tolerances


def positive(unit=None, doc=""):
    return {"min": 0, "min_exclusive": True, "unit": unit, "doc": doc}


def non_negative(unit=None, doc=""):
    return {"min": 0, "unit": unit, "doc": doc}


# ----------------------------------------------------------------- models
@dataclass(frozen=True)
class HostModel:
    sockets: int = field(metadata={"min": 1, "doc": "processor sockets"})
    cores_per_socket: int = field(metadata={"min": 1, "doc": "physical cores per socket"})
    threads_per_core: int = field(metadata={"min": 1, "max": 2, "doc": "hardware threads per core"})
    ht_rate: float = field(metadata={"min": 0, "max": 1, "min_exclusive": True,
                                     "doc": "speed of a thread while its sibling is busy"})


# The parameters each scheduling policy (and variant) takes, beyond quantum and period.
POLICY_PARAMETERS = {
    ("proportional_share", None): ("costop_threshold", "wake_credit", "wake_granularity"),
    ("linux_fair", "eevdf"): ("variant", "tunable_scaling", "base_slice", "place_lag", "run_to_parity"),
    ("linux_fair", "cfs"): ("variant", "tunable_scaling", "latency", "min_granularity",
                            "wakeup_granularity", "gentle_fair_sleepers"),
}
MACHINE_PARAMETERS = ("policy", "quantum", "period", "costop_threshold")


@dataclass(frozen=True)
class SchedulerModel:
    """A CPU scheduler: the policy, the machine's quantum and period, and the policy's
    own parameters (``POLICY_PARAMETERS``), each required by its policy and refused by
    the others."""

    policy: Literal["proportional_share", "linux_fair"]
    quantum: float = field(metadata=positive("s", "time slice before a waiting world may preempt "
                                                  "(linux_fair: the scheduler tick)"))
    period: float = field(metadata=positive("s", "limit accounting period (linux_fair: the cpu.max "
                                                 "period)"))
    costop_threshold: float | None = field(default=None, metadata=positive(
        "s", "co-scheduling skew threshold (proportional_share)"))
    wake_credit: float | None = field(default=None, metadata=non_negative(
        "s", "virtual-time credit of a waking world (proportional_share)"))
    wake_granularity: float | None = field(default=None, metadata=non_negative(
        "s", "virtual-time lead needed to preempt (proportional_share)"))
    variant: Literal["eevdf", "cfs"] | None = field(default=None, metadata={
        "doc": "Linux fair class: EEVDF (6.6 and later) or CFS (up to 6.5) (linux_fair)"})
    tunable_scaling: Literal["none", "log", "linear"] | None = field(default=None, metadata={
        "doc": "how slices and granularities grow with the CPU count (linux_fair)"})
    base_slice: float | None = field(default=None, metadata=positive(
        "s", "sysctl_sched_base_slice before scaling (linux_fair eevdf)"))
    place_lag: bool | None = field(default=None, metadata={
        "doc": "a waking task keeps its lag, else it is placed at the average (linux_fair eevdf)"})
    run_to_parity: bool | None = field(default=None, metadata={
        "doc": "a running eligible task keeps its CPU for its slice (linux_fair eevdf)"})
    latency: float | None = field(default=None, metadata=positive(
        "s", "sysctl_sched_latency before scaling (linux_fair cfs)"))
    min_granularity: float | None = field(default=None, metadata=positive(
        "s", "sysctl_sched_min_granularity before scaling (linux_fair cfs)"))
    wakeup_granularity: float | None = field(default=None, metadata=positive(
        "s", "sysctl_sched_wakeup_granularity before scaling (linux_fair cfs)"))
    gentle_fair_sleepers: bool | None = field(default=None, metadata={
        "doc": "a waking task's credit is half the latency, else all of it (linux_fair cfs)"})

    def _parameters(self):
        return POLICY_PARAMETERS.get((self.policy, self.variant if self.policy == "linux_fair" else None))

    def validate(self, source, path):
        if self.policy == "linux_fair" and self.variant is None:
            fail(source, f"{path}.variant", "expected 'eevdf' or 'cfs' for policy linux_fair")
        wanted = self._parameters()
        label = self.policy + (f" ({self.variant})" if self.policy == "linux_fair" else "")
        for name in (f.name for f in fields(self)):
            if name in ("policy", "quantum", "period"):
                continue
            value = getattr(self, name)
            if name in wanted and value is None:
                fail(source, f"{path}.{name}", f"missing key: policy {label} needs it")
            if name not in wanted and value is not None:
                fail(source, f"{path}.{name}", f"unknown key for policy {label}; expected only "
                     f"{', '.join(('quantum', 'period') + wanted)}")

    def policy_params(self):
        """The keyword arguments of the policy (``make_policy``)."""
        return {name: getattr(self, name) for name in self._parameters()
                if name not in MACHINE_PARAMETERS}

    def machine_costop_threshold(self):
        """The machine's co-scheduling threshold: none (inf) for a policy without co-scheduling."""
        return math.inf if self.costop_threshold is None else self.costop_threshold


@dataclass(frozen=True)
class NicModel:
    rate_bps: float = field(metadata=positive("bit/s", "line rate"))
    queue_packets: int = field(metadata={"min": 1, "doc": "uplink transmit queue depth"})
    latency: float = field(metadata=non_negative("s", "switch and port latency"))
    tx_stage_per_packet: float = field(default=0.0, metadata=non_negative(
        "s", "serial transmit-stage time per frame (vSwitch, uplink scheduler, driver); the "
             "uplink serves a frame in the longer of this and its wire time. Used by the uplink "
             "schedulers; the frames-only FIFO of scenarios without bulk traffic models the wire"))
    tx_completion_window: float = field(default=33e-6, metadata=non_negative(
        "s", "most the uplink may delay signalling transmit completions (ESXi's "
             "Net.NetSchedCoalesceTxUsecs)"))
    tx_completion_hold: float = field(default=0.0, metadata=non_negative(
        "s", "time the NIC holds a transmit completion before signalling it, capped by "
             "tx_completion_window; NetIOC's next dispatch waits for the signal (0: at once)"))
    netioc_quantum_frames: int = field(default=1, metadata={
        "min": 1, "doc": "frames NetIOC sends from one backlogged port before turning to the next"})
    shaper: Literal["wire", "tbf"] = field(default="wire", metadata={
        "doc": "what serves the uplink at rate_bps: the wire (Ethernet frames with FCS, preamble "
               "and gap; a frame the driver has taken has left the queue) or a Linux tc tbf on a "
               "veth (tokens charge skb_len, and the packet waiting for them counts against the "
               "pfifo's limit; host.uplink pfifo only)"})
    peer_turnaround: float = field(default=10e-6, metadata=non_negative(
        "s", "request/response traffic: the peer machine's time from a request's arrival to its "
             "response leaving (receive path, application, transmit path)"))
    host_path_latency: float = field(default=20e-6, metadata=non_negative(
        "s", "request/response traffic: a small frame's time through a VM's guest stack, vNIC and "
             "hypervisor, out and back in together (not the uplink queue or the wire)"))

    def completion_hold(self):
        """The time NetIOC's dispatch waits for a completion signal: the hold, at most the window."""
        return min(self.tx_completion_hold, self.tx_completion_window)


@dataclass(frozen=True)
class VnicModel:
    tx_ring: int = field(metadata={"min": 1, "doc": "transmit ring descriptors"})
    wake_rate_hz: float = field(metadata=positive("1/s", "most transmit-world wakeups per second"))
    tx_cost: float = field(metadata=non_negative("s", "hypervisor CPU per transmitted frame"))
    rx_cost: float = field(metadata=non_negative("s", "hypervisor CPU per received frame"))
    tso_frames: int = field(default=1, metadata={
        "min": 1, "doc": "MTU frames a guest hands the vNIC at once when sending bulk data (a TSO "
                         "segment's worth)"})
    interrupt_cost: float = field(default=0.0, metadata=non_negative(
        "s", "guest vCPU time per transmit-completion interrupt of a TCP sender"))
    guest_tx_cost: float = field(default=0.0, metadata=non_negative(
        "s", "guest vCPU time per MTU frame a TCP sender sends (its stack and copy)"))


@dataclass(frozen=True)
class CodecModel:
    """A voice codec's packets and, for the E-model (``vsim.metrics.emodel``), its
    impairments; a codec without them gets no R or MOS."""

    payload_bytes: int = field(metadata={"min": 1, "unit": "B"})
    packet_interval: float = field(metadata=positive("s"))
    equipment_impairment: float | None = field(default=None, metadata={
        "min": 0, "max": 95, "doc": "E-model Ie: the codec's impairment without loss"})
    loss_robustness: float | None = field(default=None, metadata=positive(
        None, "E-model Bpl: the codec's robustness to packet loss"))
    lookahead: float | None = field(default=None, metadata=non_negative(
        "s", "the encoder's look-ahead, added to a packet's interval in the mouth-to-ear delay"))

    E_MODEL = ("equipment_impairment", "loss_robustness", "lookahead")

    def validate(self, source, path):
        given = [name for name in self.E_MODEL if getattr(self, name) is not None]
        if given and len(given) != len(self.E_MODEL):
            missing = next(name for name in self.E_MODEL if getattr(self, name) is None)
            fail(source, f"{path}.{missing}", f"expected all of {', '.join(self.E_MODEL)} "
                 f"(the E-model's codec values) or none")

    def has_e_model(self):
        """Whether the E-model's codec values are given."""
        return self.equipment_impairment is not None


@dataclass(frozen=True)
class MediaServerModel:
    codec: str
    participants: int = field(metadata={"min": 1})
    frame_cost: float = field(metadata=positive("s", "core-seconds per stream per tick"))
    frame_cost_cv: float = field(metadata=non_negative(None, "coefficient of variation of frame cost"))
    tick_overhead: float = field(metadata=non_negative("s", "core-seconds per worker tick"))
    timer_median: float = field(metadata=non_negative("s", "median guest timer lateness"))
    timer_sigma: float = field(metadata=non_negative(None, "log-normal shape of timer lateness"))
    background_burst: float = field(metadata=non_negative(
        "s", "core-seconds of each guest background burst, queued with the media ticks on a random "
             "worker vCPU (0: none)"))
    background_interval: float = field(metadata=positive(
        "s", "mean time between one VM's background bursts (Poisson arrivals)"))
    aligned_phases: bool = field(default=False, metadata={
        "doc": "every worker's ticks fall due at the same instants (threads started on one "
               "deadline, as vsim probe's workers are), else each worker's phase is drawn uniformly"})


@dataclass(frozen=True)
class ClientModel:
    latency: float = field(metadata=non_negative("s", "constant receive-path latency"))
    jitter_buffer_nominal: float = field(metadata=positive(
        "s", "fixed jitter buffer: playout delay beyond the first packet's network delay"))
    playout_smoothing: float = field(metadata={
        "min": 0, "max": 1, "min_exclusive": True, "max_exclusive": True,
        "doc": "adaptive jitter buffer: weight a of the old estimate in the delay and "
               "variation averages"})
    playout_variation_factor: float = field(metadata=non_negative(
        None, "adaptive jitter buffer: playout delay = mean delay + this x its variation"))
    talkspurt: float = field(metadata=positive(
        "s", "adaptive jitter buffer: span of send time between re-settings of its playout delay"))


# The model class of each role a scenario's models play (the codec comes with the workload).
MODEL_ROLES = {
    "host": HostModel,
    "scheduler": SchedulerModel,
    "nic": NicModel,
    "vnic": VnicModel,
    "workload": MediaServerModel,
    "codec": CodecModel,
    "client": ClientModel,
}


# --------------------------------------------------------------- scenario
@dataclass(frozen=True)
class RunSection:
    duration: float = field(default=300.0, metadata=positive("s", "simulated time per replication"))
    warmup: float = field(default=5.0, metadata=non_negative("s", "time discarded before measuring"))
    seed: int = field(default=1, metadata={"min": 0, "doc": "base seed of the replications"})
    replications: int = field(default=5, metadata={"min": 1, "doc": "independent runs per point"})

    def validate(self, source, path):
        if not math.isfinite(self.duration):
            fail(source, f"{path}.duration" if path else "duration",
                 f"expected a finite duration (s), got {self.duration}")
        if self.warmup >= self.duration:
            fail(source, f"{path}.warmup" if path else "warmup",
                 f"expected a warmup shorter than the duration ({self.duration} s), got {self.warmup}")


@dataclass(frozen=True)
class HostSection:
    model: str = field(default="hosts/dell_r710_x5690", metadata={"doc": "host model in models/"})
    scheduler: str = field(default="schedulers/esx5_proportional_share",
                           metadata={"doc": "CPU scheduler model in models/"})
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

    def background(self, workload):
        """(burst, interval) of guest background work: this section's, else the workload model's."""
        burst = workload.background_burst if self.background_burst is None else self.background_burst
        interval = (workload.background_interval if self.background_interval is None
                    else self.background_interval)
        return burst, interval

    def validate(self, source, path):
        for name in ("background_burst", "background_interval"):
            if getattr(self, name) is not None and not math.isfinite(getattr(self, name)):
                fail(source, f"{path}.{name}", f"expected a finite time (s), got {getattr(self, name)}")
        if self.limit is not None and self.limit < self.reservation:
            fail(source, f"{path}.limit", f"expected a limit >= the reservation ({self.reservation}), "
                 f"got {self.limit}")
        if self.affinity is not None and len(set(self.affinity)) != len(self.affinity):
            fail(source, f"{path}.affinity", "expected distinct logical CPU numbers")


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
    model: str = field(default="clients/measuring_client", metadata={"doc": "measuring client model"})
    measuring_conference: bool = field(default=True, metadata={"doc": "add the measuring conference"})
    jitter_buffer: Literal["fixed", "adaptive"] = field(default="fixed", metadata={
        "doc": "the receivers' jitter buffer: a fixed playout delay or Ramjee et al.'s adaptive "
               "one (its parameters in the client model); late packets count as lost"})
    jitter_buffer_nominal: float | None = field(default=None, metadata=positive(
        "s", "the fixed jitter buffer's playout delay beyond the first packet's network delay "
             "(default: the client model's)"))

    def validate(self, source, path):
        if self.jitter_buffer_nominal is not None and self.jitter_buffer != "fixed":
            fail(source, f"{path}.jitter_buffer_nominal",
                 f'expected no nominal delay with jitter_buffer = "{self.jitter_buffer}" '
                 '(it applies to the fixed jitter buffer only)')
        if self.jitter_buffer_nominal is not None and not math.isfinite(self.jitter_buffer_nominal):
            fail(source, f"{path}.jitter_buffer_nominal",
                 f"expected a finite time (s), got {self.jitter_buffer_nominal}")


@dataclass(frozen=True)
class TrafficSection:
    """Traffic a group's VMs send, one source each, from the registry of sources."""

    kind: str = field(metadata={"doc": "traffic source: udp_flood, tcp_stream (bulk fluids) or "
                                       "tcp_rr (request/response transactions, closed loop) "
                                       "(vsim.net.sources)"})
    params: dict[str, bool | int | float | str] = field(default_factory=dict, metadata={
        "doc": "the source's parameters per VM (udp_flood: pps, ip_bytes, on, off, arrivals "
               "(\"paced\" or \"poisson\"), ...; tcp_stream: mtu, window_bytes, rtt; tcp_rr: "
               "request_bytes, response_bytes, outstanding, think_time, timestamps)"})
    active_from: float = field(default=0.0, metadata={
        "min": 0, "max": 1, "doc": "fraction of the run after which the traffic starts, so a "
                                   "shortened run keeps the scenario's shape"})
    active_until: float = field(default=1.0, metadata={
        "min": 0, "max": 1, "min_exclusive": True,
        "doc": "fraction of the run after which the traffic stops"})

    def validate(self, source, path):
        if self.active_until <= self.active_from:
            fail(source, f"{path}.active_until",
                 f"expected a fraction above active_from ({self.active_from}), got {self.active_until}")
        for name in ("start", "stop"):
            if name in self.params:
                fail(source, f"{path}.params.{name}",
                     "no absolute start or stop: use active_from and active_until")


@dataclass(frozen=True)
class GroupSection:
    """A group of identical VMs beside [vm]'s: its own size, CPU settings, workload and traffic."""

    name: str = field(metadata={"doc": "group name; its VMs are NAME0, NAME1, ..."})
    count: int = field(default=1, metadata={"min": 1, "doc": "VMs in the group"})
    vcpus: int = field(default=1, metadata={"min": 1, "doc": "vCPUs per VM"})
    workload: Literal["media_server", "idle"] = field(default="idle", metadata={
        "doc": "what the guest runs: a media server (model, streams) or nothing but its traffic"})
    model: str = field(default="workloads/vmcd_g729", metadata={
        "doc": "workload model of a media server"})
    streams: int = field(default=0, metadata={"min": 0, "doc": "a media server's streams per VM"})
    vnic: str = field(default="vnics/vmxnet3", metadata={"doc": "virtual NIC model"})
    shares: float | None = field(default=None, metadata={"min": 1, "min_exclusive": False,
                                                         "doc": "CPU shares (default 1000 per vCPU)"})
    reservation: float = field(default=0.0, metadata=non_negative("CPUs", "CPU reservation per VM"))
    limit: float | None = field(default=None, metadata=positive("CPUs", "CPU limit per VM"))
    traffic: TrafficSection | None = field(default=None, metadata={
        "doc": "bulk traffic each VM sends (none: only its workload's frames)"})

    def background(self, workload):
        """(burst, interval) of guest background work: the workload model's."""
        return workload.background_burst, workload.background_interval

    def validate(self, source, path):
        if self.name == "vm" or not self.name.isidentifier():
            fail(source, f"{path}.name", f"expected a name of letters, digits and _ other than "
                 f"'vm' (the [vm] section's VMs), got {self.name!r}")
        if self.limit is not None and self.limit < self.reservation:
            fail(source, f"{path}.limit", f"expected a limit >= the reservation ({self.reservation}), "
                 f"got {self.limit}")
        if self.reservation > self.vcpus:
            fail(source, f"{path}.reservation",
                 f"expected at most {self.vcpus} CPUs (one per vCPU), got {self.reservation}")
        if self.workload == "media_server" and self.streams == 0:
            fail(source, f"{path}.streams", "expected the media server's streams per VM (> 0)")
        if self.workload == "idle" and self.traffic is None:
            fail(source, f"{path}.traffic", "expected a [group.traffic] table for an idle workload "
                 "(a VM with neither work nor traffic changes nothing)")


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
    members: list[str] = field(default_factory=tuple, metadata={
        "doc": "VM groups ('vm' for [vm]) whose vNICs a leaf carries"})


@dataclass(frozen=True)
class NetiocSection:
    """The NetIOC tree of the host's uplink (used when host.uplink = "netioc")."""

    node: list[NetiocNodeSection] = field(default_factory=tuple, metadata={
        "doc": "the nodes, parents before their children"})

    def validate(self, source, path):
        check_tree_tables(self.node, source, path)


def check_tree_tables(nodes, source, path):
    """Nodes listed flat, parents first: each name once, each parent listed before its
    children, each VM group among the members of one node only."""
    names = set()
    for index, node in enumerate(nodes):
        where = f"{path}.node[{index}]"
        if node.name in names:
            fail(source, f"{where}.name", f"expected a name used once in the tree, got {node.name!r}")
        if node.parent is not None and node.parent not in names:
            fail(source, f"{where}.parent", f"expected a node listed before it, got {node.parent!r}")
        names.add(node.name)
    members = [m for node in nodes for m in node.members]
    if len(set(members)) != len(members):
        fail(source, f"{path}.node", "expected each VM group in the members of one node only")


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
    members: list[str] = field(default_factory=tuple, metadata={
        "doc": "VM groups ('vm' for [vm]) whose vNICs a leaf carries"})


@dataclass(frozen=True)
class HtbSection:
    """The htb classes of the host's uplink (used when host.uplink = "htb")."""

    node: list[HtbNodeSection] = field(default_factory=tuple, metadata={
        "doc": "the classes, parents before their children"})

    def validate(self, source, path):
        check_tree_tables(self.node, source, path)


# The class of the tables of each array whose tables a key reaches by name (``named_tables``).
NAMED_TABLE_CLASSES = {"group": GroupSection, "netioc.node": NetiocNodeSection,
                       "htb.node": HtbNodeSection}
SWEPT_SECTIONS = {"host": HostSection, "vm": VmSection, "measured_vm": MeasuredVmSection,
                  "client": ClientSection}


def sweepable_keys():
    """Dotted keys a ``[sweep]`` may vary: every number or true/false key of [host], [vm],
    [measured_vm], [client], and every such model parameter as ``params.ROLE.NAME``."""
    keys = {f"{section}.{name}": (cls, name) for section, cls in SWEPT_SECTIONS.items()
            for name in scalar_fields(cls, choices=True)}
    keys.update({f"params.{role}.{name}": (cls, name) for role, cls in MODEL_ROLES.items()
                 for name in scalar_fields(cls)})
    return keys


def sweep_field(key):
    """(section class, field name) a sweep ``key`` varies, or None: a key of
    ``sweepable_keys``, or ``ARRAY.NAME.FIELD`` for a number key of one table of an array of
    tables, reached by its name (``group.netperf.count``, ``netioc.node.voip.reservation_mbps``;
    that the table exists is checked with the scenario)."""
    keys = sweepable_keys()
    if key in keys:
        return keys[key]
    named = split_named_key(key)
    if named is None or not named.name.isidentifier() or len(named.rest) != 1:
        return None
    cls = NAMED_TABLE_CLASSES[named.array]
    return (cls, named.rest[0]) if named.rest[0] in scalar_fields(cls) else None


@dataclass(frozen=True)
class SweepSection:
    key: str = field(metadata={"doc": "the independent variable: a number, true/false or choice "
                                      "key of [host], [vm], [measured_vm] or [client] (vm.instances, "
                                      "host.hyperthreading, host.uplink, measured_vm.shares, "
                                      "...), a number key of a [[group]] (group.NAME.count, ...) "
                                      "or of a tree node (netioc.node.NAME.reservation_mbps, ...) "
                                      "or a model parameter (params.host.ht_rate, ...)"})
    values: list[bool | int | float | str] = field(metadata={
        "doc": "values of the independent variable, each checked as the key itself is"})

    def validate(self, source, path):
        swept = sweep_field(self.key)
        if swept is None:
            keys = sweepable_keys()
            sections = [key for key in keys if not key.startswith("params.")]
            hint = (did_you_mean(self.key, list(keys))
                    or f"one of: {', '.join(sections)}, group.NAME.KEY, netioc.node.NAME.KEY, "
                       f"htb.node.NAME.KEY or params.ROLE.NAME")
            fail(source, f"{path}.key", f"expected a number or true/false key of [host], [vm], "
                 f"[measured_vm] or [client], a [[group]]'s as group.NAME.KEY, a tree node's as "
                 f"netioc.node.NAME.KEY or htb.node.NAME.KEY, or params.ROLE.NAME; {hint}")
        if not self.values:
            fail(source, f"{path}.values", "expected at least one value")
        cls, name = swept
        for index, value in enumerate(self.values):
            check_field(cls, name, value, source=source, path=f"{path}.values[{index}]")
        if len(set(self.values)) != len(self.values):
            fail(source, f"{path}.values", "expected distinct values")


@dataclass(frozen=True)
class ValidateSection:
    """Tolerances ``vsim validate`` checks when this scenario is compared with measured traces."""

    tolerances: dict[str, float] = field(default_factory=dict, metadata={
        "min": 0, "doc": "METRIC.STAT = VALUE, e.g. \"jitter_ms.p99\" = 0.2 (simulated p99 within "
                         "0.2 ms of the measured one) or \"jitter_ms.ks\" = 0.2; metrics: "
                         + ", ".join(validate_tolerances.METRICS) + "; statistics: "
                         + ", ".join(validate_tolerances.STATS)})
    traffic_class: str | None = field(default=None, metadata={
        "doc": "compare only the packets of this class on both sides (packets traces), e.g. "
               "\"voice\" when the measured trace also holds a flood the simulation does not export"})

    def validate(self, source, path):
        for key, value in self.tolerances.items():
            problem = (validate_tolerances.key_problem(key)
                       or validate_tolerances.value_problem(key, value))
            if problem is not None:
                fail(source, join_path(join_path(path, "tolerances"), key), problem)


@dataclass(frozen=True)
class Scenario:
    name: str = field(metadata={"doc": "what this scenario reproduces"})
    study: str | None = field(default=None, metadata={"doc": "short name of the study"})
    run: RunSection = field(default_factory=RunSection)
    host: HostSection = field(default_factory=HostSection)
    vm: VmSection = field(default_factory=VmSection)
    measured_vm: MeasuredVmSection = field(default_factory=MeasuredVmSection)
    client: ClientSection = field(default_factory=ClientSection)
    params: dict[str, dict[str, bool | int | float]] = field(default_factory=dict, metadata={
        "doc": "model parameters set by this scenario instead of the model files, by role: "
               "[params.host] ht_rate = 0.8 (roles: " + ", ".join(MODEL_ROLES) + ")"})
    group: list[GroupSection] = field(default_factory=tuple, metadata={
        "doc": "further groups of VMs ([[group]] tables), after [vm]'s"})
    netioc: NetiocSection = field(default_factory=NetiocSection)
    htb: HtbSection = field(default_factory=HtbSection)
    sweep: SweepSection | None = None
    validate: ValidateSection = field(default_factory=ValidateSection)

    def vm_settings(self, index):
        """[vm] as it applies to VM ``index``: the measured VM (index 0) takes the
        values set in [measured_vm]."""
        overrides = self.measured_vm.overrides() if index == 0 else {}
        return replace(self.vm, **overrides) if overrides else self.vm

    def group_names(self):
        """Names of the VM groups: 'vm' for [vm]'s VMs, then each [[group]]'s."""
        return ["vm"] + [group.name for group in self.group]

    def check_uplink(self, source):
        """The NetIOC and htb trees name only known VM groups and, when the uplink uses one,
        it places every VM group on one leaf."""
        names = self.group_names()
        placed_groups = names if self.vm.instances else names[1:]
        for key, table, label in (("netioc", self.netioc, "NetIOC"), ("htb", self.htb, "htb")):
            for index, node in enumerate(table.node):
                for member in node.members:
                    if member not in names:
                        fail(source, f"{key}.node[{index}].members",
                             f"expected VM groups ({', '.join(names)}), got {member!r}")
            if self.host.uplink != key:
                continue
            if not table.node:
                fail(source, f"{key}.node", f'expected the {label} tree ([[{key}.node]] tables) '
                     f'with host.uplink = "{key}"')
            placed = {m for node in table.node for m in node.members}
            for name in placed_groups:
                if name not in placed:
                    fail(source, f"{key}.node", f"expected VM group '{name}' among the members "
                         "of a leaf")
