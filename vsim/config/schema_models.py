"""Typed schema of the component models (``models/``): host, scheduler, NIC, vNIC, codec,
media-server workload, measuring client, SIP server, web application and JVM collector.

``vsim.config.models`` validates each model file into the class of its role
(``MODEL_ROLES``); a scenario's ``[params.ROLE]`` tables set the same fields.
Every number carries its bounds, so impossible values (negative cores, a
hyper-threading rate above 1) are rejected with the key path that holds them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from typing import Literal

from vsim.config.schema_fields import non_negative, positive
from vsim.config.typed import fail
from vsim.cpu.topology import Topology


@dataclass(frozen=True)
class HostModel:
    """A host's processors: sockets, cores, threads, a thread's speed beside a busy sibling and
    a core's beside busy cores of its socket."""

    sockets: int = field(metadata={"min": 1, "doc": "processor sockets"})
    cores_per_socket: int = field(metadata={"min": 1, "doc": "physical cores per socket"})
    threads_per_core: int = field(metadata={"min": 1, "max": 2, "doc": "hardware threads per core"})
    ht_rate: float = field(metadata={"min": 0, "max": 1, "min_exclusive": True,
                                     "doc": "speed of a thread while its sibling is busy"})
    socket_contention: float = field(default=0.0, metadata=non_negative(
        None, "slowdown of a busy core per other busy core of its socket (shared last-level cache "
            "and memory bandwidth): a thread runs at 1/(1 + socket_contention x k) of its speed "
            "beside k busy cores (0: none)"))
    clock_hz: float | None = field(default=None, metadata=positive(
        "Hz", "core clock, for costs given in cycles (models/netstacks/; none: not needed)"))

    def topology(self, hyperthreading: bool) -> Topology:
        """The CPU topology a scenario runs this host as: every core's threads, or one thread
        per core with ``hyperthreading`` off. The one place a host's logical CPUs are derived."""
        threads = self.threads_per_core if hyperthreading else 1
        return Topology(self.sockets, self.cores_per_socket, threads, self.ht_rate, self.socket_contention)


# The parameters each scheduling policy (and variant) takes, beyond quantum and period.
POLICY_PARAMETERS = {
    ("proportional_share", None): ("costop_threshold", "wake_credit", "wake_granularity"),
    ("linux_fair", "eevdf"): ("variant", "tunable_scaling", "base_slice", "place_lag", "run_to_parity"),
    ("linux_fair", "cfs"): ("variant", "tunable_scaling", "latency", "min_granularity",
                            "wakeup_granularity", "gentle_fair_sleepers"),
    ("xen_credit", None): ("tick", "credits_per_ms", "default_weight", "tick_debit"),
}
MACHINE_PARAMETERS = ("policy", "quantum", "period", "costop_threshold")


