"""One replication of a scenario: determinism, packet conservation, CPU scaling."""

import dataclasses
import json
import math
from pathlib import Path

import numpy as np
import pytest

from vsim.core.errors import InputError
from vsim.build.load import load_scenario
from vsim.config.load import group_role
from short_fig3 import FIG3, fig3, with_model
from vsim.engines.simulation import Simulation, simulate

ROOT = Path(__file__).resolve().parents[2]


def as_json(summary):
    """A run's summary as the JSON ``vsim run --json`` holds it, keys sorted."""
    return json.dumps(summary.to_json(), sort_keys=True)


# -------------------------------------------------------------- determinism
@pytest.mark.parametrize("instances", [1, 4])
def test_same_seed_gives_identical_summaries(instances):
    loaded = fig3(f"vm.instances={instances}")
    first = simulate(loaded, seed=3, duration=3)
    second = simulate(loaded, seed=3, duration=3)
    assert as_json(first) == as_json(second)


@pytest.mark.parametrize("instances, engine", [(1, "events"), (1, "uncontended"), (6, "events")])
def test_progress_reports_the_clock_and_changes_nothing(instances, engine):
    loaded = fig3(f"vm.instances={instances}", "params.host.socket_contention=0")  # the closed form's host
    plain = Simulation(loaded, 3, engine=engine).run(3.0, 0.5)
    reached = []
    watched = Simulation(loaded, 3, engine=engine).run(3.0, 0.5, progress=reached.append)
    assert as_json(watched) == as_json(plain)
    assert reached == sorted(reached) and reached[-1] == 3.0
    if engine == "events":
        assert len(reached) > Simulation.PROGRESS_STEPS and 0.5 in reached


def test_a_fresh_load_gives_the_same_summary():
    first = simulate(fig3("vm.instances=2"), seed=3, duration=3)
    second = simulate(fig3("vm.instances=2"), seed=3, duration=3)
    assert as_json(first) == as_json(second)


def test_different_seeds_give_different_summaries():
    loaded = fig3("vm.instances=2")
    a = simulate(loaded, seed=3, duration=3)
    b = simulate(loaded, seed=4, duration=3)
    assert as_json(a) != as_json(b)
    assert a.jitter.mean_ms != b.jitter.mean_ms


# ------------------------------------------------------------- conservation
def in_rings(sim):
    return sum(v.in_ring for v in sim.vnics)


def assert_voice_conserved(sim):
    emitted = sum(s.emitted for s in sim.servers)
    ring_drops = sum(v.ring_drops for v in sim.vnics)
    assert emitted == sum(v.posted for v in sim.vnics)
    assert emitted == sim.uplink.sent + sim.uplink.dropped + ring_drops + in_rings(sim)
    assert sim.uplink.offered == sim.uplink.sent + sim.uplink.dropped
    return emitted, ring_drops


@pytest.mark.parametrize("instances", [1, 3, 12])
def test_voice_packets_emitted_are_sent_dropped_or_in_flight(instances):
    sim = Simulation(fig3(f"vm.instances={instances}"), 7)
    summary = sim.run(3.0, 0.5)
    emitted, _ = assert_voice_conserved(sim)
    assert emitted > 0
    # the summary's window counts obey the same balance: emitted = sent + dropped + the
    # change of ring contents, so the implied ring contents at the start of the window
    # must be a possible ring occupancy
    voice = summary.voice
    sent_in_window = round(voice.packet_rate_pps * 2.5)
    assert sent_in_window == pytest.approx(voice.packet_rate_pps * 2.5, abs=1e-6)
    in_rings_at_warmup = (sent_in_window + voice.packets_dropped + in_rings(sim)
                          - voice.packets_emitted)
    assert 0 <= in_rings_at_warmup <= sum(v.ring_size for v in sim.vnics)


def test_conservation_holds_when_rings_and_uplink_overflow():
    """A 16-descriptor ring and a 4-frame uplink queue drop on every busy tick."""
    loaded = with_model(with_model(fig3("vm.instances=6"), "vnic", tx_ring=16), "nic",
                        queue_packets=4, rate_bps=5e7)
    sim = Simulation(loaded, 5)
    summary = sim.run(2.0, 0.5)
    emitted, ring_drops = assert_voice_conserved(sim)
    assert ring_drops > 0
    assert sim.uplink.dropped > 0
    assert summary.voice.packets_dropped > 0
    assert summary.measured_loss_fraction > 0


