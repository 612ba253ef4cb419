"""The ``uplink`` part of a run's summary, for hosts with an uplink scheduler.

Per traffic group: packets offered (a flood's) or demanded (an elastic TCP
stream's greedy demand, which it scales down to what it is left without
loss, so it reports no loss fraction) and delivered per second and throughput,
averaged over the part of the measuring window when the group's traffic
runs (from its ``active_from`` to its ``active_until``; an on/off source's
silences count), its loss, the lowest throughput of any of its VMs in any
whole second of that time, and each second's throughput per VM over the
whole run. For the media servers' frames (the voice): loss per second over
the whole run (a Fig 6-style timeline), the uplink delay of the frames sent,
and, over the seconds when bulk traffic runs, the loss rate, the loss
fraction and the measuring conference's RFC 3550 jitter and latency, pooled
and per stream. Request/response groups (netperf TCP_RR) report their
transactions/s, one-way latency and uplink delay
(``RequestResponseTraffic.summary``); groups replaying a packets trace their
packets' rates, loss and uplink delay (``ReplayedTraffic.summary``).
"""

import math

import numpy as np

from vsim.core.units import mean_ms, p99_ms
from vsim.metrics.jitter import stream_jitter_samples
from vsim.net.frames import frame_bytes
from vsim.net.shared_uplink import SharedUplink
from vsim.net.sources.protocol import Flood
from vsim.results.finished_run import FinishedRun
from vsim.results.plain_data import from_json
from vsim.results.run_summary_types import (ConferenceWhileTraffic, DuringTraffic, ReplayedGroup,
                                            RequestResponseGroup, StreamWhileTraffic, Uplink,
                                            UplinkGroup, UplinkVoice, VoiceTimeline)

US = 1e6


def uplink_summary(sim: FinishedRun, uplink: SharedUplink, start, end, window, warmup):
    """Summary of ``sim``'s uplink, ``uplink``, between the ``start`` and ``end`` snapshots."""
    duration = warmup + window
    groups = group_summary(sim, uplink, start, end, warmup, duration)
    voice_ports = [vnic.port for vnic in sim.vnics]
    offered = sum((uplink.offered_per_s[port] for port in voice_ports), np.zeros(uplink.bins, np.int64))
    lost = sum((uplink.dropped_per_s[port] for port in voice_ports), np.zeros(uplink.bins, np.int64))
    mean_delay, p99_delay = uplink.delay_stats()
    traffic = traffic_window(sim, duration, warmup)
    return Uplink(
        scheduler=sim.scenario.host.uplink,
        capacity_bps=uplink.scheduler.rate_bps,
        throughput_definition="TCP streams: goodput (data bytes); floods: Ethernet frames "
                              "(header and FCS, no preamble or gap)",
        tx_stage_per_packet_us=uplink.scheduler.cost.per_packet * US,
        groups=groups,
        voice=UplinkVoice(
            delay_mean_us=None if mean_delay is None else mean_delay * US,
            delay_p99_us=None if p99_delay is None else p99_delay * US,
            delay_definition="from handing a frame to the uplink to its departure plus the "
                             "NIC's latency, frames sent over the whole run",
        ),
        timeline=VoiceTimeline(
            voice_offered_per_s=tuple(offered.tolist()),
            voice_lost_per_s=tuple(lost.tolist()),
            definition="media-server frames handed to the uplink and dropped there, per "
                       "second of the whole run (second i covers [i, i+1))",
        ),
        traffic_window_s=traffic if traffic else None,
        during_traffic=during_traffic(sim, offered, lost, traffic) if traffic else None,
        request_response=request_response(sim.rr) if sim.rr is not None else None,
        replayed=replayed(sim.replay) if sim.replay is not None else None,
    )


def request_response(rr):
    """The request/response groups' section, typed from the plain data the traffic reports
    (``RequestResponseTraffic.summary``)."""
    return {name: from_json(RequestResponseGroup, entry) for name, entry in rr.summary().items()}


def replayed(replay):
    """The replay groups' section, typed from the plain data the traffic reports
    (``ReplayedTraffic.summary``)."""
    return {name: from_json(ReplayedGroup, entry) for name, entry in replay.summary().items()}


