"""A run's summary: each section built from the two snapshots of a short run, and its sums."""

import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, strategies as st

import vsim.engines.simulation as simulate_module
from vsim.metrics.jitter import stream_jitter_samples
from vsim.build.load import load_scenario
from vsim.results.run_summary import (conference_jitter, host_section, jitter_sections,
                                       measured_vm_section, run_summary, steal_section,
                                       vms_section, voice_section)
from vsim.results.run_summary_types import MeasuredSetting
from short_fig3 import fig3, with_model
from vsim.engines.simulation import Simulation, simulate

ROOT = Path(__file__).resolve().parents[2]


def captured_run(loaded, seed, duration=2.0, warmup=0.5):
    """Run ``loaded`` on the event engine; the simulation, the snapshots its summary was
    built from, the window and the summary."""
    got = {}

    def capture(sim, start, end, window, warmup):
        got.update(start=start, end=end, window=window)
        return run_summary(sim, start, end, window, warmup)
    patch = pytest.MonkeyPatch()
    patch.setattr(simulate_module, "run_summary", capture)
    try:
        sim = Simulation(loaded, seed, engine="events")
        summary = sim.run(duration, warmup)
    finally:
        patch.undo()
    return SimpleNamespace(sim=sim, summary=summary, warmup=warmup, **got)


@pytest.fixture(scope="module")
def three_vms():
    return captured_run(fig3("vm.instances=3"), 3)


@pytest.fixture(scope="module")
def overflowing():
    """Six VMs behind 16-descriptor rings and a 4-frame uplink queue: drops on busy ticks."""
    loaded = with_model(with_model(fig3("vm.instances=6"), "vnic", tx_ring=16), "nic",
                        queue_packets=4, rate_bps=5e7)
    return captured_run(loaded, 5)


def busy(run, names):
    """CPU seconds the worlds ``names`` used in the run's window."""
    return sum(run.end["worlds"][name][0] - run.start["worlds"][name][0] for name in names)


# ------------------------------------------------------------------- the whole summary
def test_the_summary_is_what_the_section_builders_give(three_vms):
    again = run_summary(three_vms.sim, three_vms.start, three_vms.end, three_vms.window,
                        three_vms.warmup)
    assert again == three_vms.summary
    plain = three_vms.summary.to_json()
    assert json.loads(json.dumps(plain)) == plain  # plain JSON


# ---------------------------------------------------------------------------- host
def test_the_hosts_cpu_percentages_lie_in_0_to_100(three_vms):
    host = host_section(three_vms.start, three_vms.end, three_vms.window)
    percentages = [host.cpu_util_pct, host.core_util_pct, *host.lcpu_util_pct]
    assert all(0 <= p <= 100 + 1e-9 for p in percentages)
    assert 0 < host.cpu_util_pct
    assert host.cpu_util_pct == pytest.approx(np.mean(host.lcpu_util_pct), rel=1e-12)
    assert len(host.lcpu_util_pct) == three_vms.sim.topology.logical_cpus


@given(st.lists(st.floats(0, 1), min_size=1, max_size=16), st.floats(0.1, 100))
def test_host_utilisation_is_busy_time_over_the_window(fractions, window):
    busy_start = np.arange(len(fractions), dtype=float)
    start = {"lcpu_busy": busy_start, "core_busy": busy_start[:1], "uplink_busy": 1.0}
    end = {"lcpu_busy": busy_start + np.array(fractions) * window,
           "core_busy": busy_start[:1] + fractions[0] * window, "uplink_busy": 1.0 + window / 2}
    host = host_section(start, end, window)
    assert host.lcpu_util_pct == pytest.approx([100 * f for f in fractions])
    assert host.cpu_util_pct == pytest.approx(100 * np.mean(fractions))
    assert host.core_util_pct == pytest.approx(100 * fractions[0])
    assert host.uplink_util_pct == pytest.approx(50.0)