class SentCounted:
    """A vNIC's recorder with the count of each post it is told of appended to ``counts`` (a
    compiled recorder's methods cannot be replaced)."""

    def __init__(self, recorder, counts):
        self.recorder = recorder
        self.counts = counts

    def __getattr__(self, name):
        return getattr(self.recorder, name)

    def sent(self, tick, send_time, count):
        self.counts.append(count)
        self.recorder.sent(tick, send_time, count)


@pytest.mark.parametrize("ring", [512, 16])
def test_measured_packets_are_recorded_once_or_still_in_the_ring(ring):
    loaded = with_model(fig3("vm.instances=4"), "vnic", tx_ring=ring)
    sim = Simulation(loaded, 9)
    posted = []
    assert sim.vnics[0].recorder is sim.client
    sim.vnics[0].recorder = SentCounted(sim.client, posted)
    sim.run(2.0, 0.5)
    streams, send, recv = sim.client.arrays()
    vnic = sim.vnics[0]
    measured_in_ring = sum(monitored for _, _, monitored in list(vnic.pending) + list(vnic.job))
    assert sum(posted) > 0
    assert len(streams) + measured_in_ring == sum(posted)
    # each recorded tick has each of the 4 measured streams exactly once
    per_tick = {}
    for stream, t in zip(streams, send):
        per_tick.setdefault(round(float(t), 9), []).append(int(stream))
    assert all(sorted(v) == [0, 1, 2, 3] for v in per_tick.values())


# ---------------------------------------------------------------- CPU scale
def test_cpu_utilisation_at_two_instances_is_twice_one():
    one = simulate(fig3("vm.instances=1"), seed=3, duration=3).host.cpu_util_pct
    two = simulate(fig3("vm.instances=2"), seed=3, duration=3).host.cpu_util_pct
    assert one > 0
    assert two == pytest.approx(2 * one, rel=0.15)


# ------------------------------------------------------------ per-VM receivers
def test_every_monitored_packet_is_recorded_once_or_still_in_a_ring():
    """Per VM: what its receiver was told was sent is recorded (received or lost) or is
    still in that VM's transmit ring, even when rings and the uplink overflow."""
    loaded = with_model(with_model(fig3("vm.instances=4"), "vnic", tx_ring=16), "nic",
                        queue_packets=4, rate_bps=5e7)
    sim = Simulation(loaded, 5)
    told = [[] for _ in sim.receivers]
    for vnic, receiver, counts in zip(sim.vnics, sim.receivers, told):
        assert vnic.recorder is receiver
        vnic.recorder = SentCounted(receiver, counts)
    summary = sim.run(2.0, 0.5)
    for receiver, vnic, counts in zip(sim.receivers, sim.vnics, told):
        streams, _, recv = receiver.arrays()
        in_ring = sum(monitored for _, _, monitored in list(vnic.pending) + list(vnic.job))
        assert sum(counts) > 0
        assert len(streams) + in_ring == sum(counts)
    assert any(np.isnan(receiver.arrays()[2]).any() for receiver in sim.receivers)
    assert any(v.monitored_loss_fraction > 0 for v in summary.vms.values())


# ------------------------------------------------------- NUMA home nodes
def test_numa_home_nodes_keep_each_vm_on_its_socket():
    """VMs are dealt over the two sockets in turn; every vCPU, whenever it runs, runs on
    a logical CPU of its VM's socket, while the transmit worlds may run anywhere."""
    sim = Simulation(fig3("vm.instances=5", "host.numa_home_nodes=true"), 3)
    topology = sim.topology
    seen = {}

    def sample(env):
        while True:
            for world in sim.machine.worlds:
                if world.lcpu is not None:
                    seen.setdefault(world.name, set()).add(topology.socket_of(world.lcpu))
            yield env.timeout(1e-4)
    sim.env.process(sample(sim.env))
    sim.run(2.0, 0.5)
    for index, group in enumerate(sim.vms):
        for world in group.worlds:
            assert seen[world.name] == {index % 2}, world.name
    assert set().union(*(seen[v.world.name] for v in sim.vnics)) == {0, 1}


