"""Build one replication of a scenario: the host and everything running on it.

The model: a host (``Machine`` with its scheduling policy) running
``instances`` media-server VMs, each with its vCPUs, a vNIC transmit world and
its share of the uplink; the first VM (the first media-server [[group]]'s
first when [vm] has none) also serves the measuring conference, whose packets
the measuring client timestamps. Every VM's last conference is
timestamped the same way by its own receiver, so each VM's jitter is reported
too. ``[[group]]`` VMs follow: more media servers with their own settings,
VMs sending bulk traffic (``vsim.guest.traffic_vm``), request/response
transactions (``vsim.guest.request_response``) or a recorded trace's packets
(``vsim.guest.replayed_traffic``) on the host's uplink
(``vsim.build.host_uplink``), CPU-bound VMs, SIP servers called by a SIPp
client off the host (``vsim.guest.sip_service``), TCP receivers fed from
off the host (``vsim.guest.tcp_receiver``), disk benchmarks
(``vsim.guest.disk_benchmark``) and two-tier web applications answering
users off the host (``vsim.guest.web_app``). Everything random draws
from streams named after the component, so the same seed gives the same run.
An engine (``vsim.engines``) runs what is built here.
"""

import math
from functools import partial
from typing import NamedTuple

from vsim.build import cgroups
from vsim.build.host_background import BackgroundTasks
from vsim.build.host_steal import HostSteal, policy_for
from vsim.build.host_uplink import make_host_uplink
from vsim.build.netstack import SenderCosts, stream_sender_costs
from vsim.build.replayed_trace import with_recorded_packets
from vsim.config.cpu_settings import cpu_settings
from vsim.config.load import group_role
from vsim.core.errors import InputError
from vsim.core.environment import Environment, scheduler_for
from vsim.core.rng import RandomStreams
from vsim.cpu.machine import Machine
from vsim.cpu.policies import make_policy
from vsim.cpu.world import HYPERVISOR, Group, World
from vsim.guest.cpu_bound import CpuBoundVm
from vsim.guest.disk_benchmark import DiskBenchmark
from vsim.guest.driver_domain import DriverDomain
from vsim.guest.measuring_client import MeasuringClient
from vsim.guest.media_server import MediaServer
from vsim.guest.receive_stalls import ReceiveStalls
from vsim.guest.replayed_traffic import ReplayedTraffic
from vsim.guest.request_response import RequestResponseTraffic
from vsim.guest.sender_cpu import SenderCpu
from vsim.guest.sip_service import SipService
from vsim.guest.tcp_receiver import TcpReceiver
from vsim.guest.timer import SharedExpiry, TimerLatency
from vsim.guest.traffic_vm import TrafficVm
from vsim.guest.web_app import WebApp
from vsim.metrics.jitter_buffer import AdaptiveBuffer, FixedBuffer
from vsim.net.frames import ip_bytes_for_rtp
from vsim.net.shared_uplink import VOICE_CLASS, SharedUplink
from vsim.net.sources import make_source
from vsim.net.sources.protocol import Flood, Replay
from vsim.net.sources.sipp_uac import SippUac
from vsim.net.sources.web_users import WebUsers
from vsim.net.txpath.completions import CompletionInterrupts
from vsim.net.vnic_tx import VnicTransmit


class _ServerVm(NamedTuple):
    """What a media-server VM is built from."""

    name: str
    group: str
    cpu: dict
    vcpus: int
    affinity: object
    work: object
    vnic: object
    streams: int
    background: tuple
    measuring: bool
    phases: tuple | None  # its worker vCPUs' fixed phases, None: the workload model's


class _TrafficVmSpec(NamedTuple):
    """What a VM sending bulk traffic is built from."""

    name: str
    group: str
    cpu: dict
    vcpus: int
    vnic: object
    traffic: object
    where: str
    stack: SenderCosts | None = None


