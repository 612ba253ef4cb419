"""A run's summary: the ``RunSummary`` ``Simulation.run`` returns, built from two snapshots.

The run's counters are read at the end of the warm-up and at the end of the
run (``Simulation._snapshot``, or the closed form's ``uncontended.run``), and
everything here is their difference over that window, so the summary is the
same whichever engine played the run. It holds the measuring conference's
RFC 3550 jitter and loss (``jitter``, ``measured_*``) and the jitter over every
VM's monitored conference (``instances_jitter``); the media servers' frames
(``voice``: emitted, dropped, sent, offered, bandwidth); the host's CPU and
uplink utilisation (``host``); per media-server VM its CPU, in esxtop's
per-VM convention (``vms``, ``vms_definition``), and its monitored
conference's jitter and loss; per bulk traffic VM its CPU (``traffic_vms``), and per CPU-bound
VM its CPU and demand (``cpu_bound_vms``), per TCP receiver its throughput and CPU
(``tcp_receivers``); each VM's entry names
its scenario group (``group``: ``"vm"`` for [vm]'s VMs); the jitter buffer's view
(``voice_quality``, ``vsim.results.voice_quality``); and, where they apply,
the guest background bursts (``guest_background``), the CPU the host's own
tasks took (``host_background_tasks``), the uplink scheduler's
sections (``uplink``, ``vsim.results.uplink_summary``), the time an outer
hypervisor stole (``host_steal``), the measured VM's own CPU settings
(``measured_vm``), the SIP servers (``sip``, ``vsim.results.sip_summary``) and
the web applications (``web_apps``, ``vsim.results.web_app_summary``). Building it apart from the model keeps ``Simulation`` to
building and running, and lets each section be checked on its own; the
sections read the run only through ``vsim.results.finished_run.FinishedRun``, and their
shape is ``vsim.results.run_summary_types``.
"""

import numpy as np

from vsim.core.units import mean_ms, p99_ms, to_ms
from vsim.metrics.jitter import stream_jitter_samples
from vsim.net.frames import frame_bytes
from vsim.net.shared_uplink import SharedUplink
from vsim.config.cpu_settings import cpu_settings
from vsim.results.sip_summary import sip_vm
from vsim.results.web_app_summary import web_app
from vsim.results.run_summary_types import (ClientStalls, CpuBoundVm, DiskBenchmarkVm, Dom0Vm, GuestBackground, Host,
                                            HostBackgroundTasks, HostSteal, InstancesJitter, Jitter,
                                            MeasuredSetting, MediaVm, RunSummary, TcpReceiverVm,
                                            TrafficVm, VmCpu, Voice)
from vsim.results.uplink_summary import uplink_summary
from vsim.results.voice_quality import voice_quality_summary
from vsim.results.finished_run import FinishedRun

# The base of each VM's used_pct, ready_pct, costop_pct and limited_pct: esxtop's per-VM convention.
VM_CPU_DEFINITION = ("used_pct, ready_pct, costop_pct: % of one vCPU's time, summed over the VM's "
                     "vCPUs (esxtop's convention, up to 100 x vCPUs); limited_pct: the part of "
                     "ready_pct the VM's CPU limit held it off the CPUs (esxtop's %MLMTD)")