def group_summary(sim: FinishedRun, uplink: SharedUplink, start, end, warmup, duration):
    """Per traffic group on ``sim``'s ``uplink``: rates, throughput, loss and interrupts while it
    runs after ``warmup``, between the ``start`` and ``end`` snapshots."""
    offered0, delivered0 = start["flows"]
    offered1, delivered1 = end["flows"]
    interrupts = end["interrupts"] - start["interrupts"]
    groups: dict[str, dict] = {}  # the sums so far, typed once complete
    for index, (vm, group) in enumerate(zip(sim.traffic, sim.traffic_groups)):
        first = max(vm.active[0] * duration, warmup)
        last = min(vm.active[1] * duration, duration)
        if last <= first:
            continue
        offered = (offered1 - offered0)[vm.flow] / (last - first)
        delivered = (delivered1 - delivered0)[vm.flow] / (last - first)
        mbps = throughput_mbps(vm.source, delivered)
        # an elastic (TCP) source sends what it is left, without loss: its rate is a demand
        wanted = "demand_pps" if vm.source.elastic else "offered_pps"
        entry = groups.setdefault(group, {wanted: 0.0, "delivered_pps": 0.0,
                                          "throughput_mbps": 0.0, "per_vm_mbps": [],
                                          "min_second_mbps": None,
                                          "interrupts_per_s": 0.0,
                                          "per_second_mbps": np.zeros(uplink.bins)})
        entry[wanted] += offered
        if isinstance(vm.source, Flood):  # what the source asks for, before its senders' CPU
            entry["configured_pps"] = entry.get("configured_pps", 0.0) + vm.source.mean_pps()
        entry["delivered_pps"] += delivered
        entry["throughput_mbps"] += mbps
        entry["per_vm_mbps"].append(mbps)
        entry["interrupts_per_s"] += float(interrupts[index]) / (last - first)
        entry["per_second_mbps"] = (entry["per_second_mbps"]
                                    + throughput_mbps(vm.source, uplink.delivered_per_s[vm.flow]))
        seconds = uplink.delivered_per_s[vm.flow, math.ceil(first):math.floor(last)]
        if seconds.size:
            lowest = throughput_mbps(vm.source, float(seconds.min()))
            entry["min_second_mbps"] = (lowest if entry["min_second_mbps"] is None
                                        else min(entry["min_second_mbps"], lowest))
    return {name: typed_group(entry) for name, entry in groups.items()}


def typed_group(entry):
    """A traffic group's ``UplinkGroup`` from its sums over its VMs: per-second throughput per
    VM, and the loss of what it offered (none for a demand, which a TCP stream scales down to
    what it is left)."""
    elastic = "demand_pps" in entry
    return UplinkGroup(
        offered_pps=entry.get("offered_pps"), demand_pps=entry.get("demand_pps"),
        delivered_pps=entry["delivered_pps"], throughput_mbps=entry["throughput_mbps"],
        per_vm_mbps=tuple(entry["per_vm_mbps"]), min_second_mbps=entry["min_second_mbps"],
        interrupts_per_s=entry["interrupts_per_s"],
        per_second_mbps=tuple((entry["per_second_mbps"] / len(entry["per_vm_mbps"])).tolist()),
        configured_pps=entry.get("configured_pps"),
        loss_fraction=None if elastic else (1 - entry["delivered_pps"] / entry["offered_pps"]
                                            if entry["offered_pps"] else 0.0))


def throughput_mbps(source, pps):
    """Mb/s of ``pps`` packets of ``source``: a TCP stream's goodput, else Ethernet frame bits."""
    if hasattr(source, "goodput_bps"):
        return source.goodput_bps(pps) / 1e6
    return pps * frame_bytes(source.ip_bytes) * 8 / 1e6


def traffic_window(sim: FinishedRun, duration, warmup=0.0):
    """(first, last) second of the run after ``warmup`` when all bulk traffic runs, or None
    without traffic: the window the bulk throughput covers, so the voice "while the traffic
    runs" is measured where the traffic's throughput is."""
    if not sim.traffic:
        return None
    first = max(max(vm.active[0] for vm in sim.traffic) * duration, warmup)
    last = min(vm.active[1] for vm in sim.traffic) * duration
    return (first, last) if last > first else None


def during_traffic(sim: FinishedRun, offered, lost, window):
    """Voice loss and the measuring conference's jitter over the whole seconds of ``window``."""
    first, last = math.ceil(window[0]), math.floor(window[1])
    seconds = slice(first, last)
    frames, dropped = int(offered[seconds].sum()), int(lost[seconds].sum())
    span = max(last - first, 0)
    return DuringTraffic(window_s=(first, last),
                         voice_loss_pps=dropped / span if span else None,
                         voice_loss_fraction=dropped / frames if frames else None,
                         conference=(conference_while(sim.client, first, last)
                                     if sim.measuring and sim.client is not None else None))


def conference_while(client, first, last):
    """The measuring conference's jitter and latency over [first, last), pooled and per stream."""
    streams, send, recv = client.arrays()
    inside = send < last
    received = inside & ~np.isnan(recv)
    samples = stream_jitter_samples(send[received], recv[received], streams[received], first)
    delays = (recv - send)[received & (send >= first)]
    return ConferenceWhileTraffic(
        jitter_mean_ms=mean_ms(samples),
        jitter_p99_ms=p99_ms(samples),
        latency_mean_ms=mean_ms(delays),
        latency_p99_ms=p99_ms(delays),
        latency_definition=("from a packet's RTP send time (its tick's nominal start) to "
                            "its arrival at the measuring client"),
        streams=tuple(stream_entry(streams, send, recv, stream, first, last)
                      for stream in np.unique(streams).tolist()))


def stream_entry(streams, send, recv, stream, first, last):
    """One measured stream's loss, mean jitter and mean latency over [first, last)."""
    mine = (streams == stream) & (send < last)
    counted = mine & (send >= first)
    got = mine & ~np.isnan(recv)
    samples = stream_jitter_samples(send[got], recv[got], streams[got], first)
    sent = int(np.count_nonzero(counted))
    delays = (recv - send)[counted & ~np.isnan(recv)]
    return StreamWhileTraffic(
        stream=int(stream),
        loss_fraction=int(np.count_nonzero(counted & np.isnan(recv))) / sent if sent else None,
        jitter_mean_ms=mean_ms(samples),
        latency_mean_ms=mean_ms(delays))