@dataclass(frozen=True)
class SchedulerModel:
    """A CPU scheduler: the policy, the machine's quantum and period, and the policy's
    own parameters (``POLICY_PARAMETERS``), each required by its policy and refused by
    the others."""

    policy: Literal["proportional_share", "linux_fair", "xen_credit"]
    quantum: float = field(metadata=positive("s", "time slice before a waiting world may preempt "
                                                  "(linux_fair: the scheduler tick; xen_credit: "
                                                  "the time slice)"))
    period: float = field(metadata=positive("s", "limit accounting period (linux_fair: the cpu.max "
                                                 "period; xen_credit: the credit accounting period)"))
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
    tick: float | None = field(default=None, metadata=positive(
        "s", "scheduler tick: credits debited, BOOST dropped; the period is a whole number of "
             "ticks (xen_credit)"))
    credits_per_ms: float | None = field(default=None, metadata=positive(
        "credits", "credits a running vCPU burns per ms on a CPU (xen_credit)"))
    default_weight: float | None = field(default=None, metadata=positive(
        None, "the weight of a domain at the normal 1000 shares per vCPU (xen_credit)"))
    tick_debit: bool | None = field(default=None, metadata={
        "doc": "a tick debits a whole tick's credits from the vCPU it finds running, instead of "
               "each vCPU paying for its time on a CPU (xen_credit)"})

    def _parameters(self):
        """The parameters this policy (and variant) takes beyond quantum and period."""
        return POLICY_PARAMETERS.get((self.policy, self.variant if self.policy == "linux_fair" else None))

    def validate(self, source, path):
        """Each parameter the policy takes is given and no other policy's is."""
        if self.policy == "linux_fair" and self.variant is None:
            fail(source, f"{path}.variant", "expected 'eevdf' or 'cfs' for policy linux_fair")
        if self.policy == "xen_credit" and self.tick is not None:
            ticks = self.period / self.tick
            if abs(ticks - round(ticks)) > 1e-9 or round(ticks) < 1:
                fail(source, f"{path}.period", f"expected a whole number of ticks ({self.tick:g} s) "
                     f"for policy xen_credit (the accounting period), got {self.period:g}")
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
    """The uplink NIC: line rate, transmit queue, latency, transmit stage and completion signals."""

    rate_bps: float = field(metadata={**positive("bit/s", "line rate (inf: none, as a veth's)"), "infinite": True})
    queue_packets: int = field(metadata={"min": 1, "doc": "uplink transmit queue depth"})
    latency: float = field(metadata=non_negative("s", "switch and port latency"))
    queue_bytes: int | None = field(default=None, metadata={
        "min": 1, "doc": "when set, the uplink's queue limit in bytes instead of queue_packets: "
                         "the frames' bytes on a NIC's queue, skb_len under host.uplink = "
                         "\"pfifo\" (which then is tc's bfifo)"})
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
    """A virtual NIC: its transmit ring, transmit-world wakeups and CPU time per frame."""

    tx_ring: int = field(metadata={"min": 1, "doc": "transmit ring descriptors"})
    wake_rate_hz: float = field(metadata={**positive("1/s", "most transmit-world wakeups per second (inf: "
                                                         "no coalescing, each post forwarded as made)"),
                                          "infinite": True})
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
        """The E-model's codec values are given all together or not at all."""
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
    """A media-server workload: codec, conference size, CPU per frame and tick, timer lateness."""

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
    wake_cost: float = field(default=0.0, metadata=non_negative(
        "s", "core-seconds a worker's wake-up takes of its CPU beyond its own accounting (the "
             "scheduler's pick and the switch to it), added to each tick's work as tick_overhead is "
             "(0: none)"))
    emission: Literal["tick_end", "per_stream"] = field(default="tick_end", metadata={
        "doc": "when a worker hands its frames to the vNIC: all of a tick's at the end of its work "
               "(tick_end), or each stream's when its share of the tick's work is done (per_stream, "
               "a job per stream on the vCPU)"})
    shared_expiry: bool = field(default=False, metadata={
        "doc": "with aligned_phases, the workers' timers expire in one timer interrupt, so every "
               "worker due at an instant wakes with the same lateness (one draw per tick for the "
               "host's aligned workers of this model), else each worker draws its own"})
    refill_same_socket: float = field(default=0.0, metadata=non_negative(
        "s", "core-seconds a worker vCPU adds to its work when it starts on another core of the "
             "socket it last ran on, refilling its working set into that core's L1 and L2 from "
             "the shared L3 (0: none)"))
    refill_other_socket: float = field(default=0.0, metadata=non_negative(
        "s", "the same when it starts on another socket, refilling from the other socket's "
             "cache or memory (0: none)"))


@dataclass(frozen=True)
class ClientModel:
    """The measuring client: receive-path latency and its jitter buffers' parameters."""

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
    stall_rate: float = field(default=0.0, metadata=non_negative(
        "1/s", "receive stalls: how often the client's receiving thread loses its CPU (Poisson "
               "times); 0 for a client that does nothing else"))
    stall_duration: float = field(default=0.0, metadata=non_negative(
        "s", "receive stalls: how long each lasts; a packet arriving during one is read, and "
             "timestamped, when it ends"))

    def validate(self, source, path):
        """Stalls need a length as soon as they have a rate."""
        if self.stall_rate > 0 and self.stall_duration == 0:
            fail(source, f"{path}.stall_duration",
                 f"expected a positive stall length (s) with stall_rate = {self.stall_rate:g}")