def test_numa_home_nodes_off_lets_vcpus_use_both_sockets():
    sim = Simulation(fig3("vm.instances=5"), 3)
    sockets = set()

    def sample(env):
        while True:
            sockets.update(sim.topology.socket_of(w.lcpu) for w in sim.vms[0].worlds
                           if w.lcpu is not None)
            yield env.timeout(1e-4)
    sim.env.process(sample(sim.env))
    sim.run(2.0, 0.5)
    assert sockets == {0, 1}


# ------------------------------------------------------- cache refill
def test_the_workloads_refill_costs_reach_the_media_server_vcpus_only():
    sim = Simulation(fig3("vm.instances=2", "params.workload.refill_same_socket=2e-5",
                          "params.workload.refill_other_socket=2e-4"), 1)
    vcpus = [world for group in sim.vms for world in group.worlds]
    assert {(w.refill_same_socket, w.refill_other_socket) for w in vcpus} == {(2e-5, 2e-4)}
    assert {(v.world.refill_same_socket, v.world.refill_other_socket)
            for v in sim.vnics} == {(0.0, 0.0)}


def test_refill_costs_add_the_moved_vcpus_work_to_the_host():
    """At 6 instances vCPUs move between cores; what they refill is work the host runs."""
    def run(*overrides):
        sim = Simulation(fig3("vm.instances=6", *overrides), 4)
        return sim.run(3.0, 0.5), sum(w.migrations for g in sim.vms for w in g.worlds)
    (plain, moves), (refilled, _) = run(), run("params.workload.refill_same_socket=2e-4",
                                              "params.workload.refill_other_socket=2e-4")
    assert moves > 0
    assert refilled.host.cpu_util_pct > plain.host.cpu_util_pct


def test_a_negative_refill_cost_is_refused():
    with pytest.raises(InputError, match="refill_other_socket"):
        fig3("params.workload.refill_other_socket=-1e-5")


# ------------------------------------------------------------ reservations
def test_reserved_vms_keep_their_transmit_worlds_served():
    """Reserving every VM at 12 instances must not leave the vNICs' transmit worlds
    waiting behind the vCPUs."""
    waits = {}
    for reservation in (0.0, 1.0):
        sim = Simulation(fig3("vm.instances=12", f"vm.reservation={reservation}"), 2)
        sim.run(3.0, 0.5)
        tx = [w for w in sim.machine.worlds if w.name.endswith("vnic-tx")]
        assert len(tx) == 12
        waits[reservation] = sum(w.ready_time for w in tx) / len(tx) / 3.0
    assert waits[1.0] < 0.005
    assert waits[1.0] < 5 * waits[0.0] + 1e-3


# ------------------------------------------------------ the measured VM's own settings
def test_measured_vm_settings_apply_to_the_first_vm_only():
    sim = Simulation(fig3("vm.instances=3", "measured_vm.shares=8000", "measured_vm.reservation=1.5",
                          "measured_vm.limit=3"), 1)
    first, *others = sim.vms
    assert (first.shares, first.reservation, first.limit) == (8000.0, 1.5, 3.0)
    assert [(g.shares, g.reservation, g.limit) for g in others] == [(4000.0, 0.0, math.inf)] * 2
    summary = sim.run(2.0, 0.5)
    assert summary.to_json()["measured_vm"] == {"shares": {"measured": 8000.0, "others": 4000.0},
                                                "reservation": {"measured": 1.5, "others": 0.0},
                                                "limit": {"measured": 3.0, "others": None}}
    assert simulate(fig3("vm.instances=3"), 1, duration=2.0).measured_vm is None


def test_a_reservation_within_the_vms_share_leaves_the_run_unchanged():
    """14 instances share 16 logical CPUs: a VM's share is about 0.9 CPU, so reserving
    0.5 changes no entitlement and no scheduling decision."""
    plain = simulate(fig3("vm.instances=14"), 3, duration=4.0)
    reserved = simulate(fig3("vm.instances=14", "measured_vm.reservation=0.5"), 3, duration=4.0)
    assert dataclasses.replace(reserved, measured_vm=None) == plain


