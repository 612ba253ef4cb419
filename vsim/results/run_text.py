"""The text ``vsim run`` prints: a run's summary (``Simulation.run``) as aligned lines for a reader.

The header names the scenario, config, seed, duration, warm-up and engine,
and the host's models; then, when they apply, the parameters the scenario sets, the measured VM's own
CPU settings, the voice lines (jitter, packets sent against offered) and the
measuring client's stalls; always
the host CPU and one line per VM as esxtop reports it; the voice-quality
section; the uplink's groups; and the outer hypervisor's steal. A section the
summary lacks (no voice, no uplink) prints nothing, so the text says only what
the run modelled. ``vsim run --json`` writes the summary itself instead; this
module only formats it, apart from the simulation that produces it and the
command line that chooses between the two.
"""

import json


CONFIGURED_SHORTFALL = 0.99
"""Below this share of its configured packet rate a bulk group's offered rate is named beside
it: its senders (their CPU, its on/off periods outside the window) handed over less."""


def run_text(name, config, seed, duration, warmup, engine, summary, params=None, models=None):
    """The text of ``vsim run``: the header names the warm-up used (``--duration`` may shorten
    it, and it makes the voice's measuring window) and the host's models (``models``: role ->
    ref, of which host, scheduler, nic and workload are named), the voice lines appear only when
    the scenario has voice, and the host CPU says what it leaves out."""
    host = summary.host
    lines = [f"{name}  ({config}, seed {seed}, {duration:g} s, warm-up {warmup:g} s, {engine} engine)"]
    named = [f"{role} {models[role]}" for role in ("host", "scheduler", "nic", "workload") if role in (models or {})]
    if named:
        lines.append("models     " + "  ".join(named) + "  (vsim describe REF: its parameters and sources)")
    if params:
        lines.append("params     " + "  ".join(f"{role}.{key} = {json.dumps(value)}"
                                               for role, values in params.items()
                                               for key, value in values.items())
                     + "  (set by the scenario or --set, not the model files)")
    if summary.measured_vm:
        lines.append("measured   " + "  ".join(
            f"{key} {_cpu_setting(key, value.measured)} (others {_cpu_setting(key, value.others)})"
            for key, value in summary.measured_vm.items()) + "  (vm0's own settings)")
    if summary.voice.offered_pps:
        lines += _voice_lines(summary, duration - warmup)
    stalls = summary.client_stalls
    if stalls is not None:
        lines.append(f"client     {stalls.count} stalls of {stalls.length_ms:g} ms "
                     f"({stalls.stalled_pct:.3f}% of the time)  (the measuring client's "
                     f"receiving thread; packets arriving during one are read at its end)")
    uplink = summary.uplink
    unmodelled = [what for what, section in (("request/response", uplink and uplink.request_response),
                                             ("replayed", uplink and uplink.replayed))
                  if section]
    lcpus = len(host.lcpu_util_pct)
    lines.append(f"host CPU   {host.cpu_util_pct:.1f}% of {lcpus} logical CPU{'s' * (lcpus != 1)} "
                 f"(esxtop PCPU UTIL)  core {host.core_util_pct:.1f}%"
                 + (f"  ({' and '.join(unmodelled)} traffic's CPU is not modelled)"
                    if unmodelled else ""))
    tasks = summary.host_background_tasks
    if tasks is not None:
        lines.append(f"host tasks used {tasks.used_pct:.1f}%  ready {tasks.ready_pct:.1f}%  "
                     f"({tasks.tasks} always-runnable tasks outside the VMs, host.background_tasks; "
                     f"% of one CPU, summed)")
    background = summary.guest_background
    if background is not None:
        lines.append(f"background {background.bursts_per_vm_per_s:.2f} bursts/s per VM of "
                     f"{background.burst_ms:g} ms  ({background.cpu_pct_of_vm:.2f}% of each VM's vCPUs)")
    lines.append(f"{'VM CPU':<10} % of one vCPU, summed over the VM's vCPUs, as esxtop (up to 100 x vCPUs)")
    lines += [f"{vm:<10} used {v.cpu.used_pct:.1f}%  ready {_ready(v.cpu)}  "
              f"costop {v.cpu.costop_pct:.1f}%  jitter {_ms(v.jitter_mean_ms)}  "
              f"p99 {_ms(v.jitter_p99_ms)}" for vm, v in summary.vms.items()]
    lines += [f"{vm:<10} used {t.cpu.used_pct:.1f}%  ready {_ready(t.cpu)}  "
              f"costop {t.cpu.costop_pct:.1f}%  (traffic VM)"
              for vm, t in (summary.traffic_vms or {}).items()]
    lines += [f"{vm:<10} used {c.cpu.used_pct:.1f}%  ready {_ready(c.cpu)}  "
              f"costop {c.cpu.costop_pct:.1f}%  work {c.work_pct:.1f}%  (CPU-bound VM, wants {c.demand_pct:.0f}%)"
              for vm, c in (summary.cpu_bound_vms or {}).items()]
    for vm, s in (summary.sip or {}).items():
        lines.append(f"{vm:<10} used {s.cpu.used_pct:.1f}%  ready {_ready(s.cpu)}  "
                     f"({s.cpu_util_pct:.1f}% of its vCPUs; SIP server)")
        lines.append(f"{'':<10} calls/s {s.calls_attempted_per_s:.1f} attempted  "
                     f"{s.calls_successful_per_s:.1f} successful  {s.calls_failed_per_s:.2f} failed  "
                     f"{s.calls_unfinished_per_s:.1f} unfinished  "
                     f"({s.retransmissions} retransmitted, {s.queue_dropped} dropped by its queue)")
        lines.append(f"{'':<10} setup (INVITE to ACK) p50 {_ms(s.setup_p50_ms)}  p95 {_ms(s.setup_p95_ms)}  "
                     f"response time p50 {_ms(s.response_time_p50_ms)}  p95 {_ms(s.response_time_p95_ms)}  "
                     f"GC {s.gc_pauses} pauses, longest {s.gc_pause_max_ms:.1f} ms, "
                     f"{s.gc_paused_pct:.2f}% of the time")
    lines += [f"{vm:<10} used {d.cpu.used_pct:.1f}%  ready {_ready(d.cpu)}  "
              f"(Xen's Dom0: {d.messages} guest messages carried)"
              for vm, d in (summary.dom0 or {}).items()]
    lines += [f"{vm:<10} used {r.cpu.used_pct:.1f}%  ready {_ready(r.cpu)}  "
              f"(TCP receiver: {r.throughput_mbps:.2f} Mb/s read)"
              for vm, r in (summary.tcp_receivers or {}).items()]
    lines += [f"{vm:<10} used {d.cpu.used_pct:.1f}%  ready {_ready(d.cpu)}  "
              f"(disk benchmark: {d.throughput_mb_per_s:.2f} MB/s, {d.requests_per_s:.0f} requests/s, "
              f"disk busy {d.disk_busy_pct:.0f}%)"
              for vm, d in (summary.disk_benchmarks or {}).items()]
    for app, w in (summary.web_apps or {}).items():
        for tier, vm in (("web", w.web), ("database", w.database)):
            lines.append(f"{app:<10} used {vm.cpu.used_pct:.1f}%  ready {_ready(vm.cpu)}  "
                         f"({vm.cpu_util_pct:.1f}% of its vCPUs; {tier} VM)")
        lines.append(f"{'':<10} {w.users} users, think {w.think_time_s:g} s: "
                     f"{w.operations_per_s:.1f} operations/s ({w.requests_per_s:.0f} requests/s, "
                     f"{w.retransmissions} retransmitted)")
        lines.append(f"{'':<10} response time mean {_ms(w.response_time_mean_ms)}  "
                     f"p50 {_ms(w.response_time_p50_ms)}  p90 {_ms(w.response_time_p90_ms)}  "
                     f"p99 {_ms(w.response_time_p99_ms)}")
    lines += _quality_lines(summary.voice_quality)
    if summary.uplink is not None:
        lines += _uplink_lines(summary.uplink)
    steal = summary.host_steal
    if steal is not None:
        lines.append(f"steal      {steal.stolen_pct:.3f}% of the logical CPUs' time  "
                     f"(the outer hypervisor, replayed from host.steal_trace)")
    return "\n".join(lines)


