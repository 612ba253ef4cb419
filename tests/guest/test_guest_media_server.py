"""The media server guest, driven through the scenario simulation on short runs."""

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from vsim.build.load import load_scenario
from vsim.engines.simulation import Simulation, simulate

ROOT = Path(__file__).resolve().parents[2]
FIG3 = ROOT / "configs" / "voip-vsphere5" / "fig3.toml"
TICKS_PER_SECOND = 50  # G.729 at 20 ms packetisation
MEASURING = 4  # one measuring conference of 4 participants on instance 0


def fig3(*overrides):
    return load_scenario(FIG3, ["vm.instances=1", "run.duration=3", "run.warmup=0.5", *overrides])


def with_workload(loaded, **values):
    model = loaded.models["workload"]
    models = dict(loaded.models, workload=replace(model, values=replace(model.values, **values)))
    return replace(loaded, models=models)


def quiet(loaded, **values):
    """The workload without timer lateness or frame-cost variation, with ``values`` put back on top."""
    settings = {"timer_median": 0.0, "frame_cost_cv": 0.0}
    settings.update(values)
    return with_workload(loaded, **settings)


def run_window(loaded, seed, t0, t1):
    """Start a Simulation, run to t0, then to t1; return it and per-server emitted counts at t0, t1."""
    sim = Simulation(loaded, seed)
    for server in sim.servers:
        server.start()
    sim.env.run(until=t0)
    before = [s.emitted for s in sim.servers]
    sim.env.run(until=t1)
    after = [s.emitted for s in sim.servers]
    return sim, before, after


# ------------------------------------------------------------- packet rates
@pytest.mark.parametrize("streams", [120, 20, 10, 0])
def test_instance_zero_emits_streams_plus_measuring_times_fifty_per_second(streams):
    sim, before, after = run_window(fig3(f"vm.streams_per_instance={streams}"), 3, 0.5, 3.0)
    expected = (streams + MEASURING) * TICKS_PER_SECOND * 2.5
    # a 2.5 s window holds 125 ticks of each worker, give or take the one tick whose
    # timer lateness moves it across the window's edge
    busiest_worker = math.ceil((streams + MEASURING) / 4 / 4) * 4
    assert abs(after[0] - before[0] - expected) <= busiest_worker


def test_summary_packet_rate_for_one_instance():
    summary = simulate(fig3(), seed=3).to_json()
    window = 3.0 - 0.5
    assert summary["voice"]["packets_emitted"] == (120 + MEASURING) * TICKS_PER_SECOND * window
    # the uplink counts a frame when it leaves the host, so a tick emitted just before
    # either edge of the window may be counted on the other side of it
    busiest_worker = math.ceil((120 + MEASURING) / 4 / 4) * 4
    sent = summary["voice"]["packet_rate_pps"] * window
    assert abs(sent - (120 + MEASURING) * TICKS_PER_SECOND * window) <= busiest_worker
    assert summary["measured_packets"] == MEASURING * TICKS_PER_SECOND * window
    assert summary["voice"]["packets_dropped"] == 0


def test_only_instance_zero_carries_the_measuring_conference():
    sim, before, after = run_window(fig3("vm.instances=3"), 5, 0.5, 2.5)
    emitted = [a - b for a, b in zip(after, before)]
    expected = [(120 + MEASURING) * 50 * 2, 120 * 50 * 2, 120 * 50 * 2]
    # give or take one tick of the busiest worker at either edge of the 2 s window
    busiest_worker = math.ceil((120 + MEASURING) / 4 / 4) * 4
    assert all(abs(e - x) <= busiest_worker for e, x in zip(emitted, expected))
    assert emitted[0] - max(emitted[1:]) >= MEASURING * 50 * 2 - 2 * busiest_worker


def test_conferences_are_dealt_round_robin_and_measured_one_is_last():
    sim = Simulation(fig3("vm.instances=2"), 1)
    workers = sim.servers[0].workers
    # 30 load conferences + the measuring one = 31 conferences over 4 vCPUs: 8, 8, 8, 7
    assert [w.streams for w in workers] == [32, 32, 32, 28]
    # conference index 30 (the last one) lands on vCPU 30 % 4 = 2
    assert [w.monitored_streams for w in workers] == [0, 0, MEASURING, 0]
    # the second VM has no measuring conference: its last load conference (index 29,
    # on vCPU 1) is the monitored one
    others = sim.servers[1].workers
    assert [w.streams for w in others] == [32, 32, 28, 28]
    assert [w.monitored_streams for w in others] == [0, 4, 0, 0]


def test_partial_conference_is_dealt_like_a_whole_one():
    sim = Simulation(fig3("vm.streams_per_instance=10"), 1)
    # sizes [4, 4, 2] + measuring [4] -> vCPUs 0..3 get 4, 4, 2, 4 and vCPU 3 is measured
    workers = sim.servers[0].workers
    assert [w.streams for w in workers] == [4, 4, 2, 4]
    assert [w.monitored_streams for w in workers] == [0, 0, 0, MEASURING]