def test_a_reservation_above_the_vms_share_protects_it_on_an_overloaded_host():
    """At 14 instances the host cannot keep up and every VM's ticks queue; a measured VM
    reserved 1.5 CPUs (more than the 1.2 it uses) is served on time while the others are not."""
    plain = simulate(fig3("vm.instances=14"), 3, duration=8.0)
    protected = simulate(fig3("vm.instances=14", "measured_vm.reservation=1.5"), 3, duration=8.0)
    assert plain.jitter.mean_ms > 2.0
    assert protected.jitter.mean_ms < 1.0
    others = [v.jitter_mean_ms for name, v in protected.vms.items() if name != "vm0"]
    assert min(others) > 2.0
    assert protected.vms["vm0"].cpu.used_pct > max(v.cpu.used_pct for name, v in protected.vms.items()
                                                   if name != "vm0")


def test_a_limit_below_what_the_vm_uses_shows_as_limited_ready_time_and_late_voice():
    """6 instances leave the host CPU to spare: the measured VM, which uses about 0.95 CPU,
    waits for nothing with a limit of 2 CPUs; limited to 0.8 it gets 0.8, falls behind its
    ticks (its voice arrives too late to play), and its ready time is the limit's."""
    free = simulate(fig3("vm.instances=6", "measured_vm.limit=2.0"), 1, duration=10.0)
    held = simulate(fig3("vm.instances=6", "measured_vm.limit=0.8"), 1, duration=10.0)
    assert free.vms["vm0"].cpu.limited_pct == 0.0
    vm0 = held.vms["vm0"].cpu
    assert vm0.used_pct == pytest.approx(80.0, abs=0.5)
    assert vm0.limited_pct == pytest.approx(vm0.ready_pct, rel=1e-3) and vm0.ready_pct > 250
    assert held.voice_quality.measuring_conference.quality.late_fraction > 0.9
    assert {vm.cpu.limited_pct for name, vm in held.vms.items() if name != "vm0"} == {0.0}


# ------------------------------------- frames-only scenarios are unchanged
DATA = Path(__file__).resolve().parent / "data"
FIG2 = ROOT / "configs" / "voip-vsphere5" / "fig2.toml"


# the model values of the recording: the host without socket contention, the frame cost fitted then
RECORDED_MODELS = ["params.host.socket_contention=0", "params.workload.frame_cost=1.48e-4"]


@pytest.mark.parametrize("name, config, overrides", [
    ("fig3_instances4_20s.json", FIG3, ["vm.instances=4", *RECORDED_MODELS]),
    ("fig2_streams120_nobursts_20s.json", FIG2,
     ["vm.streams_per_instance=120", "params.workload.background_burst=0", *RECORDED_MODELS]),
])
def test_frames_only_scenarios_give_the_summaries_they_gave_before_groups(name, config, overrides):
    """Recorded with the code before VM groups and uplink schedulers entered scenarios (and
    before the voice-quality section, the per-VM CPU and uplink definitions, each VM's group,
    whether there is a measuring conference, each VM's limited time and the VMs the all-VM jitter
    counts, which add to the summary and change nothing else)."""
    recorded = json.loads((DATA / name).read_text())
    sim = Simulation(load_scenario(config, overrides), seed=recorded["seed"])
    assert sim.engine == recorded["engine"]
    summary = sim.run(recorded["duration"], 5.0).to_json()
    assert summary.pop("voice_quality")["measuring_conference"]["packets"] > 0
    assert "summed over the VM's vCPUs" in summary.pop("vms_definition")
    assert "every frame" in summary["host"].pop("uplink_util_definition")
    assert summary["jitter"].pop("measuring_conference") is True
    assert {vm.pop("group") for vm in summary["vms"].values()} == {"vm"}
    assert {vm.pop("limited_pct") for vm in summary["vms"].values()} == {0.0}  # no VM has a limit
    across = summary["instances_jitter"]  # the VMs it counts, added later, and its definition saying so
    assert across.pop("vms") == across.pop("vms_with_samples") == len(summary["vms"])
    assert "vms_with_samples of vms" in across.pop("definition")
    recorded["summary"]["instances_jitter"].pop("definition")
    assert json.dumps(summary, sort_keys=True) == json.dumps(recorded["summary"], sort_keys=True)