def _voice_lines(summary, window):
    """The voice lines of ``vsim run``: the measuring conference's and every VM's jitter, then the
    packets the guests sent in the ``window`` (seconds after warm-up) against the offered rate
    (below it they fall behind their ticks) and those the host delivered."""
    jitter, across, voice = summary.jitter, summary.instances_jitter, summary.voice
    sent = voice.packets_emitted / window if window > 0 else 0.0
    measured = (f"jitter     mean {_ms(jitter.mean_ms)}  p99 {_ms(jitter.p99_ms)}  "
                f"({jitter.samples} samples, measuring conference)" if jitter.measuring_conference
                else "jitter     no measuring conference (client.measuring_conference = false): "
                     "each VM's last conference below")
    if jitter.measuring_conference and not jitter.samples:
        measured += ": none of its packets arrived after warm-up"
        reason = no_samples_reason(summary, window)
        if reason:
            measured += f" ({reason}: see {'the loss' if 'lost' in reason else 'voice'} below)"
    counted = ""
    if across.vms_with_samples < across.vms:
        counted = f"; {across.vms_with_samples} of {across.vms} VMs had packets after warm-up"
    return [
        measured,
        f"all VMs    mean {_ms(across.mean_ms)}  p99 {_ms(across.p99_ms)}  "
        f"worst p99 {_ms(across.worst_p99_ms)}  (each VM's last conference{counted})",
        f"voice      sent {sent:.0f} of {voice.offered_pps:.0f} packets/s offered  "
        f"delivered {voice.packet_rate_pps:.0f} packets/s, {voice.bandwidth_mbps:.2f} Mb/s  "
        f"loss {100 * voice.loss_fraction:.3f}%",
    ]