# ---------------------------------------------------------------------------- VMs
def test_per_vm_cpu_sums_its_vcpus_and_every_world_adds_up_to_the_host(three_vms):
    sim, window = three_vms.sim, three_vms.window
    per_vm = [conference_jitter(receiver, three_vms.warmup) for receiver in sim.receivers]
    vms = vms_section(sim, three_vms.start, three_vms.end, window, per_vm)
    assert list(vms) == ["vm0", "vm1", "vm2"]
    for group in sim.vms:
        used = busy(three_vms, [w.name for w in group.worlds])
        assert vms[group.name].cpu.used_pct == pytest.approx(100 * used / window, rel=1e-12)
        assert 0 < vms[group.name].cpu.used_pct <= 100 * len(group.worlds)
    # the VMs' vCPUs and their vNIC transmit worlds are all the host ran
    tx = busy(three_vms, [v.world.name for v in sim.vnics])
    host = three_vms.summary.host
    host_cpu_s = host.cpu_util_pct / 100 * len(host.lcpu_util_pct) * window
    vm_cpu_s = sum(v.cpu.used_pct for v in vms.values()) / 100 * window
    assert vm_cpu_s + tx == pytest.approx(host_cpu_s, rel=1e-9)


def test_every_vm_reports_the_jitter_of_its_monitored_conference(three_vms):
    summary = three_vms.summary
    vms = summary.vms
    assert [v.monitored for v in vms.values()] == ["measuring conference",
                                                  "last load conference",
                                                  "last load conference"]
    assert vms["vm0"].jitter_mean_ms == summary.jitter.mean_ms
    assert vms["vm0"].jitter_p99_ms == summary.jitter.p99_ms
    means = [v.jitter_mean_ms for v in vms.values()]
    p99s = [v.jitter_p99_ms for v in vms.values()]
    assert all(m > 0 for m in means)
    across = summary.instances_jitter
    assert across.mean_ms == pytest.approx(np.mean(means), rel=1e-12)
    assert across.p99_ms == pytest.approx(np.mean(p99s), rel=1e-12)
    assert across.worst_p99_ms == max(p99s)
    assert all(v.monitored_loss_fraction == 0.0 for v in vms.values())


def test_without_a_measuring_conference_only_the_vms_report_jitter():
    summary = simulate(fig3("vm.instances=2", "client.measuring_conference=false"), 4,
                       duration=3.0, warmup=0.5)
    assert summary.jitter.mean_ms is None
    assert summary.measured_packets == 0
    assert all(v.monitored == "last load conference" for v in summary.vms.values())
    assert all(v.jitter_mean_ms > 0 for v in summary.vms.values())


# --------------------------------------------------------------------------- voice
def test_the_voice_sections_counts_add_up(overflowing):
    run, sim = overflowing, overflowing.sim
    voice = voice_section(sim, run.start, run.end, run.window)
    emitted = run.end["emitted"] - run.start["emitted"]
    ring_drops = run.end["ring_drops"] - run.start["ring_drops"]
    uplink_drops = run.end["uplink_dropped"] - run.start["uplink_dropped"]
    sent = run.end["uplink_sent"] - run.start["uplink_sent"]
    assert ring_drops > 0 and uplink_drops > 0
    assert voice.packets_emitted == emitted
    assert voice.packets_dropped == ring_drops + uplink_drops
    assert voice.loss_fraction == pytest.approx(voice.packets_dropped / emitted)
    assert voice.packet_rate_pps * run.window == pytest.approx(sent)
    # what was emitted in the window was sent, dropped or changed what the rings hold
    in_rings_now = sum(v.in_ring for v in sim.vnics)
    in_rings_at_warmup = sent + voice.packets_dropped + in_rings_now - emitted
    assert 0 <= in_rings_at_warmup <= sum(v.ring_size for v in sim.vnics)
    streams = sum(w.streams for server in sim.servers for w in server.workers)
    assert voice.offered_pps == pytest.approx(streams / sim.rtp_interval)