def test_explicit_fifo_uplink_and_no_groups_change_nothing():
    implicit = simulate(fig3("vm.instances=2"), seed=2, duration=3)
    explicit = simulate(fig3("vm.instances=2", "host.uplink=\"fifo\"", "group=[]"), seed=2, duration=3)
    assert as_json(implicit) == as_json(explicit)
    assert implicit.uplink is None


# ----------------------------------------------- groups, traffic, uplinks
FIG6 = ROOT / "configs" / "voip-vsphere5" / "fig6.toml"


def fig6(uplink="fifo", *overrides):
    return load_scenario(FIG6, [f"host.uplink=\"{uplink}\"", *overrides])


@pytest.fixture(scope="module")
def flood_runs():
    return {uplink: simulate(fig6(uplink), seed=1, duration=8, warmup=1).to_json()
            for uplink in ("fifo", "netioc")}


def test_a_bulk_flow_or_a_scheduler_needs_the_event_engine():
    no_flood = ["group=[]", "netioc.node=[]", "sweep.values=[\"fifo\", \"multiqueue\"]",
                "params.host.socket_contention=0"]
    assert Simulation(load_scenario(FIG6, no_flood), seed=1).engine == "uncontended"
    for loaded in (fig6("fifo"), fig6("multiqueue", *no_flood)):
        assert Simulation(loaded, seed=1).engine == "events"
        with pytest.raises(ValueError, match="FIFO uplink"):
            Simulation(loaded, seed=1, engine="uncontended")


def test_the_fifo_uplink_loses_voice_only_while_the_flood_runs(flood_runs):
    uplink = flood_runs["fifo"]["uplink"]
    lost = uplink["timeline"]["voice_lost_per_s"]
    offered = uplink["timeline"]["voice_offered_per_s"]
    assert uplink["traffic_window_s"] == [4.0, 8.0]
    assert sum(lost[:4]) == 0 and all(n > 0 for n in lost[4:])
    assert sum(offered[1:]) == pytest.approx(6200 * 7, rel=0.01)
    during = uplink["during_traffic"]
    assert during["window_s"] == [4, 8]
    assert during["voice_loss_pps"] == sum(lost[4:8]) / 4
    assert 0.03 < during["voice_loss_fraction"] < 0.3
    flood = uplink["groups"]["flood"]
    assert flood["offered_pps"] == pytest.approx(390_000)
    assert 0 < flood["loss_fraction"] < 0.2
    assert flood["per_vm_mbps"] == [pytest.approx(flood["throughput_mbps"] / 4)] * 4
    # the flood and the voice beside it are capped by the transmit stage's packet rate
    stage = uplink["tx_stage_per_packet_us"] * 1e-6
    assert flood["delivered_pps"] + 6200 * (1 - during["voice_loss_fraction"]) <= 1 / stage * 1.001


def test_netioc_isolates_the_voice_from_the_flood(flood_runs):
    uplink = flood_runs["netioc"]["uplink"]
    assert sum(uplink["timeline"]["voice_lost_per_s"]) == 0
    assert uplink["during_traffic"]["voice_loss_fraction"] == 0
    assert uplink["voice"]["delay_mean_us"] < flood_runs["fifo"]["uplink"]["voice"]["delay_mean_us"] / 10
    fifo = flood_runs["fifo"]["uplink"]["during_traffic"]
    # the FIFO's full queue (1024 frames of the transmit stage) adds milliseconds to every packet
    assert fifo["latency_mean_ms"] > uplink["during_traffic"]["latency_mean_ms"] + 1.0
    streams = uplink["during_traffic"]["streams"]
    assert [s["stream"] for s in streams] == [0, 1, 2, 3]
    assert all(s["loss_fraction"] == 0 and s["jitter_mean_ms"] > 0 for s in streams)