def no_samples_reason(summary, window):
    """Why a run's measuring conference has no packets after warm-up, in a few words ('' when
    the summary does not say): all lost on the way, or the guests behind their ticks."""
    voice = summary.voice
    if summary.measured_packets and summary.measured_loss_fraction == 1.0:
        return "all were lost on the way"
    sent = voice.packets_emitted / window if window > 0 else 0.0
    if sent < voice.offered_pps:
        return "the guests fell behind their ticks"
    return ""


def _quality_lines(quality):
    """The voice-quality lines of ``vsim run``: the measuring conference, then each VM group,
    and the section's note (an adaptive buffer's start-up inside a short run). The one-way
    delay (from a packet's RTP time, so a guest behind its ticks adds to it) is the mean over
    the packets received, the buffer and mouth-to-ear delays over those played (late ones are
    not), as the summary defines them, so they are labelled apart."""
    buffer = quality.jitter_buffer
    kind = (f"fixed jitter buffer {buffer.nominal_ms:g} ms" if buffer.kind == "fixed"
            else "adaptive jitter buffer")
    measuring = quality.measuring_conference
    rows = [("measuring conference", None if measuring is None else measuring.quality)]
    rows += [(f"group {name}", entry) for name, entry in quality.groups.items()]
    lines: list[str] = []
    for label, entry in rows:
        if entry is None or not entry.packets:
            continue
        rating = ("R n/a  MOS n/a (the codec model gives no equipment_impairment for the E-model)"
                  if entry.r_factor is None else f"R {entry.r_factor:.1f}  MOS {entry.mos:.2f}")
        lines.append(f"{'quality' if not lines else '':<10} {rating}  "
                     f"loss {100 * entry.network_loss_fraction:.3f}% + late "
                     f"{100 * entry.late_fraction:.3f}%  one-way {_ms(entry.one_way_delay_mean_ms)}"
                     f"  played: buffer {_ms(entry.buffer_delay_mean_ms)} mouth-to-ear "
                     f"{_ms(entry.mouth_to_ear_ms)}  ({label}, {kind})")
    if lines and quality.note is not None:
        lines.append(f"{'':<10} note: {quality.note}")
    return lines


