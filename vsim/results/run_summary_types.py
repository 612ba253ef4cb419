"""The shape of a run's summary: one frozen dataclass per section, as ``Simulation.run`` returns it.

``vsim.results.run_summary`` builds it (``uplink_summary`` and ``voice_quality`` their
sections), readers take its fields by name, and ``RunSummary.to_json`` writes the JSON
document ``vsim run --json`` and the sweep reports hold: the fields are its keys, in its
order, the ``optional`` ones left out where a run does not have them
(``vsim.results.plain_data``). ``RunSummary.from_json`` reads such a document back, and
``summary_field`` takes the value a dotted path of its keys names (a claim's metric).
"""

import warnings
from dataclasses import dataclass, field
from typing import Any

from vsim.results.plain_data import INLINE, field_at, from_json, optional, to_json


@dataclass(frozen=True)
class Jitter:
    """The measuring conference's RFC 3550 jitter, pooled over its streams, after warm-up."""

    measuring_conference: bool
    samples: int
    mean_ms: float | None
    p99_ms: float | None
    definition: str


@dataclass(frozen=True)
class InstancesJitter:
    """The jitter of every VM's monitored conference: means over the VMs with samples."""

    mean_ms: float | None
    p99_ms: float | None
    worst_p99_ms: float | None
    vms: int
    vms_with_samples: int
    definition: str


@dataclass(frozen=True)
class Voice:
    """The media servers' frames: emitted, dropped, sent and offered, and their bandwidth."""

    packets_emitted: int
    packets_dropped: int
    loss_fraction: float
    packet_rate_pps: float
    offered_pps: float
    bandwidth_mbps: float
    bandwidth_definition: str


@dataclass(frozen=True)
class Host:
    """The host's CPU utilisation (mean, per core, per logical CPU) and its uplink's."""

    cpu_util_pct: float
    cpu_util_definition: str
    core_util_pct: float
    lcpu_util_pct: tuple[float, ...]
    uplink_util_pct: float
    uplink_util_definition: str


@dataclass(frozen=True)
class VmCpu:
    """A VM's used, ready, co-stop and limited time, % of one vCPU summed over its vCPUs."""

    used_pct: float
    ready_pct: float
    costop_pct: float
    limited_pct: float


@dataclass(frozen=True)
class MediaVm:
    """A media-server VM: its scenario group, CPU and monitored conference's jitter and loss."""

    group: str
    cpu: VmCpu = field(metadata=INLINE)
    monitored: str
    jitter_mean_ms: float | None
    jitter_p99_ms: float | None
    monitored_loss_fraction: float


@dataclass(frozen=True)
class TrafficVm:
    """A bulk traffic VM: its scenario group and CPU."""

    group: str
    cpu: VmCpu = field(metadata=INLINE)


@dataclass(frozen=True)
class CpuBoundVm:
    """A CPU-bound VM: its scenario group, the demand it was given, the work it got done (% of
    one core's time at full speed, summed over its vCPUs: below ``cpu.used_pct`` when a busy
    hyper-thread sibling or busy cores of its socket slowed it) and its CPU."""

    group: str
    demand_pct: float
    work_pct: float
    cpu: VmCpu = field(metadata=INLINE)


@dataclass(frozen=True)
class Dom0Vm:
    """Xen's driver domain (``vsim.guest.driver_domain``): its scenario group, its CPU and the
    guests' messages it carried over the whole run."""

    group: str
    cpu: VmCpu = field(metadata=INLINE)
    messages: int


@dataclass(frozen=True)
class TcpReceiverVm:
    """A VM receiving a TCP stream from off the host (``vsim.guest.tcp_receiver``): its
    scenario group, the payload rate its application read over the window, the wire's
    goodput (the rate with nothing on the host in the way: natively) and its CPU."""

    group: str
    throughput_mbps: float
    line_mbps: float
    cpu: VmCpu = field(metadata=INLINE)