# ------------------------------------------------------------------------- jitter
@pytest.mark.parametrize("run_name", ["three_vms", "overflowing"])
def test_the_measured_packets_are_the_measuring_clients(run_name, request):
    run = request.getfixturevalue(run_name)
    sim, warmup = run.sim, run.warmup
    per_vm = [conference_jitter(receiver, warmup) for receiver in sim.receivers]
    jitter, _, measured_packets, measured_loss_fraction = jitter_sections(sim, per_vm, run.summary.vms)
    streams, send, recv = sim.client.arrays()
    after = send >= warmup
    assert measured_packets == np.count_nonzero(after) > 0
    lost = np.count_nonzero(after & np.isnan(recv))
    assert measured_loss_fraction == pytest.approx(lost / np.count_nonzero(after))
    got = ~np.isnan(recv)
    samples = stream_jitter_samples(send[got], recv[got], streams[got], warmup)
    assert jitter.samples == samples.size
    assert jitter.mean_ms == (pytest.approx(samples.mean() * 1000) if samples.size else None)


def receiver_of(streams, send, recv):
    arrays = (np.asarray(streams), np.asarray(send, dtype=float), np.asarray(recv, dtype=float))
    return SimpleNamespace(arrays=lambda: arrays)


@given(st.integers(1, 200), st.floats(0.0, 3.0), st.integers(2, 50))
def test_a_conferences_counts_are_its_packets_after_warm_up(count, warmup, lose_every):
    send = np.arange(count) * 0.02
    recv = send + 0.005  # a constant delay: no jitter
    lost = np.arange(count) % lose_every == 0
    recv[lost] = np.nan
    samples, sent, missing = conference_jitter(receiver_of(np.zeros(count, int), send, recv), warmup)
    assert sent == np.count_nonzero(send >= warmup)
    assert missing == np.count_nonzero((send >= warmup) & lost)
    assert np.allclose(samples, 0.0)


def test_a_conferences_jitter_is_rfc3550s_after_warm_up():
    rng = np.random.default_rng(2)
    send = np.arange(400) * 0.02
    recv = send + 0.002 + rng.exponential(0.001, send.size)
    streams = np.arange(send.size) % 2
    samples, _, _ = conference_jitter(receiver_of(streams, send, recv), 3.0)
    assert samples.size > 0 and samples.mean() > 0
    assert np.array_equal(samples, stream_jitter_samples(send, recv, streams, 3.0))


# -------------------------------------------------------------- steal, measured VM
def test_stolen_time_is_per_logical_cpu_and_its_mean():
    worlds = [SimpleNamespace(name=f"steal{i}", affinity=(i,)) for i in (0, 2)]
    sim = SimpleNamespace(machine=SimpleNamespace(lcpu_world=[None] * 4),
                          host_steal=SimpleNamespace(worlds=worlds))
    start = {"worlds": {"steal0": (1.0, 0, 0), "steal2": (2.0, 0, 0)}}
    end = {"worlds": {"steal0": (1.5, 0, 0), "steal2": (4.0, 0, 0)}}
    steal = steal_section(sim, start, end, 4.0)
    assert steal.lcpu_stolen_pct == (12.5, 0.0, 50.0, 0.0)
    assert steal.stolen_pct == pytest.approx(62.5 / 4)


def test_the_measured_vms_settings_stand_beside_the_others():
    scenario = fig3("vm.instances=3", "measured_vm.shares=8000", "measured_vm.limit=3").scenario
    assert measured_vm_section(scenario) == {"shares": MeasuredSetting(measured=8000.0, others=4000.0),
                                             "limit": MeasuredSetting(measured=3.0, others=None)}
    assert measured_vm_section(fig3().scenario) == {}


# ------------------------------------------------------------------- traffic VMs
FIG6 = ROOT / "configs" / "voip-vsphere5" / "fig6.toml"