@dataclass(frozen=True)
class SipServerModel:
    """A SIP server (a UAS answering SIPp's default UAC, ``vsim.guest.sip_server``): its receive
    queue and the CPU each message takes a worker thread (one per vCPU)."""

    invite: float = field(metadata=positive("s", "core-seconds to process a new INVITE and send its "
                                                 "180 and 200 (the transaction and the session set up)"))
    ack: float = field(metadata=positive("s", "core-seconds to process the ACK of an answered INVITE"))
    bye: float = field(metadata=positive("s", "core-seconds to process a BYE and send its 200"))
    retransmission: float = field(metadata=positive(
        "s", "core-seconds for a retransmitted request: the transaction found, its answer sent again"))
    queue_messages: int = field(metadata={
        "min": 1, "doc": "messages the receive queue (the UDP socket's buffer) holds; one that finds "
                         "it full is dropped"})
    dom0_message: float = field(default=0.0, metadata=non_negative(
        "s", "core-seconds a driver domain's vCPU (Xen's Dom0, a group of workload = \"dom0\") "
             "spends on each of this server's messages, in and out (netback's grant copy and "
             "bridging, or the device model's emulation with emulated_nic); 0 or no dom0 group: "
             "the messages cost the host nothing"))
    emulated_nic: bool = field(default=False, metadata={
        "doc": "the server's VM is fully virtualised (HVM): its NIC is emulated by one device-model "
               "process in the driver domain (qemu-dm), which handles its messages one at a time "
               "whatever Dom0's vCPUs, beside other guests'; false: paravirtualised, through netback, one "
               "at a time with every paravirtual guest's packets (vsim.guest.driver_domain)"})
    ipis_per_message: float = field(default=0.0, metadata=non_negative(
        None, "synchronous IPIs (TLB shootdowns, smp_call_function) a worker's vCPU sends to "
              "each of its VM's other vCPUs per message processed, spinning until they answer "
              "(vsim.guest.smp_ipi); 0, or a VM of one vCPU: none"))
    ipi_latency: float = field(default=0.0, metadata=non_negative(
        "s", "time from an IPI to its answer when the vCPU it goes to is running"))
    ipi_handler: float = field(default=0.0, metadata=non_negative(
        "s", "core-seconds an idle vCPU woken by an IPI spends on its handler before answering"))

    def costs(self) -> dict[str, float]:
        """Core-seconds per message kind, as ``vsim.guest.sip_server.SipServer`` takes them."""
        return {"INVITE": self.invite, "ACK": self.ack, "BYE": self.bye,
                "retransmission": self.retransmission}


@dataclass(frozen=True)
class TcpReceiverModel:
    """A TCP bulk receiver in a guest fed by a sender on another machine (nttcp's receiving
    side, ``vsim.guest.tcp_receiver``): the wire, the window, and the CPU each segment and
    each ACK costs the guest and the driver domain."""

    wire_bps: float = field(metadata=positive("b/s", "the Ethernet link's bit rate from the sender"))
    mtu_bytes: int = field(metadata={"min": 64, "doc": "IP packet size of a full segment (B)"})
    header_bytes: int = field(metadata={"min": 40, "doc": "IP and TCP headers (options included) "
                                                          "of a segment (B): the MSS is mtu_bytes - header_bytes"})
    frame_overhead_bytes: int = field(metadata={"min": 0, "doc": "Ethernet framing a packet costs the "
                                                                 "wire beyond its IP bytes (B): header, FCS, "
                                                                 "preamble and inter-frame gap"})
    window_bytes: int = field(metadata={"min": 1, "doc": "the receive window the sender may have in "
                                                         "flight, unacknowledged (B)"})
    segments_per_ack: int = field(metadata={"min": 1, "doc": "segments one (delayed) ACK "
                                                             "acknowledges"})
    path_delay: float = field(metadata=non_negative("s", "one-way delay between the sender and the "
                                                         "host's NIC beyond the frame's transmission"))
    guest_segment: float = field(metadata=non_negative("s", "core-seconds of the receiving guest's "
                                                            "vCPU per segment (its stack and the copy "
                                                            "to the application)"))
    dom0_segment: float = field(default=0.0, metadata=non_negative(
        "s", "core-seconds a driver domain's vCPU (Xen's Dom0) spends on each segment in "
             "(netback's grant copy, bridging, event channel)"))
    dom0_ack: float = field(default=0.0, metadata=non_negative(
        "s", "core-seconds a driver domain's vCPU spends on each ACK out"))

    @property
    def mss(self) -> int:
        """Payload bytes of a full segment."""
        return self.mtu_bytes - self.header_bytes

    def line_goodput_bps(self) -> float:
        """Payload bits per second a saturated wire carries: what nothing on the host slows."""
        return self.wire_bps * self.mss / (self.mtu_bytes + self.frame_overhead_bytes)

    def validate(self, source, path):
        """A segment carries payload and a window holds one ACK's segments."""
        if self.header_bytes >= self.mtu_bytes:
            fail(source, f"{path}.header_bytes", f"expected fewer header bytes than mtu_bytes "
                 f"({self.mtu_bytes}), got {self.header_bytes}")
        if self.window_bytes < self.segments_per_ack * self.mss:
            fail(source, f"{path}.window_bytes", f"expected a window of at least segments_per_ack "
                 f"x MSS ({self.segments_per_ack * self.mss} B), got {self.window_bytes}")