def run_summary(sim: FinishedRun, start, end, window, warmup):
    """``sim``'s summary between the ``start`` and ``end`` snapshots, ``window`` seconds after
    ``warmup``: one section per part of the model, the optional ones where they apply."""
    per_vm = [conference_jitter(receiver, warmup) for receiver in sim.receivers]
    vms = vms_section(sim, start, end, window, per_vm)
    jitter, instances_jitter, measured_packets, measured_loss_fraction = jitter_sections(sim, per_vm, vms)
    burst, _ = sim.background
    stalls = sim.client.stalls if sim.client is not None else None
    return RunSummary(
        jitter=jitter, instances_jitter=instances_jitter, measured_packets=measured_packets,
        measured_loss_fraction=measured_loss_fraction,
        voice=voice_section(sim, start, end, window),
        host=host_section(start, end, window),
        vms=vms,
        vms_definition=VM_CPU_DEFINITION,
        voice_quality=voice_quality_summary(sim, warmup),
        guest_background=(background_section(sim, start, end, window)
                          if burst > 0 and sim.scenario.vm.instances else None),
        traffic_vms=traffic_vms_section(sim, start, end, window) if sim.traffic_vms else None,
        cpu_bound_vms=cpu_bound_vms_section(sim, start, end, window) if sim.cpu_bound else None,
        host_background_tasks=(host_tasks_section(sim, start, end, window)
                               if sim.background_tasks.worlds else None),
        uplink=(uplink_summary(sim, sim.uplink, start, end, window, warmup)
                if isinstance(sim.uplink, SharedUplink) else None),
        host_steal=steal_section(sim, start, end, window) if sim.host_steal.worlds else None,
        client_stalls=stalls_section(stalls, warmup, warmup + window) if stalls is not None else None,
        measured_vm=measured_vm_section(sim.scenario) if sim.scenario.measured_vm.overrides() else None,
        sip={service.name: sip_vm(service, service.group, vm_cpu(service.vm, start, end, window),
                                  len(service.vm.worlds), warmup, warmup + window)
             for service in sim.sip} or None,
        dom0=dom0_section(sim, start, end, window),
        tcp_receivers=tcp_receivers_section(sim, start, end, window),
        disk_benchmarks=disk_benchmarks_section(sim, start, end, window),
        web_apps={app.name: web_app(app, vm_cpu(app.web_vm, start, end, window),
                                    vm_cpu(app.db_vm, start, end, window), warmup, warmup + window)
                  for app in sim.web_apps} or None,
    )


def disk_benchmarks_section(sim: FinishedRun, start, end, window):
    """Per disk benchmark (``vsim.guest.disk_benchmark``): what its requests completed over the
    window, in MB/s (10^6 B), the requests its disk served, the disk's busy share and its CPU;
    None without one."""
    benchmarks = getattr(sim, "disk_benchmarks", None)
    if not benchmarks:
        return None
    rows = {}
    for d in benchmarks:
        (b0, n0, t0), (b1, n1, t1) = start["disk_done"][d.name], end["disk_done"][d.name]
        rows[d.name] = DiskBenchmarkVm(group=d.group, throughput_mb_per_s=1e-6 * (b1 - b0) / window,
                                       requests_per_s=(n1 - n0) / window,
                                       disk_busy_pct=100 * (t1 - t0) / window,
                                       cpu=vm_cpu(d.vm, start, end, window))
    return rows


def tcp_receivers_section(sim: FinishedRun, start, end, window):
    """Per TCP receiver (``vsim.guest.tcp_receiver``): the payload its application read over the
    window, in Mb/s, and its CPU; None without one."""
    receivers = getattr(sim, "tcp_receivers", None)
    if not receivers:
        return None
    return {r.name: TcpReceiverVm(
                group=r.group,
                throughput_mbps=8e-6 * (end["tcp_received"][r.name] - start["tcp_received"][r.name]) / window,
                line_mbps=1e-6 * r.line_goodput_bps,
                cpu=vm_cpu(r.vm, start, end, window))
            for r in receivers}


def dom0_section(sim: FinishedRun, start, end, window):
    """Xen's driver domain, when the scenario has one: its CPU as every VM's, the messages it
    carried."""
    dom0 = getattr(sim, "dom0", None)
    if dom0 is None:
        return None
    return {dom0.vm.name: Dom0Vm(group=sim.vm_group[dom0.vm.name],
                                 cpu=vm_cpu(dom0.vm, start, end, window), messages=dom0.delivered)}


def stalls_section(stalls, first, last):
    """The measuring client's receive stalls over [first, last): how many began, the share of
    the time it was stalled, and their configured rate and length."""
    count, stalled = stalls.within(first, last)
    return ClientStalls(count=count,
                        stalled_pct=100 * stalled / (last - first) if last > first else 0.0,
                        rate_per_s=stalls.rate,
                        length_ms=1e3 * stalls.duration,
                        definition="stalls of the measuring client's receiving thread (Poisson starts, "
                                   "fixed length; overlapping ones join) that began after warm-up; "
                                   "packets arriving during one are read when it ends")


def conference_jitter(receiver, warmup):
    """(jitter samples, packets sent after warm-up, of them lost) of one receiver's conference."""
    streams, send, recv = receiver.arrays()
    in_window = send >= warmup
    received = ~np.isnan(recv)
    samples = stream_jitter_samples(send[received], recv[received], streams[received], warmup)
    return (samples, int(np.count_nonzero(in_window)),
            int(np.count_nonzero(in_window & ~received)))