@dataclass(frozen=True)
class DiskBenchmarkVm:
    """A VM running a disk benchmark (``vsim.guest.disk_benchmark``): its scenario group, the
    bytes per second its requests completed over the window, the requests the disk served,
    the disk's busy share and the VM's CPU."""

    group: str
    throughput_mb_per_s: float
    requests_per_s: float
    disk_busy_pct: float
    cpu: VmCpu = field(metadata=INLINE)


@dataclass(frozen=True)
class SipVm:
    """A SIP server VM and the SIPp client calling it (``vsim.results.sip_summary``): SIPp's
    counters, its response times, the server's queue, collections and CPU."""

    group: str
    cpu: VmCpu = field(metadata=INLINE)
    cpu_util_pct: float
    calls_attempted_per_s: float
    calls_successful_per_s: float
    calls_failed_per_s: float
    calls_unfinished_per_s: float
    failed_fraction: float | None
    retransmissions: int
    response_time_p50_ms: float | None
    response_time_p95_ms: float | None
    setup_p50_ms: float | None
    setup_p95_ms: float | None
    queue_dropped: int
    gc_pauses: int
    gc_pause_max_ms: float
    gc_paused_pct: float
    definition: str


@dataclass(frozen=True)
class WebTier:
    """One VM of a two-tier web application: its scenario group and CPU."""

    group: str
    cpu: VmCpu = field(metadata=INLINE)
    cpu_util_pct: float


@dataclass(frozen=True)
class WebApp:
    """A two-tier web application and its users (``vsim.results.web_app_summary``): the
    operations they finished, their response times and each tier's CPU."""

    group: str
    users: int
    think_time_s: float
    operations: int
    operations_per_s: float
    requests_per_s: float
    response_time_mean_ms: float | None
    response_time_p50_ms: float | None
    response_time_p90_ms: float | None
    response_time_p95_ms: float | None
    response_time_p99_ms: float | None
    retransmissions: int
    web: WebTier
    database: WebTier
    definition: str


CpuVm = MediaVm | TrafficVm | CpuBoundVm | SipVm | Dom0Vm | TcpReceiverVm | DiskBenchmarkVm | WebTier
"""A VM whose CPU a summary gives."""


@dataclass(frozen=True)
class GuestBackground:
    """The guest background bursts of [vm]'s VMs after warm-up, per VM."""

    bursts_per_vm_per_s: float
    burst_ms: float
    cpu_pct_of_vm: float
    definition: str


@dataclass(frozen=True)
class HostBackgroundTasks:
    """The CPU the host's own always-runnable tasks used and waited for, summed."""

    tasks: int
    used_pct: float
    ready_pct: float
    definition: str


@dataclass(frozen=True)
class HostSteal:
    """The time the outer hypervisor took from the logical CPUs after warm-up."""

    stolen_pct: float
    lcpu_stolen_pct: tuple[float, ...]
    definition: str


@dataclass(frozen=True)
class ClientStalls:
    """The measuring client's receive stalls after warm-up."""

    count: int
    stalled_pct: float
    rate_per_s: float
    length_ms: float
    definition: str


@dataclass(frozen=True)
class MeasuredSetting:
    """One CPU setting of the measured VM, beside the other VMs'."""

    measured: float | None
    others: float | None


@dataclass(frozen=True)
class JitterBuffer:
    """The jitter buffer's kind and parameters: a fixed buffer's delay, or an adaptive one's
    algorithm and the time constant of its averages."""

    kind: str
    nominal_ms: float | None = optional()
    algorithm: str | None = optional()
    smoothing: float | None = optional()
    variation_factor: float | None = optional()
    talkspurt_ms: float | None = optional()
    time_constant_s: float | None = optional()


@dataclass(frozen=True)
class Codec:
    """The codec's E-model values (None for a codec without them)."""

    equipment_impairment: float | None
    loss_robustness: float | None
    lookahead_ms: float | None


@dataclass(frozen=True)
class Quality:
    """Loss, delays, jitter and E-model rating of some streams through the jitter buffer."""

    packets: int
    network_loss_fraction: float | None
    late_fraction: float | None
    effective_loss_fraction: float | None
    burst_ratio: float | None
    one_way_delay_mean_ms: float | None
    buffer_delay_mean_ms: float | None
    mouth_to_ear_ms: float | None
    r_factor: float | None
    mos: float | None
    jitter_mean_ms: float | None