def _uplink_lines(uplink):
    """The uplink lines of ``vsim run``: each traffic group, each request/response group, each
    replaying group and the voice while the bulk traffic runs."""
    lines = [f"uplink     {uplink.scheduler}, {uplink.capacity_bps / 1e6:g} Mb/s"]
    for name, group in uplink.groups.items():
        lowest = group.min_second_mbps
        wanted, rate = (("demand", group.demand_pps) if group.demand_pps is not None
                        else ("offered", group.offered_pps))
        configured = group.configured_pps
        held_back = (f" ({configured:.0f} configured: the senders handed over less)"
                     if configured and rate < CONFIGURED_SHORTFALL * configured else "")
        lines.append(f"{'':<10} group {name}: {group.throughput_mbps:.1f} Mb/s "
                     f"(lowest VM second {'n/a' if lowest is None else f'{lowest:.1f}'})  "
                     f"{group.delivered_pps:.0f} of {rate:.0f} packets/s {wanted}"
                     f"{held_back}  {group.interrupts_per_s:.0f} interrupts/s")
    for name, rr in (uplink.request_response or {}).items():
        resent = rr.retransmissions
        lines.append(f"{'':<10} group {name}: {rr.transactions_per_s:.0f} transactions/s  "
                     f"one-way {rr.one_way_latency_mean_us:.2f} µs  "
                     f"p99 {rr.one_way_latency_p99_us:.2f} µs"
                     + (f"  {resent} requests lost and sent again" if resent else ""))
    for name, replay in (uplink.replayed or {}).items():
        if replay.offered_pps is None:
            continue
        delay = replay.uplink_delay_mean_us
        lines.append(f"{'':<10} group {name}: {replay.delivered_pps:.0f} of "
                     f"{replay.offered_pps:.0f} packets/s offered (replayed)  loss "
                     f"{100 * (replay.loss_fraction or 0.0):.2f}%"
                     + ("" if delay is None else f"  uplink delay {delay:.1f} µs  "
                        f"p99 {replay.uplink_delay_p99_us:.1f} µs"))
    during = uplink.during_traffic
    if during is not None and during.voice_loss_fraction is not None:
        conference = during.conference
        lines.append(f"{'':<10} voice while the bulk traffic runs: loss {during.voice_loss_pps:.0f}/s "
                     f"({100 * during.voice_loss_fraction:.2f}%)"
                     + (f"  jitter {_ms(conference.jitter_mean_ms)}  p99 {_ms(conference.jitter_p99_ms)}"
                        if conference is not None else ""))
    return lines


def _cpu_setting(key, value):
    """A VM's shares, or its reservation or limit in CPUs (None: no limit)."""
    if value is None:
        return "none"
    if key == "shares":
        return f"{value:g}"
    return f"{value:g} CPU" if value == 1 else f"{value:g} CPUs"


def _ms(value):
    """A time in milliseconds as the text prints it, "n/a" for a metric the run lacks."""
    return "n/a" if value is None else f"{value:.3f} ms"


def _ready(cpu):
    """A VM's ready %, and the part of it its CPU limit held it off the CPUs when there is one
    (esxtop's %MLMTD): ready time a limit causes needs a higher limit, not fewer neighbours."""
    ready = f"{cpu.ready_pct:.1f}%"
    limited = cpu.limited_pct
    return f"{ready} ({limited:.1f}% by its limit)" if limited > 0 else ready