class Host:
    """One replication's model, built: the machine and every VM, vNIC and uplink on it.

    ``receivers`` holds one recorder per media-server VM for its monitored
    conference (``receiver_groups`` its VM group, ``jitter_buffer`` the buffer
    they play through); ``client`` is the first media-server VM's (None without one), the
    measuring client when the scenario has a measuring conference. ``servers``,
    ``traffic``, ``cpu_bound``, ``rr`` (request/response chains or None),
    ``replay`` (VMs replaying packets traces or None), ``sip`` (SIP servers with their clients),
    ``web_apps`` (web applications with their users),
    ``vnics``, ``uplink``, ``background_tasks`` and ``host_steal`` are the
    components an engine runs (by the protocols of ``vsim.guest.workload``) and
    a summary reads; ``vm_group`` maps each VM's name to its scenario group
    ("vm" for [vm]'s).
    """

    def __init__(self, loaded, seed):
        models = {role: model.values for role, model in loaded.models.items()}
        self.scenario = loaded.scenario
        self.voice_flows, self.traffic_groups = [], []
        self.traffic_vms = []  # the bulk traffic VMs' vCPU groups, whose CPU is modelled
        self.vm_group = {}  # VM name -> its scenario group ("vm" for [vm]'s), for the summary
        self.env = Environment()
        streams = RandomStreams(seed)
        self._build_machine(models["host"], models["scheduler"], loaded.steal)
        self.codec = models["codec"]
        self.rtp_interval = self.codec.packet_interval
        self.ip_bytes = ip_bytes_for_rtp(self.codec.payload_bytes)
        self.background = self.scenario.vm.background(models["workload"])
        specs = list(self._vm_specs(loaded))
        traffic_specs = list(self._traffic_specs(loaded))
        web_groups = [group for group in self.scenario.group if group.workload == "web_app"
                      for _ in range(group.count)]
        self.uplink = make_host_uplink(self.scenario, models["nic"], self.ip_bytes,
                                       [spec.group for spec in specs] + [t.group for t in traffic_specs]
                                       + [group.name for group in web_groups],
                                       streams.stream("uplink"), loaded.source)
        self._add_receivers(specs, models["client"], streams)
        self.vms: list[Group] = []
        self.vnics: list[VnicTransmit] = []
        self.servers: list[MediaServer] = []
        self.expiries: dict[tuple[float, float], SharedExpiry] = {}
        self.traffic: list[TrafficVm] = []
        for spec, receiver in zip(specs, self.receivers):
            self._add_media_server(spec, receiver, streams)
        self.rr: RequestResponseTraffic | None = None
        self.replay: ReplayedTraffic | None = None
        for index, spec in enumerate(traffic_specs):
            self._add_traffic_vm(spec, index, models["nic"], loaded.source, streams,
                                 exclusive=not specs)
        self.web_apps: list[WebApp] = [
            self._add_web_app(group, index, VOICE_CLASS + 1 + len(traffic_specs) + k, loaded, streams)
            for k, (group, index) in enumerate(self._web_app_instances())]
        self.cpu_bound: list[CpuBoundVm] = [self._add_cpu_bound_vm(group, index, streams)
                          for group in self.scenario.group if group.workload == "cpu_bound"
                          for index in range(group.count)]
        self.dom0: DriverDomain | None = next(
            (self._add_dom0(group) for group in self.scenario.group if group.workload == "dom0"), None)
        self.sip: list[SipService] = [self._add_sip_server(group, index, loaded, streams)
                                      for group in self.scenario.group if group.workload == "sip_server"
                                      for index in range(group.count)]
        self.tcp_receivers: list[TcpReceiver] = [
            self._add_tcp_receiver(group, index, loaded) for group in self.scenario.group
            if group.workload == "tcp_receiver" for index in range(group.count)]
        self.disk_benchmarks: list[DiskBenchmark] = [
            self._add_disk_benchmark(group, index, loaded, streams) for group in self.scenario.group
            if group.workload == "disk_benchmark" for index in range(group.count)]
        self.background_tasks = BackgroundTasks(self.machine, self.scenario.host.background_tasks,
                                                self.linux)
        self.host_steal = HostSteal(self.machine, loaded.steal, loaded.source)

    def _build_machine(self, host, sched, steal):
        """The host: its topology (one thread per core with hyper-threading off) and the
        ``Machine`` running the scheduler model's policy (under the steal trace's, if any)."""
        self.topology = host.topology(self.scenario.host.hyperthreading)
        policy = policy_for(make_policy(sched.policy, **sched.policy_params()), steal)
        self.machine = Machine(self.env, self.topology, policy, quantum=sched.quantum,
                               period=sched.period, costop_threshold=sched.machine_costop_threshold())
        self.linux = sched.policy == cgroups.POLICY

    def _add_receivers(self, specs, client_model, streams):
        """One recorder per media-server VM for its monitored conference, the jitter buffer
        they play through and which of them is the measuring client."""
        client = self.scenario.client
        self.receivers = [MeasuringClient(client_model.latency, self._stalls(client_model, index, streams))
                          for index in range(len(specs))]
        self.receiver_groups = [spec.group for spec in specs]
        self.jitter_buffer = jitter_buffer(client, client_model)
        self.client = self.receivers[0] if specs else None
        self.measuring = client.measuring_conference and bool(specs)

    @staticmethod
    def _stalls(client_model, index, streams):
        """The receive stalls of the client of the ``index``-th media-server VM, each on a
        random stream of its own; None when the client model has none."""
        if not client_model.stall_rate:
            return None
        return ReceiveStalls(client_model.stall_rate, client_model.stall_duration,
                             streams.stream(f"client{index}.stalls"))

    def _shared_expiry(self, work, streams):
        """The host's one timer expiry for the aligned workers of a workload with
        ``shared_expiry`` (one per timer model, on a stream of its own); None without."""
        if not (work.shared_expiry and work.aligned_phases):
            return None
        key = (work.timer_median, work.timer_sigma)
        if key not in self.expiries:
            self.expiries[key] = SharedExpiry(TimerLatency(streams.stream(f"host.expiry{len(self.expiries)}"),
                                                           *key))
        return self.expiries[key]

    def _add_media_server(self, spec, receiver, streams):
        """A media-server VM: its vCPUs, its vNIC's transmit world sending to ``receiver``
        and, on an uplink scheduler, its port and its frames' flow."""
        shared = isinstance(self.uplink, SharedUplink)
        vnic, work, codec = spec.vnic, spec.work, self.codec
        group = self._add_vm(spec.name, spec.cpu, spec.vcpus, spec.affinity,
                             (work.refill_same_socket, work.refill_other_socket))
        tx_world = self._add_transmit_world(spec.name, spec.cpu, spec.vcpus)
        port = self.uplink.add_port(spec.name) if shared else None
        tx = VnicTransmit(self.env, self.machine, tx_world, self.uplink, receiver,
                          tx_cost=vnic.tx_cost, rx_cost=vnic.rx_cost, ring_size=vnic.tx_ring,
                          wake_rate_hz=vnic.wake_rate_hz, port=port, ip_bytes=self.ip_bytes)
        burst, interval = spec.background
        server = MediaServer(self.env, self.machine, group, tx, streams, spec.name,
                             streams=spec.streams, participants=work.participants,
                             tick=codec.packet_interval, frame_cost=work.frame_cost,
                             frame_cost_cv=work.frame_cost_cv,
                             tick_overhead=work.tick_overhead + work.wake_cost,
                             timer_median=work.timer_median, timer_sigma=work.timer_sigma,
                             measuring_conference=spec.measuring,
                             background_burst=burst, background_interval=interval,
                             aligned_phases=work.aligned_phases, phases=spec.phases,
                             expiry=self._shared_expiry(work, streams), emission=work.emission)
        if shared:
            frames = sum(worker.streams for worker in server.workers)
            flow = self.uplink.add_flow(port, self.ip_bytes, VOICE_CLASS, discrete=True)
            self.voice_flows.append((flow, frames / codec.packet_interval))
        self.vms.append(group)
        self.vm_group[spec.name] = spec.group
        self.vnics.append(tx)
        self.servers.append(server)

    def _add_traffic_vm(self, spec, index, nic, source, streams, exclusive):
        """A [[group]] VM sending traffic: request/response chains (``_add_request_response``)
        or bulk traffic on a port and flow of its own, its guest and vNIC CPU modelled
        (``SenderCpu``, handing over its work at a phase of the accounting period drawn from
        the VM's own stream: VMs started together do not hand over their work together)."""
        group = self._add_vm(spec.name, spec.cpu, spec.vcpus, None)
        traffic, vnic = spec.traffic, spec.vnic
        rng = streams.stream(f"{spec.name}.traffic")
        probe = make_source(traffic.kind, traffic.params, source, spec.where, rng)
        if isinstance(probe, Replay):
            self._add_replay(spec, with_recorded_packets(probe, source, spec.where), index)
            return
        if probe.discrete:
            self._add_request_response(spec, probe, index, nic, exclusive, rng)
            return
        tx_world = self._add_transmit_world(spec.name, spec.cpu, spec.vcpus)
        port = self.uplink.add_port(spec.name)
        counted = probe.counted_bytes(vnic.tso_frames) if hasattr(probe, "counted_bytes") else None
        traffic_class = VOICE_CLASS + 1 + index
        window = probe.in_flight_packets() if hasattr(probe, "in_flight_packets") else 0.0
        flow = self.uplink.add_flow(port, probe.ip_bytes, traffic_class, elastic=probe.elastic,
                                    discrete=probe.discrete, counted_bytes=counted,
                                    in_flight=window, rtt=getattr(probe, "rtt", None) or 0.0)
        if not (probe.elastic or probe.discrete):  # a flood: its packets' arrivals
            assert isinstance(probe, Flood)
            self.uplink.scheduler.declare_arrivals(port, traffic_class, probe.arrivals, probe.batches)
        interrupts = CompletionInterrupts(self.uplink, flow, vnic.tso_frames, vnic.wake_rate_hz,
                                          nic.completion_hold())
        # a TCP sender's vSwitch packets are TSO segments of tso_frames frames
        segment = vnic.tso_frames if probe.elastic else 1
        tx_cost, frame_cost, interrupt_cost = vnic.tx_cost / segment, vnic.guest_tx_cost, vnic.interrupt_cost
        if spec.stack is not None:  # the stack's costs per frame, its device's interrupts in them
            tx_cost, frame_cost, interrupt_cost = spec.stack.world_per_frame, spec.stack.vcpu_per_frame, 0.0
        cpu = SenderCpu(self.env, self.machine, group.worlds, tx_world, tx_cost,
                        partial(self.uplink.frames_rate, flow), spin=not probe.elastic,
                        interrupts=interrupts, interrupt_cost=interrupt_cost,
                        frame_cost=frame_cost,
                        phase=float(streams.stream(f"{spec.name}.cpu_phase").random()),
                        handed=partial(self.uplink.frames_handed, flow))
        self.traffic.append(TrafficVm(
            self.env, self.uplink, flow, traffic.kind, traffic.params,
            active_from=traffic.active_from, active_until=traffic.active_until,
            rng=rng, cpu=cpu, source=source, where=spec.where))
        self.traffic_groups.append(spec.group)
        self.traffic_vms.append(group)
        self.vm_group[spec.name] = spec.group

    def _add_cpu_bound_vm(self, group, index, streams) -> CpuBoundVm:
        """A [[group]] VM that only computes (``vsim.guest.cpu_bound``): its vCPUs, no vNIC."""
        name = f"{group.name}[{index}]"
        vm = self._add_vm(name, cpu_settings(group), group.vcpus, None)
        self.vm_group[name] = group.name
        return CpuBoundVm(self.machine, scheduler_for(self.env), vm.worlds, group.cpu_demand, group.cpu_burst,
                          streams.stream(f"{name}.cpu_bound"))

    def _add_dom0(self, group) -> DriverDomain:
        """The [[group]] VM of workload = "dom0" (``vsim.guest.driver_domain``): its vCPUs
        carry the SIP servers' messages; built before them so that each finds it."""
        name = f"{group.name}[0]"
        vm = self._add_vm(name, cpu_settings(group), group.vcpus, None)
        self.vm_group[name] = group.name
        return DriverDomain(self.machine, vm)

    def _add_sip_server(self, group, index, loaded, streams) -> SipService:
        """A [[group]] VM serving SIP calls (``vsim.guest.sip_service``): its vCPUs run the
        server's worker threads; its client, the group's sipp_uac source, runs off the host."""
        name = f"{group.name}[{index}]"
        vm = self._add_vm(name, cpu_settings(group), group.vcpus, None)
        self.vm_group[name] = group.name
        where = f"group.{group.name}.traffic.params"
        uac = make_source(group.traffic.kind, group.traffic.params, loaded.source, where)
        assert isinstance(uac, SippUac)  # the schema gives a SIP server no other client
        gc = loaded.models.get(group_role(group.name, "gc"))
        now = partial(getattr, self.env, "now")  # the time, read without a Python frame
        return SipService(name, group.name, vm, self.machine, scheduler_for(self.env), now,
                          uac, loaded.models[group_role(group.name, "workload")].values,
                          None if gc is None else gc.values, streams.stream(f"{name}.sip"),
                          dom0=self.dom0)

    def _add_tcp_receiver(self, group, index, loaded) -> TcpReceiver:
        """A [[group]] VM receiving a TCP stream from off the host (``vsim.guest.tcp_receiver``):
        its first vCPU reads the stream, whose segments cross the driver domain when there is one."""
        name = f"{group.name}[{index}]"
        vm = self._add_vm(name, cpu_settings(group), group.vcpus, None)
        self.vm_group[name] = group.name
        return TcpReceiver(name, group.name, vm, self.machine, scheduler_for(self.env),
                           lambda: self.env.now,
                           loaded.models[group_role(group.name, "workload")].values, dom0=self.dom0)

    def _add_disk_benchmark(self, group, index, loaded, streams) -> DiskBenchmark:
        """A [[group]] VM running a disk benchmark (``vsim.guest.disk_benchmark``): its first vCPU
        issues the requests, which cross the driver domain when there is one."""
        name = f"{group.name}[{index}]"
        vm = self._add_vm(name, cpu_settings(group), group.vcpus, None)
        self.vm_group[name] = group.name
        return DiskBenchmark(name, group.name, vm, self.machine, scheduler_for(self.env),
                             lambda: self.env.now,
                             loaded.models[group_role(group.name, "workload")].values,
                             streams.stream(f"{name}.disk"), dom0=self.dom0)
    def _web_app_instances(self):
        """(group, index) of each web application, in the order their web VMs' ports were
        given to the uplink."""
        return [(group, index) for group in self.scenario.group if group.workload == "web_app"
                for index in range(group.count)]

    def _add_web_app(self, group, index, traffic_class, loaded, streams) -> WebApp:
        """A [[group]] web application (``vsim.guest.web_app``): its web VM, with a port on the
        uplink, and its database VM, each of the group's vCPUs and CPU settings; its users, the
        group's web_users source, run off the host."""
        name = f"{group.name}[{index}]"
        settings = cpu_settings(group)
        web = self._add_vm(name, settings, group.vcpus, None)
        db = self._add_vm(f"{name}.db", settings, group.vcpus, None)
        self.vm_group[name] = self.vm_group[f"{name}.db"] = group.name
        users = make_source(group.traffic.kind, group.traffic.params, loaded.source,
                            f"group.{group.name}.traffic.params")
        assert isinstance(users, WebUsers)  # the schema gives a web application no other client
        port = self.uplink.add_port(name)
        flow = self.uplink.add_flow(port, users.ip_bytes, traffic_class, discrete=True)
        return WebApp(name, group.name, web, db, self.machine, scheduler_for(self.env),
                      lambda: self.env.now, self.uplink, port, flow, traffic_class,
                      loaded.models["nic"].values,
                      loaded.models[group_role(group.name, "workload")].values, users,
                      streams.stream(f"{name}.users"))

    def _add_request_response(self, spec, source, index, nic, exclusive, rng):
        """A VM of request/response chains (``vsim.guest.request_response``) on a port of its
        own; its CPU is not modelled (the NIC model's host path latency stands for its stack)."""
        if self.rr is None:
            self.rr = RequestResponseTraffic(self.env, self.uplink, nic, exclusive)
        port = self.uplink.add_port(spec.name)
        traffic_class = VOICE_CLASS + 1 + index
        flow = self.uplink.add_flow(port, source.ip_bytes, traffic_class, discrete=True)
        self.rr.add_vm(spec.name, spec.group, port, flow, traffic_class, source,
                       (spec.traffic.active_from, spec.traffic.active_until), rng)

    def _add_replay(self, spec, source, index):
        """A VM replaying a packets trace (``vsim.guest.replayed_traffic``) on a port of its own;
        its CPU is not modelled."""
        if self.replay is None:
            self.replay = ReplayedTraffic(self.env, self.uplink)
        port = self.uplink.add_port(spec.name)
        traffic_class = VOICE_CLASS + 1 + index
        flow = self.uplink.add_flow(port, source.ip_bytes, traffic_class, discrete=True)
        self.replay.add_vm(spec.name, spec.group, port, flow, traffic_class, source,
                           (spec.traffic.active_from, spec.traffic.active_until))

    def record_wakeups(self):
        """Keep every worker's timer wakeups (``WorkerVcpu.wakes``); call before ``run``."""
        for server in self.servers:
            for worker in server.workers:
                worker.wakes = []

    def _add_vm(self, name, cpu, vcpus, affinity, refill=(0.0, 0.0)):
        """A VM's CPU group with its vCPU worlds, added to the machine (on a Linux host its
        shares become the cgroup weight, ``vsim.build.cgroups``); ``refill`` is what a vCPU
        pays to refill its caches after moving to another core of its socket, and of another
        socket (``World``)."""
        shares = cgroups.cgroup_weight(cpu["shares"], vcpus) if self.linux else cpu["shares"]
        group = Group(name, shares=shares, reservation=cpu["reservation"],
                      limit=cpu["limit"] if cpu["limit"] is not None else math.inf)
        same_socket, other_socket = refill
        for j in range(vcpus):
            World(f"{name}.vcpu{j}", group, affinity=affinity, refill_same_socket=same_socket,
                  refill_other_socket=other_socket)
        self.machine.add_group(group)
        return group

    def _add_transmit_world(self, name, cpu, vcpus):
        """A VM's vNIC transmit world in a group of its own (a cgroup of default weight on Linux),
        of the ``HYPERVISOR`` role: the hypervisor's work for the VM, not one of the VMs.

        Under proportional share it holds one vCPU's part of its VM's shares (``cpu``'s over
        ``vcpus``: 1000 by default), as a VM's helper worlds draw on the VM's allocation, so
        scaling every VM's shares by one factor changes nothing (a fixed 1000 starved the
        transmit worlds of VMs given ten times the default shares)."""
        shares = cgroups.CGROUP_WEIGHT_DEFAULT if self.linux else cpu["shares"] / vcpus
        tx_group = Group(f"{name}.vnic-tx", shares=shares, cosched=False, role=HYPERVISOR)
        tx_world = World(f"{name}.vnic-tx", tx_group)
        self.machine.add_group(tx_group)
        return tx_world

    def _vm_specs(self, loaded):
        """The media-server VMs: [vm]'s instances, then each media-server [[group]]'s VMs; the
        first of them hosts the measuring conference (the first media-server group's first VM
        when [vm] has no instances)."""
        scenario, models = loaded.scenario, loaded.models
        vm = scenario.vm
        measuring = scenario.client.measuring_conference
        work, vnic = models["workload"].values, models["vnic"].values
        for i in range(vm.instances):
            affinity = self._home_node(i) if scenario.host.numa_home_nodes else vm.affinity
            yield _ServerVm(f"vm{i}", "vm", cpu_settings(scenario.vm_settings(i)), vm.vcpus,
                            affinity, work, vnic, vm.streams_per_instance, self.background,
                            measuring, vm.vm_phases(i))
            measuring = False
        for group in scenario.group:
            if group.workload != "media_server":
                continue
            work = models[group_role(group.name, "workload")].values
            vnic = models[group_role(group.name, "vnic")].values
            for i in range(group.count):
                yield _ServerVm(f"{group.name}[{i}]", group.name, cpu_settings(group), group.vcpus,
                                None, work, vnic, group.streams, group.background(work), measuring,
                                group.vm_phases(i))
                measuring = False

    @staticmethod
    def _traffic_specs(loaded):
        """The VMs that send bulk traffic: each [[group]] VM with a traffic table (checked
        when the scenario was loaded)."""
        for group in loaded.scenario.group:
            if group.uplink_traffic is None:
                continue
            vnic = loaded.models[group_role(group.name, "vnic")].values
            if group.stack is not None and group.traffic.kind != "tcp_stream":
                raise InputError(loaded.source, f"group.{group.name}.stack",
                                 f"expected a stack only for tcp_stream traffic, got {group.traffic.kind!r}")
            stack = stream_sender_costs(loaded, group, vnic.tso_frames)
            for i in range(group.count):
                yield _TrafficVmSpec(f"{group.name}[{i}]", group.name, cpu_settings(group),
                                     group.vcpus, vnic, group.traffic, f"group.{group.name}.traffic.params",
                                     stack)

    def _home_node(self, index):
        """Logical CPUs of VM ``index``'s NUMA home node: the sockets in turn.

        ESXi places a VM on the least loaded node and runs it only there; for
        identical VMs that deals them round-robin, and with a node's load at
        most one VM from the other's, no rebalancing move improves it.
        """
        topology = self.topology
        per_node = topology.logical_cpus // topology.sockets
        node = index % topology.sockets
        return range(node * per_node, (node + 1) * per_node)


def jitter_buffer(client, model):
    """The jitter buffer the scenario's ``[client]`` section chooses, with the client model's
    parameters (``jitter_buffer_nominal`` of the section in place of the model's)."""
    if client.jitter_buffer == "adaptive":
        return AdaptiveBuffer(model.playout_smoothing, model.playout_variation_factor,
                              model.talkspurt)
    if client.jitter_buffer_nominal is None:
        return FixedBuffer(model.jitter_buffer_nominal)
    return FixedBuffer(client.jitter_buffer_nominal)