@dataclass(frozen=True)
class StreamQuality:
    """One stream of the measuring conference: its number and ``Quality``."""

    stream: int
    quality: Quality = field(metadata=INLINE)


@dataclass(frozen=True)
class MeasuringQuality:
    """The measuring conference's ``Quality``, pooled and per stream."""

    quality: Quality = field(metadata=INLINE)
    streams: tuple[StreamQuality, ...]


@dataclass(frozen=True)
class VoiceQuality:
    """The jitter buffer's view (``vsim.results.voice_quality``)."""

    jitter_buffer: JitterBuffer
    codec: Codec
    measuring_conference: MeasuringQuality | None
    groups: dict[str, Quality]
    definition: str
    note: str | None = optional()


@dataclass(frozen=True, kw_only=True)
class UplinkGroup:
    """A traffic group on the uplink while it runs: offered (a flood's) or demanded (a TCP
    stream's) and delivered rates, throughput, loss and interrupts."""

    offered_pps: float | None = optional()
    demand_pps: float | None = optional()
    delivered_pps: float
    throughput_mbps: float
    per_vm_mbps: tuple[float, ...]
    min_second_mbps: float | None
    interrupts_per_s: float
    per_second_mbps: tuple[float, ...]
    configured_pps: float | None = optional()
    loss_fraction: float | None


@dataclass(frozen=True)
class UplinkVoice:
    """The uplink delay of the media servers' frames sent over the whole run."""

    delay_mean_us: float | None
    delay_p99_us: float | None
    delay_definition: str


@dataclass(frozen=True)
class VoiceTimeline:
    """Media-server frames handed to the uplink and dropped there, per second of the run."""

    voice_offered_per_s: tuple[int, ...]
    voice_lost_per_s: tuple[int, ...]
    definition: str


@dataclass(frozen=True)
class StreamWhileTraffic:
    """One measured stream's loss, mean jitter and mean latency while traffic runs."""

    stream: int
    loss_fraction: float | None
    jitter_mean_ms: float | None
    latency_mean_ms: float | None


@dataclass(frozen=True)
class ConferenceWhileTraffic:
    """The measuring conference's jitter and latency while traffic runs, pooled and per stream."""

    jitter_mean_ms: float | None
    jitter_p99_ms: float | None
    latency_mean_ms: float | None
    latency_p99_ms: float | None
    latency_definition: str
    streams: tuple[StreamWhileTraffic, ...]


@dataclass(frozen=True)
class DuringTraffic:
    """Voice over the whole seconds when all bulk traffic runs; the measuring conference's
    figures where there is one."""

    window_s: tuple[int, int]
    voice_loss_pps: float | None
    voice_loss_fraction: float | None
    conference: ConferenceWhileTraffic | None = optional(inline=True)


@dataclass(frozen=True)
class RequestResponseVm:
    """One request/response VM's transactions, latency, uplink delay and retransmissions."""

    vm: str
    transactions_per_s: float | None
    one_way_latency_mean_us: float | None
    uplink_delay_mean_us: float | None
    retransmissions: int


@dataclass(frozen=True)
class RequestResponseGroup:
    """A request/response group (netperf TCP_RR) over the measuring window, and per VM."""

    transactions_per_s: float | None
    transactions_per_s_per_vm: float | None
    one_way_latency_mean_us: float | None
    one_way_latency_p99_us: float | None
    uplink_delay_mean_us: float | None
    uplink_delay_p99_us: float | None
    retransmissions: int
    per_vm: tuple[RequestResponseVm, ...]
    definition: str


@dataclass(frozen=True)
class ReplayedVm:
    """One VM of a replay group: its packets and their rates over its active time."""

    vm: str
    packets: int
    offered_pps: float | None
    delivered_pps: float | None