def test_bulk_traffic_vms_report_their_cpu_apart_from_the_media_servers():
    flood = captured_run(load_scenario(FIG6, ["run.duration=3", "run.warmup=0.5"]), 1)
    sim, window, traffic = flood.sim, flood.window, flood.summary.traffic_vms
    assert list(traffic) == [group.name for group in sim.traffic_vms] and traffic
    assert not set(traffic) & set(flood.summary.vms)
    for group in sim.traffic_vms:
        used = busy(flood, [w.name for w in group.worlds])
        assert traffic[group.name].cpu.used_pct == pytest.approx(100 * used / window, rel=1e-12)
    assert any(entry.cpu.used_pct > 0 for entry in traffic.values())
    # with the traffic VMs, every VM's vCPUs and every transmit world are all the host ran
    vcpus = {w.name for group in [*sim.vms, *sim.traffic_vms] for w in group.worlds}
    host = flood.summary.host
    host_cpu_s = host.cpu_util_pct / 100 * len(host.lcpu_util_pct) * window
    others = busy(flood, [w.name for w in sim.machine.worlds if w.name not in vcpus])
    in_vms = sum(v.cpu.used_pct for v in [*flood.summary.vms.values(), *traffic.values()]) / 100 * window
    assert in_vms + others == pytest.approx(host_cpu_s, rel=1e-9)


def test_without_traffic_vms_the_summary_has_no_traffic_vms_section(three_vms):
    assert three_vms.summary.traffic_vms is None
    assert "traffic_vms" not in three_vms.summary.to_json()


def test_each_vm_names_its_group():
    flood = captured_run(load_scenario(FIG6, ["run.duration=1", "run.warmup=0.5"]), 1)
    assert {vm.group for vm in flood.summary.vms.values()} == {"vm"}
    assert {vm.group for vm in flood.summary.traffic_vms.values()} == {"flood"}


GROUP_SERVERS = """
[[group]]
name = "bursty"
count = 1
vcpus = 2
workload = "media_server"
model = "workloads/vmcd_g729"
streams = 60
"""


@pytest.mark.parametrize("engine", ["events", "uncontended"])
def test_guest_background_is_vm_instances_bursts(tmp_path, engine):
    """[[group]] media servers burst as their workload says, but the guest_background section is
    [vm]'s: without [vm] instances there is none, with one it is that VM's."""
    config = tmp_path / "groups.toml"
    config.write_text((ROOT / "configs" / "voip-vsphere5" / "fig2.toml").read_text() + GROUP_SERVERS)
    sections = {}
    for instances in (0, 1):
        sim = Simulation(load_scenario(config, [f"vm.instances={instances}", "run.warmup=0.5",
                                                "params.host.socket_contention=0"]), 2, engine)
        sections[instances] = sim.run(10.0, 0.5).guest_background
    assert sections[0] is None
    assert sections[1] is not None and sections[1].burst_ms == pytest.approx(5.0)


# ------------------------------------------------------------------- client stalls
def test_a_stalling_clients_stalls_are_counted_in_the_window_and_delay_its_packets():
    overrides = ["run.duration=12", "run.warmup=2", "params.client.stall_rate=2.0",
                 "params.client.stall_duration=0.03"]
    stalling = captured_run(load_scenario(FIG6, overrides), 1, duration=12.0, warmup=2.0)
    section = stalling.summary.client_stalls
    starts = stalling.sim.client.stalls._starts
    in_window = starts[(starts >= 2.0) & (starts < 12.0)]
    assert section.count == in_window.size > 0
    assert section.rate_per_s == 2.0 and section.length_ms == pytest.approx(30.0)
    assert 0 < section.stalled_pct <= 100 * in_window.size * 0.03 / 10.0 + 1e-9
    quiet = captured_run(load_scenario(FIG6, overrides[:2] + ["params.client.stall_rate=0"]), 1,
                         duration=12.0, warmup=2.0)
    assert quiet.summary.client_stalls is None
    assert stalling.summary.jitter.p99_ms > quiet.summary.jitter.p99_ms
    assert stalling.summary.voice == quiet.summary.voice  # the network is the same