def test_a_flood_its_transmit_world_cannot_forward_is_carried_at_the_worlds_pace():
    """One flood VM asks for 1 M packets/s of a transmit world that forwards 333 K/s (3 us a
    frame), below the uplink's ceiling: the link carries the world's 333 K/s without loss,
    the voice beside it loses nothing, and the flood's vCPUs keep spinning. (They went idle
    for good once the sender first fell behind, and the flood, offered at its nominal rate in
    bursts, lost 62 % of its packets on a link a third used.) Without socket contention, so that the
    world's frame costs its 3 us whatever runs beside it."""
    summary = simulate(load_scenario(ROOT / "configs" / "whatif" / "voice_beside_flood.toml",
                                     ["group.flood.count=1", "group.flood.traffic.params.pps=1000000.0",
                                      "params.host.socket_contention=0"]),
                       seed=1, duration=6.0)
    flood = summary.uplink.groups["flood"]
    assert flood.offered_pps == pytest.approx(1 / 3e-6, rel=0.01)
    assert flood.delivered_pps == pytest.approx(flood.offered_pps, rel=1e-3)
    assert summary.voice.loss_fraction == 0.0
    assert summary.traffic_vms["flood[0]"].cpu.used_pct == pytest.approx(100.0 * 1, rel=0.01)


def test_flood_runs_are_deterministic(flood_runs):
    again = simulate(fig6("netioc"), seed=1, duration=8, warmup=1)
    assert again.to_json() == flood_runs["netioc"]


def test_groups_of_media_servers_run_beside_vm(tmp_path):
    text = FIG3.read_text() + (
        '\n[[group]]\nname = "small"\ncount = 2\nvcpus = 2\nworkload = "media_server"\n'
        'streams = 40\nshares = 500.0\n')
    path = tmp_path / "hetero.toml"
    path.write_text(text)
    loaded = load_scenario(path, ["vm.instances=1", "sweep.values=[1]"])
    sim = Simulation(loaded, seed=1)
    assert [group.name for group in sim.vms] == ["vm0", "small[0]", "small[1]"]
    assert [len(group.worlds) for group in sim.vms] == [4, 2, 2]
    assert sim.vms[1].shares == 500.0
    summary = sim.run(3.0, 0.5)
    assert set(summary.vms) == {"vm0", "small[0]", "small[1]"}
    assert summary.voice.offered_pps == pytest.approx((120 + 4 + 2 * 40) * 50)
    assert summary.uplink is None  # frames only on a FIFO: the fast path


def test_a_host_of_traffic_vms_only_runs_without_media_servers():
    loaded = load_scenario(ROOT / "configs" / "netioc-vsphere6" / "exp1.toml")
    sim = Simulation(loaded, seed=1)
    assert sim.vms == [] and sim.client is None and len(sim.traffic) == 14
    summary = sim.run(20.0, 1.0)
    assert summary.vms == {} and summary.jitter.samples == 0
    groups = summary.uplink.groups
    assert len(groups["netperf"].per_vm_mbps) == 12
    assert summary.uplink.during_traffic is not None and summary.uplink.during_traffic.conference is None


def test_a_flood_with_random_on_off_periods_draws_them_from_its_own_stream():
    random_periods = ['group.flood.traffic.params={pps = 1000.0, ip_bytes = 1000, on = 0.1, '
                      'off = 0.9, random_periods = true}']
    runs = [simulate(fig6("fifo", *random_periods), seed=seed, duration=2, warmup=0.5)
            for seed in (1, 1, 2)]
    assert as_json(runs[0]) == as_json(runs[1])
    assert runs[0].uplink != runs[2].uplink   # the periods follow the run's seed


def media_groups_only(tmp_path, measuring):
    """[vm] without instances and two media-server groups; the measuring conference on or off."""
    path = tmp_path / "groups_only.toml"
    path.write_text(
        'name = "groups only"\n[run]\nduration = 3.0\nwarmup = 1.0\n[vm]\ninstances = 0\n'
        f'[client]\nmeasuring_conference = {str(measuring).lower()}\n'
        '[[group]]\nname = "ms"\nworkload = "media_server"\nstreams = 8\n'
        '[[group]]\nname = "other"\nworkload = "media_server"\nstreams = 8\n')
    return Simulation(load_scenario(path), seed=1)