def test_a_partial_last_load_conference_is_monitored_whole():
    sim = Simulation(fig3("vm.streams_per_instance=10", "client.measuring_conference=false"), 1)
    # sizes [4, 4, 2]: the last conference, of 2 streams, is on vCPU 2
    assert [w.monitored_streams for w in sim.servers[0].workers] == [0, 0, 2]


# ------------------------------------------------------------------- jitter
def transit_by_stream(loaded, seed=3):
    sim = Simulation(loaded, seed)
    sim.run(3.0, 0.5)
    streams, send, recv = sim.client.arrays()
    assert not np.isnan(recv).any()
    return sim, {k: (recv - send)[streams == k] for k in range(MEASURING)}


def test_no_lateness_no_variation_gives_no_jitter_on_an_idle_host():
    """Every tick starts on its 20 ms boundary and takes the same work on a host with
    more idle cores than busy worlds, so each measured packet has the same transit
    time: RFC 3550 jitter is zero (without socket contention, which stretches a tick by the
    cores busy beside it). Not bit-exactly: send times are ``phase + k * 0.02``
    while the simulation clock adds 0.02 per tick, and the two round differently by a
    few 1e-15 s, which the jitter filter passes on."""
    loaded = quiet(fig3("params.host.socket_contention=0"))
    summary = simulate(loaded, seed=3).to_json()
    assert summary["jitter"]["samples"] == MEASURING * TICKS_PER_SECOND * 2.5
    assert 0.0 <= summary["jitter"]["mean_ms"] < 1e-9
    assert 0.0 <= summary["jitter"]["p99_ms"] < 1e-9
    _, transit = transit_by_stream(loaded)
    for mine in transit.values():
        assert np.ptp(mine) < 1e-12


def test_timer_lateness_alone_makes_jitter():
    """The counterpart: with the fitted timer lateness back on, jitter is clearly positive."""
    median = fig3().models["workload"].values.timer_median
    summary = simulate(quiet(fig3(), timer_median=median), seed=3).to_json()
    assert summary["jitter"]["mean_ms"] > 0.01


def test_frame_cost_variation_alone_makes_jitter():
    summary = simulate(quiet(fig3(), frame_cost_cv=0.2), seed=3).to_json()
    assert summary["jitter"]["mean_ms"] > 1e-4


# ------------------------------------------------------------- packet order
@pytest.mark.parametrize("instances", [1, 6, 12])
def test_measured_packets_stay_in_order_within_each_stream(instances):
    loaded = fig3(f"vm.instances={instances}")
    sim = Simulation(loaded, 11)
    sim.run(3.0, 0.5)
    streams, send, recv = sim.client.arrays()
    assert set(np.unique(streams)) == set(range(MEASURING))
    for stream in range(MEASURING):
        s = send[streams == stream]
        r = recv[streams == stream]
        # one packet per tick, in send order
        assert np.all(np.diff(s) > 0)
        assert np.diff(s) == pytest.approx(np.full(s.size - 1, 0.02), abs=1e-9)
        received = r[~np.isnan(r)]
        assert received.size > 0
        assert np.all(np.diff(received) > 0), f"stream {stream} reordered"
        # nothing arrives before it was sent
        assert np.all(received > s[~np.isnan(r)])


def test_streams_of_one_tick_leave_in_stream_order_one_serialization_apart():
    sim = Simulation(fig3(), 2)
    sim.run(2.0, 0.5)
    streams, send, recv = sim.client.arrays()
    spacing = sim.uplink.service
    by_tick = {}
    for st, s, r in zip(streams, send, recv):
        by_tick.setdefault(round(s, 9), {})[int(st)] = r
    assert by_tick
    for tick, arrivals in by_tick.items():
        times = [arrivals[k] for k in range(MEASURING)]
        assert np.diff(times) == pytest.approx(np.full(MEASURING - 1, spacing), rel=1e-6)


def test_aligned_phases_put_every_worker_on_one_grid_and_drawn_phases_do_not():
    aligned = Simulation(with_workload(fig3("vm.instances=3"), aligned_phases=True), 1)
    drawn = Simulation(fig3("vm.instances=3"), 1)
    assert {w.phase for s in aligned.servers for w in s.workers} == {0.0}
    phases = [w.phase for s in drawn.servers for w in s.workers]
    assert len(set(phases)) == len(phases) and all(0.0 <= p < 0.02 for p in phases)


def wakeups(loaded, seed=1, duration=0.1):
    """Each worker's timer wakeup times (VM by VM, vCPU by vCPU) over a short run."""
    sim = Simulation(loaded, seed)
    sim.record_wakeups()
    sim.run(duration, duration / 2)
    return [[time for _tick, time in worker.wakes] for server in sim.servers
            for worker in server.workers]