@dataclass(frozen=True)
class DiskBenchmarkModel:
    """A disk benchmark in a guest (IOzone's side, ``vsim.guest.disk_benchmark``): its requests,
    the disk that serves them, and the CPU each costs the guest and the driver domain."""

    request_bytes: float = field(metadata=positive("B", "bytes of one request to the disk"))
    outstanding: int = field(metadata={"min": 1, "doc": "requests the benchmark keeps issued at once"})
    random_fraction: float = field(metadata={"min": 0, "max": 1, "doc": "share of requests at a "
                                                                       "random place of the disk"})
    disk_rate: float = field(metadata=positive("B/s", "the disk's sequential transfer rate"))
    seek_time: float = field(metadata=non_negative("s", "the disk's average seek, before a random request"))
    rpm: float = field(metadata=positive("1/min", "the disk's spindle speed: a random request also "
                                                  "waits a uniform share of one revolution"))
    guest_request: float = field(metadata=positive("s", "core-seconds of the guest's vCPU per request "
                                                        "(the benchmark's record and the block layer)"))
    dom0_request: float = field(default=0.0, metadata=non_negative(
        "s", "core-seconds a driver domain's vCPU (Xen's Dom0) spends on each request (blkback "
             "and the disk driver)"))


@dataclass(frozen=True)
class WebAppModel:
    """A two-tier web application (Olio-like, ``vsim.guest.web_app``): what an operation asks of
    the web VM, the database VM and the uplink. An operation is a page and the objects on it,
    fetched one request after another; the page's request runs the application (web CPU, then
    its database queries one after another), the others are served from the web VM's files."""

    requests_per_operation: int = field(metadata={
        "min": 1, "doc": "HTTP requests of one operation, its page's first"})
    page_cpu: float = field(metadata=positive(
        "s", "web VM core-seconds of a page request (the application's code, the response built)"))
    object_cpu: float = field(metadata=positive(
        "s", "web VM core-seconds of each other request (a file or a not-modified answer)"))
    db_queries: int = field(metadata={"min": 0, "doc": "database queries of a page request, "
                                                       "sent one after another"})
    db_query_cpu: float = field(metadata=positive("s", "database VM core-seconds of one query"))
    page_bytes: float = field(metadata=positive(
        "B", "bytes of a page's HTTP response (headers and body), sent as TCP segments"))
    object_bytes: float = field(metadata=positive(
        "B", "mean bytes of each other request's HTTP response"))