@dataclass(frozen=True)
class ReplayedGroup:
    """A ``packets_replay`` group over the measuring window, and per VM
    (``vsim.guest.replayed_traffic.ReplayedTraffic.summary``)."""

    packets: int
    offered_pps: float | None
    delivered_pps: float | None
    loss_fraction: float | None
    uplink_delay_mean_us: float | None
    uplink_delay_p99_us: float | None
    per_vm: tuple[ReplayedVm, ...]
    definition: str


@dataclass(frozen=True)
class Uplink:
    """The uplink scheduler's sections (``vsim.results.uplink_summary``)."""

    scheduler: str
    capacity_bps: float
    throughput_definition: str
    tx_stage_per_packet_us: float
    groups: dict[str, UplinkGroup]
    voice: UplinkVoice
    timeline: VoiceTimeline
    traffic_window_s: tuple[float, float] | None
    during_traffic: DuringTraffic | None = optional()
    request_response: dict[str, RequestResponseGroup] | None = optional()
    replayed: dict[str, ReplayedGroup] | None = optional()


@dataclass(frozen=True)
class RunSummary:
    """A run's summary (``vsim.results.run_summary``): the sections every run has, then those
    that apply to it, None where they do not."""

    jitter: Jitter
    instances_jitter: InstancesJitter
    measured_packets: int
    measured_loss_fraction: float
    voice: Voice
    host: Host
    vms: dict[str, MediaVm]
    vms_definition: str
    voice_quality: VoiceQuality
    guest_background: GuestBackground | None = optional()
    traffic_vms: dict[str, TrafficVm] | None = optional()
    cpu_bound_vms: dict[str, CpuBoundVm] | None = optional()
    host_background_tasks: HostBackgroundTasks | None = optional()
    uplink: Uplink | None = optional()
    host_steal: HostSteal | None = optional()
    client_stalls: ClientStalls | None = optional()
    measured_vm: dict[str, MeasuredSetting] | None = optional()
    sip: dict[str, SipVm] | None = optional()
    dom0: dict[str, Dom0Vm] | None = optional()
    tcp_receivers: dict[str, TcpReceiverVm] | None = optional()
    disk_benchmarks: dict[str, DiskBenchmarkVm] | None = optional()

    web_apps: dict[str, WebApp] | None = optional()

    def cpu_vms(self) -> list[CpuVm]:
        """Every VM whose CPU the summary gives: the media servers, the bulk traffic senders,
        the CPU-bound VMs, the SIP servers, Xen's driver domain, the TCP receivers, the disk
        benchmarks, then each web application's web and database VMs."""
        return [*self.vms.values(), *(self.traffic_vms or {}).values(),
                *(self.cpu_bound_vms or {}).values(), *(self.sip or {}).values(),
                *(self.dom0 or {}).values(), *(self.tcp_receivers or {}).values(),
                *(self.disk_benchmarks or {}).values(),
                *(tier for app in (self.web_apps or {}).values() for tier in (app.web, app.database))]

    def measuring_vm(self) -> MediaVm | None:
        """The VM that hosts the measuring conference; None without one."""
        return next((vm for vm in self.vms.values() if vm.monitored == "measuring conference"), None)

    def to_json(self) -> dict[str, Any]:
        """The summary as plain JSON data, as ``vsim run --json`` writes it."""
        return to_json(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "RunSummary":
        """The summary ``to_json`` wrote as ``data``."""
        return from_json(cls, data)

    def __getitem__(self, key: str) -> Any:
        """``summary["jitter"]``, as when a run returned its JSON dict: kept for one release, so
        code written against the dict keeps working; read attributes or ``to_json()`` instead."""
        warnings.warn("indexing a run summary is deprecated: read its attributes "
                      "(summary.jitter.mean_ms) or its JSON (summary.to_json())", DeprecationWarning,
                      stacklevel=2)
        return self.to_json()[key]


def summary_field(summary: RunSummary, path: str) -> Any:
    """The value of ``summary`` at the dotted ``path`` of its JSON keys (``jitter.p99_ms``,
    ``uplink.during_traffic.voice_loss_fraction``); a ``LookupError`` naming the first key
    that is not there and listing those that are."""
    return field_at(summary, path)