def test_without_vm_instances_the_first_media_server_group_hosts_the_measuring_conference(tmp_path):
    sim = media_groups_only(tmp_path, measuring=True)
    assert sim.measuring and sim.client is sim.receivers[0]
    summary = sim.run(3.0, 1.0)
    # 8 load streams per VM, and the measuring conference's 4 on ms[0] only
    assert summary.voice.offered_pps == pytest.approx((8 + 4 + 8) * 50)
    assert summary.jitter.samples > 0
    assert summary.voice_quality.measuring_conference.quality.packets > 0
    assert summary.vms["ms[0]"].monitored == "measuring conference"
    assert summary.vms["other[0]"].monitored == "last load conference"
    off = media_groups_only(tmp_path, measuring=False)
    assert not off.measuring
    assert off.run(3.0, 1.0).voice.offered_pps == pytest.approx((8 + 8) * 50)


# ------------------------------- TCP senders' CPU (netioc-vsphere6, Experiment 3)
EXP3 = ROOT / "configs" / "netioc-vsphere6"


def exp3_busy_and_interrupts(scheduler, vms):
    """Host CPU (core-seconds per second, all logical CPUs) and completion interrupts/s of
    ``vms`` TCP senders under ``scheduler`` ("default" or "netioc"), and the interrupt's
    cost; a short run, the flows being fluid."""
    loaded = load_scenario(EXP3 / f"exp3_{scheduler}.toml", [f"group.netperf.count={vms}"])
    sim = Simulation(loaded, seed=1)
    summary = sim.run(0.5, 0.2)
    busy = summary.host.cpu_util_pct / 100 * sim.topology.logical_cpus
    cost = loaded.models[group_role("netperf", "vnic")].values.interrupt_cost
    return busy, summary.uplink.groups["netperf"].interrupts_per_s, cost


@pytest.mark.parametrize("vms", [7, 15])
def test_netiocs_extra_host_cpu_is_what_its_extra_interrupts_cost(vms):
    """Both schedulers carry the same frames over the full link, so NetIOC's only extra work
    is its extra completion interrupts; senders started together must not make it more or
    less by handing over their jobs at the same instants onto both threads of the cores
    (vsim.guest.sender_cpu)."""
    default_busy, default_interrupts, cost = exp3_busy_and_interrupts("default", vms)
    netioc_busy, netioc_interrupts, _ = exp3_busy_and_interrupts("netioc", vms)
    assert netioc_interrupts > default_interrupts
    assert netioc_busy - default_busy == pytest.approx(
        (netioc_interrupts - default_interrupts) * cost, rel=1e-3)


def test_scaling_every_vms_shares_keeps_the_transmit_worlds_served():
    """Shares are relative: ten times the default for every VM gives its transmit world ten times
    too, so an over-committed host still sends every frame (a fixed 1000 lost 39 % of them). The
    jitter stays of the same size, not the same: shares are relative only to first order (the
    wake-up credit and granularity are fixed times in virtual time), and a 4 s run of an
    over-committed host moves with any change (11 % here)."""
    plain = simulate(fig3("vm.instances=14"), 1, duration=4.0)
    scaled = simulate(fig3("vm.instances=14", "vm.shares=40000"), 1, duration=4.0)
    assert plain.voice.loss_fraction == scaled.voice.loss_fraction == 0.0
    assert scaled.jitter.mean_ms == pytest.approx(plain.jitter.mean_ms, rel=0.25)


def test_tcp_senders_under_a_cpu_limit_carry_less_in_proportion():
    """A TCP sender's throughput ignored its CPU: a limit showed only in its used and ready time."""
    config = ROOT / "configs" / "netioc-vsphere6" / "exp1.toml"
    runs = {}
    for limit in (None, 0.03, 0.015):
        overrides = [] if limit is None else [f"group.netperf.limit={limit}"]
        summary = simulate(load_scenario(config, overrides), 1, duration=3.0)
        runs[limit] = (summary.uplink.groups["netperf"].throughput_mbps,
                       summary.traffic_vms["netperf[0]"].cpu.used_pct)
    free_mbps, free_used = runs[None]
    assert free_used > 3.0  # each sender needs more than the limits leave it
    for limit in (0.03, 0.015):
        mbps, used_pct = runs[limit]
        assert used_pct <= 100 * limit + 1e-9
        # throughput follows the CPU the limit leaves, within what interrupts' batching changes
        assert mbps / free_mbps == pytest.approx(used_pct / free_used, rel=0.25)
    assert runs[0.015][0] < runs[0.03][0] < free_mbps