def vms_section(sim: FinishedRun, start, end, window, per_vm):
    """Per media-server VM: its CPU (``VM_CPU_DEFINITION``) and its monitored conference's
    jitter and loss, from its ``per_vm`` entry (``conference_jitter``)."""
    vms = {}
    for index, (group, (vm_samples, vm_sent, vm_lost)) in enumerate(zip(sim.vms, per_vm)):
        measuring = index == 0 and sim.measuring
        vms[group.name] = MediaVm(group=sim.vm_group[group.name], cpu=vm_cpu(group, start, end, window),
                                  monitored="measuring conference" if measuring else "last load conference",
                                  jitter_mean_ms=mean_ms(vm_samples),
                                  jitter_p99_ms=p99_ms(vm_samples),
                                  monitored_loss_fraction=vm_lost / vm_sent if vm_sent else 0.0)
    return vms


def vm_cpu(group, start, end, window):
    """A VM's used, ready, co-stop and limited time over the window, summed over its vCPUs
    (``VM_CPU_DEFINITION``)."""
    return worlds_cpu(group.worlds, start, end, window)


def worlds_cpu(worlds, start, end, window):
    """Used, ready, co-stop and limited time of ``worlds`` over the window, summed, in % of the
    window (limited time is part of ready time)."""
    used = ready = costop = limited = 0.0
    for w in worlds:
        u0, r0, c0, l0 = start["worlds"][w.name]
        u1, r1, c1, l1 = end["worlds"][w.name]
        used, ready, costop, limited = used + u1 - u0, ready + r1 - r0, costop + c1 - c0, limited + l1 - l0
    return VmCpu(used_pct=100 * used / window, ready_pct=100 * ready / window,
                 costop_pct=100 * costop / window, limited_pct=100 * limited / window)


def traffic_vms_section(sim: FinishedRun, start, end, window):
    """Per bulk traffic VM (flood, TCP stream): its CPU as ``vms`` gives the media servers'.
    Kept apart from ``vms``, whose entries carry a conference's jitter these VMs do not have;
    request/response VMs are left out, their CPU not being modelled."""
    return {group.name: TrafficVm(group=sim.vm_group[group.name], cpu=vm_cpu(group, start, end, window))
            for group in sim.traffic_vms}


def cpu_bound_vms_section(sim: FinishedRun, start, end, window):
    """Per CPU-bound VM (``vsim.guest.cpu_bound``): its CPU as ``vms`` gives the media servers',
    the demand it was given, so used against wanted shows what it was denied, and the work it
    got done, so work against used shows what slower cores (a busy sibling thread, a busy
    socket) took from it."""
    return {vm.name: CpuBoundVm(group=sim.vm_group[vm.name], demand_pct=100 * vm.demand * len(vm.worlds),
                                work_pct=100 * (end["cpu_bound_work"][vm.name] - start["cpu_bound_work"][vm.name])
                                / window,
                                cpu=worlds_cpu(vm.worlds, start, end, window))
            for vm in sim.cpu_bound}


def host_tasks_section(sim: FinishedRun, start, end, window):
    """The CPU the host's own always-runnable tasks (``host.background_tasks``) used and waited for,
    summed over the tasks: what the VMs did not get."""
    worlds = sim.background_tasks.worlds
    cpu = worlds_cpu(worlds, start, end, window)
    return HostBackgroundTasks(tasks=len(worlds), used_pct=cpu.used_pct, ready_pct=cpu.ready_pct,
                               definition="used_pct, ready_pct: % of one logical CPU's time, summed "
                                          "over the host's always-runnable tasks outside the VMs "
                                          "(host.background_tasks)")


def jitter_sections(sim: FinishedRun, per_vm, vms):
    """The measuring conference's jitter and loss, and the jitter over every VM's monitored
    conference (its ``vms`` entries): ``jitter``, ``instances_jitter``, ``measured_packets`` and
    ``measured_loss_fraction``."""
    samples, measured, measured_lost = per_vm[0] if sim.measuring else (np.zeros(0), 0, 0)
    vm_means = [v.jitter_mean_ms for v in vms.values() if v.jitter_mean_ms is not None]
    vm_p99s = [v.jitter_p99_ms for v in vms.values() if v.jitter_p99_ms is not None]
    jitter = Jitter(
        measuring_conference=bool(sim.measuring),
        samples=int(samples.size),
        mean_ms=mean_ms(samples),
        p99_ms=p99_ms(samples),
        definition="RFC 3550 jitter held after each received packet of the measuring "
                   "conference's streams, pooled, after warm-up",
    )
    instances_jitter = InstancesJitter(
        mean_ms=float(np.mean(vm_means)) if vm_means else None,
        p99_ms=float(np.mean(vm_p99s)) if vm_p99s else None,
        worst_p99_ms=max(vm_p99s) if vm_p99s else None,
        vms=len(vms),
        vms_with_samples=len(vm_p99s),
        definition="each VM's last conference measured like the measuring conference; "
                   "mean over the VMs of their mean and 99th percentile, and the "
                   "highest 99th percentile, over the VMs with packets after warm-up "
                   "(vms_with_samples of vms)",
    )
    return jitter, instances_jitter, measured, measured_lost / measured if measured else 0.0