PER_WORKER = [0.0, 0.005, 0.0101, 0.019, 0.0023, 0.0, 0.0137, 0.008]


def test_given_phases_are_each_workers_first_wakeup_without_timer_lateness():
    wakes = wakeups(quiet(fig3("vm.instances=2", f"vm.phases={PER_WORKER}")))
    assert [worker[0] for worker in wakes] == PER_WORKER
    for worker, phase in zip(wakes, PER_WORKER):
        assert worker == pytest.approx([phase + 0.02 * k for k in range(len(worker))], abs=1e-12)


def test_a_shorter_phase_list_cycles_over_the_workers_and_overrides_aligned_phases():
    loaded = with_workload(quiet(fig3("vm.instances=3", "vm.phases=[0.001, 0.0075, 0.012]")),
                           aligned_phases=True)
    cycled = [[0.001, 0.0075, 0.012][k % 3] for k in range(12)]  # on from VM to VM
    assert [worker[0] for worker in wakeups(loaded)] == cycled
    assert [w.phase for s in Simulation(loaded, 1).servers for w in s.workers] == cycled


def test_with_timer_lateness_every_wakeup_falls_late_of_its_given_phase():
    wakes = wakeups(fig3("vm.instances=2", f"vm.phases={PER_WORKER}"), duration=1.0)
    for worker, phase in zip(wakes, PER_WORKER):
        lateness = np.array(worker) - (phase + 0.02 * np.arange(len(worker)))
        assert np.all(lateness >= 0) and np.all(lateness < 0.01) and np.any(lateness > 0)


def test_a_media_server_group_takes_its_own_phases(tmp_path):
    path = tmp_path / "groups.toml"
    path.write_text(FIG3.read_text() + '\n[[group]]\nname = "more"\ncount = 2\nvcpus = 2\n'
                    'workload = "media_server"\nstreams = 8\nphases = [0.003, 0.0045, 0.006]\n')
    loaded = quiet(load_scenario(path, ["vm.instances=1", "vm.phases=[0.0]"]))
    own = loaded.models["group.more.workload"]
    models = dict(loaded.models, **{"group.more.workload": replace(
        own, values=replace(own.values, timer_median=0.0))})
    wakes = wakeups(replace(loaded, models=models))
    assert [worker[0] for worker in wakes] == [0.0] * 4 + [0.003, 0.0045, 0.006, 0.003]


# ------------------------------------------------------------- per-stream emission
def posts(loaded, seed=2, until=0.5):
    """Every post of instance 0 (one worker here): (time, count, tick, monitored), in order."""
    sim = Simulation(loaded, seed, engine="events")
    server = sim.servers[0]
    seen = []

    class Recording:
        """The server's vNIC, its posts recorded (a compiled vNIC's methods cannot be replaced)."""

        def __init__(self, vnic):
            self.vnic = vnic

        def __getattr__(self, name):
            return getattr(self.vnic, name)

        def post(self, now, count, send_time, tick, monitored):
            seen.append((now, count, tick, monitored))
            return self.vnic.post(now, count, send_time, tick, monitored)

    server.vnic = Recording(server.vnic)
    for s in sim.servers:
        s.start()
    sim.env.run(until=until)
    return server, seen


def test_per_stream_emission_posts_each_stream_at_its_share_of_the_ticks_work():
    """One instance with its 20 streams on one vCPU of an idle host (no hyper-threads, no socket
    contention beside the vNIC's transmit world), no lateness or variation: per tick, the worker
    posts one frame per stream, the k-th one (k + 1) shares of its frames' work after the overhead,
    the tick's last where the tick-end emission posts them all, the monitored conference's last."""
    base = quiet(fig3("vm.streams_per_instance=20", "vm.vcpus=1", "host.hyperthreading=false",
                      "params.host.socket_contention=0.0"))
    _, whole = posts(base)
    server, single = posts(with_workload(base, emission="per_stream"))
    values = base.models["workload"].values
    first = server.workers[0]
    per_tick = {}
    for now, count, tick, monitored in single:
        assert count == 1
        per_tick.setdefault(tick, []).append((now, monitored))
    ends = {tick: now for now, count, tick, _ in whole if count == first.streams}
    share = values.frame_cost  # each stream's share of the tick's work, no variation
    checked = 0
    for tick, rows in per_tick.items():
        if len(rows) != first.streams or tick not in ends:
            continue
        times = np.array([t for t, _ in rows])
        start = ends[tick] - values.tick_overhead - first.streams * share
        want = start + values.tick_overhead + share * np.arange(1, first.streams + 1)
        assert times == pytest.approx(want, abs=1e-9)
        assert [m for _, m in rows] == [0] * (first.streams - first.monitored_streams) + [1] * first.monitored_streams
        checked += 1
    assert checked > 5
    assert not server.supports_closed_form()