@dataclass(frozen=True)
class JvmGcModel:
    """A JVM's generational collector as a SIP server's stop-the-world pauses
    (``vsim.guest.jvm_gc``): what each message allocates, what survives, how fast it is copied
    and marked, and on how many threads."""

    young_bytes: float = field(metadata=positive("B", "eden: bytes allocated between minor collections"))
    allocation_invite: float = field(metadata=non_negative("B", "bytes an INVITE's processing allocates"))
    allocation_ack: float = field(metadata=non_negative("B", "bytes an ACK's processing allocates"))
    allocation_bye: float = field(metadata=non_negative("B", "bytes a BYE's processing allocates"))
    survivor_bytes: float = field(metadata=non_negative(
        "B", "live bytes per transaction the server holds, found by each minor collection"))
    copy_rate: float = field(metadata=positive("B/s", "bytes a collector thread copies per core-second"))
    minor_work: float = field(metadata=non_negative("s", "fixed core-seconds of each minor collection "
                                                         "(roots, card table)"))
    old_bytes: float = field(metadata=positive("B", "old generation: promoted bytes that make the "
                                                    "next collection a major one"))
    mark_rate: float = field(metadata=positive("B/s", "bytes of live old data a major collection "
                                                      "marks and compacts per core-second"))
    major_work: float = field(metadata=non_negative("s", "fixed core-seconds of each major collection "
                                                         "(sweeping the whole old generation)"))
    threads: int = field(default=1, metadata={"min": 1, "doc": "collector threads sharing a pause's "
                                                               "work (1: a serial collector)"})
    pretenured: float = field(default=0.0, metadata={
        "min": 0, "max": 1, "doc": "share of the surviving bytes allocated directly in the old "
                                   "generation, never copied by a minor collection"})

    def allocation(self) -> dict[str, float]:
        """Bytes allocated per message kind, as ``vsim.guest.jvm_gc.JvmGc`` takes them."""
        return {"INVITE": self.allocation_invite, "ACK": self.allocation_ack, "BYE": self.allocation_bye}


NETSTACK_LAYERS = ("guest", "device", "vswitch", "nic_driver")


@dataclass(frozen=True)
class NetStackModel:
    """One layer of a network stack and its CPU costs in cycles (``vsim.net.stack``): a guest
    OS's TCP/IP stack, a virtual device, the virtual switch or a physical NIC's driver. Every
    cost is optional here; a path that needs one the file lacks is refused by name
    (``vsim.build.netstack``)."""

    layer: Literal["guest", "device", "vswitch", "nic_driver"] = field(metadata={
        "doc": "which layer of the path this is"})
    tx_per_packet: float | None = field(default=None, metadata=non_negative(
        "cycles", "CPU per packet sent through this layer (a TSO segment counts once)"))
    tx_per_byte: float | None = field(default=None, metadata=non_negative(
        "cycles", "CPU per byte of data sent (the copy from the application)"))
    rx_per_packet: float | None = field(default=None, metadata=non_negative(
        "cycles", "CPU per packet received through this layer"))
    rx_per_byte: float | None = field(default=None, metadata=non_negative(
        "cycles", "CPU per byte of data received (the copy to the application)"))
    interrupt: float | None = field(default=None, metadata=non_negative(
        "cycles", "CPU per interrupt this layer raises or takes"))
    frames_per_interrupt: float | None = field(default=None, metadata={
        "min": 1, "doc": "frames one interrupt covers under bulk load (coalescing)"})
    interrupt_hz: float | None = field(default=None, metadata={
        **positive("1/s", "most interrupts per second (interrupt throttling: a lone packet "
                          "waits out the rest of the interval since the previous one; inf: none)"),
        "infinite": True})
    wake_latency: float | None = field(default=None, metadata=non_negative(
        "s", "time from a frame being posted to this layer's CPU handling it when idle (a halted "
             "vCPU's wake-up), not CPU time"))
    wakeup: float | None = field(default=None, metadata=non_negative(
        "cycles", "guest: CPU to wake the application blocked on a receive"))
    ack_every: int | None = field(default=None, metadata={
        "min": 1, "doc": "guest: data segments received per ACK sent (delayed ACK)"})
    window_bytes: float | None = field(default=None, metadata=positive(
        "B", "guest: the receive window a TCP stream is limited by"))
    segment_per_frame: float | None = field(default=None, metadata=non_negative(
        "cycles", "vswitch: CPU per MTU frame cut from a TSO segment in software"))
    copy_per_byte: float | None = field(default=None, metadata=non_negative(
        "cycles", "vswitch: CPU per byte copied into a virtual machine's receive buffers"))
    tso: bool | None = field(default=None, metadata={
        "doc": "device, nic_driver: whether it takes TCP segments larger than the MTU"})
    mtu_min: int | None = field(default=None, metadata={"min": 68, "doc": "smallest MTU supported (IP bytes)"})
    mtu_max: int | None = field(default=None, metadata={"min": 68, "doc": "largest MTU supported (IP bytes)"})


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