def voice_section(sim: FinishedRun, start, end, window):
    """The media servers' frames: emitted, dropped (vNIC rings and uplink), sent and offered."""
    emitted = end["emitted"] - start["emitted"]
    dropped = (end["ring_drops"] - start["ring_drops"]
               + end["uplink_dropped"] - start["uplink_dropped"])
    sent = end["uplink_sent"] - start["uplink_sent"]
    frame = frame_bytes(sim.ip_bytes)
    return Voice(
        packets_emitted=int(emitted),
        packets_dropped=int(dropped),
        loss_fraction=dropped / emitted if emitted else 0.0,
        packet_rate_pps=sent / window,
        offered_pps=sum(w.streams for srv in sim.servers for w in srv.workers) / sim.rtp_interval,
        bandwidth_mbps=sent * frame * 8 / window / 1e6,
        bandwidth_definition=f"Ethernet frames of {frame} B (header and FCS, no preamble or gap)",
    )


def host_section(start, end, window):
    """The host's CPU utilisation (per logical CPU, mean, per core) and its uplink's."""
    lcpu_util = (end["lcpu_busy"] - start["lcpu_busy"]) / window
    core_util = (end["core_busy"] - start["core_busy"]) / window
    return Host(
        cpu_util_pct=float(100 * lcpu_util.mean()),
        cpu_util_definition="esxtop PCPU UTIL%: mean over logical CPUs of the time not idle",
        core_util_pct=float(100 * core_util.mean()),
        lcpu_util_pct=tuple(float(100 * u) for u in lcpu_util),
        uplink_util_pct=100 * (end["uplink_busy"] - start["uplink_busy"]) / window,
        uplink_util_definition="link time of every frame the uplink sent (voice, bulk and "
                               "request/response): its wire time at the NIC's rate (the "
                               "transmit stage's time if longer; the tokens of a tc rate "
                               "under tbf or htb), over the window",
    )


def background_section(sim: FinishedRun, start, end, window):
    """The guest background bursts [vm]'s VMs ran after warm-up, per VM (a [[group]]'s media
    servers burst as their own workload says, and are not counted here)."""
    burst, _ = sim.background
    bursts = end["background_bursts"] - start["background_bursts"]
    instances = sim.scenario.vm.instances
    return GuestBackground(
        bursts_per_vm_per_s=bursts / instances / window,
        burst_ms=to_ms(burst),
        cpu_pct_of_vm=100 * bursts * burst / instances / window / sim.scenario.vm.vcpus,
        definition="Poisson bursts of guest background work queued with the media "
                   "ticks on a random worker vCPU, counted after warm-up",
    )


def measured_vm_section(scenario):
    """The CPU settings [measured_vm] gives the measured VM, beside the other VMs' ([vm])."""
    measured, others = cpu_settings(scenario.vm_settings(0)), cpu_settings(scenario.vm)
    return {key: MeasuredSetting(measured=measured[key], others=others[key])
            for key in scenario.measured_vm.overrides()}


def steal_section(sim: FinishedRun, start, end, window):
    """The time the outer hypervisor took from each logical CPU after warm-up (``host.steal_trace``)."""
    stolen = [0.0] * len(sim.machine.lcpu_world)
    for world in sim.host_steal.worlds:
        assert world.affinity is not None  # an outer world is pinned to its logical CPU
        (lcpu,) = world.affinity
        stolen[lcpu] = end["worlds"][world.name][0] - start["worlds"][world.name][0]
    return HostSteal(
        stolen_pct=100 * sum(stolen) / (window * len(stolen)),
        lcpu_stolen_pct=tuple(100 * s / window for s in stolen),
        definition="time each logical CPU was taken by the outer hypervisor replaying the "
                   "steal trace, after warm-up (counted in the host's PCPU UTIL too)",
    )
