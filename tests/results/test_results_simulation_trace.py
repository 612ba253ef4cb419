"""Tests of a simulation's packets, timer wakeups and worker ticks exported as vsim traces: the columns,
and the round trip through the trace reader."""

from pathlib import Path

import numpy as np
import pytest

from vsim.core.errors import InputError
from vsim.build.load import load_scenario
from vsim.engines.simulation import Simulation
from vsim.traces.detect import read_any
from vsim.traces.trace_metrics import trace_samples
from vsim.results.simulation_trace import (CLOCK_RATE_HZ, cpu_ticks_trace, packets_trace, run_meta,
                                            timer_trace, write_simulation_trace)

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
FIG2 = CONFIGS / "voip-vsphere5" / "fig2.toml"
CPU_CGROUPS = CONFIGS / "validation" / "cpu_cgroups.toml"
TIMER = CONFIGS / "validation" / "timer_python.toml"


@pytest.fixture(scope="module")
def simulated():
    loaded = load_scenario(FIG2)
    sim = Simulation(loaded, 5)
    sim.run(4.0, 1.0)
    return sim, run_meta(loaded.scenario, str(FIG2), 5, 4.0, 1.0, sim.engine)


def test_columns_follow_the_measuring_clients_packets(simulated):
    sim, meta = simulated
    trace = packets_trace(sim, meta)
    stream, send, arrival = sim.client.arrays()
    assert trace.kind == "packets" and len(trace) == stream.size > 0
    assert set(trace.columns["stream"]) == {f"0x{s:08X}" for s in range(4)}
    assert set(trace.columns["class"]) == {"voice"}
    assert np.array_equal(trace.columns["send_s"], send)
    assert np.array_equal(trace.columns["arrival_s"], arrival, equal_nan=True)
    assert np.array_equal(trace.columns["rtp_timestamp"], np.rint(send * CLOCK_RATE_HZ).astype(np.int64))
    assert set(trace.columns["size_bytes"].tolist()) == {78}
    for name in set(trace.columns["stream"]):
        rows = np.array(trace.columns["stream"]) == name
        assert trace.columns["seq"][rows].tolist() == list(range(int(rows.sum())))
    assert trace.meta["warmup_s"] == "1.0" and trace.meta["seed"] == "5"


def test_the_written_trace_reads_back_identically(simulated, tmp_path):
    sim, meta = simulated
    path = tmp_path / "sim.csv"
    write_simulation_trace(path, sim, meta)
    fmt, back = read_any(path)
    trace = packets_trace(sim, meta)
    assert fmt == "vsim" and back.kind == "packets"
    assert back.meta == {"kind": "packets", **trace.meta}
    for name, values in trace.columns.items():
        if isinstance(values, list):
            assert back.columns[name] == values
        else:
            assert np.array_equal(back.columns[name], values, equal_nan=True), name


def test_lost_packets_keep_their_rows_without_arrival(tmp_path):
    loaded = load_scenario(FIG2, ["params.vnic.tx_ring=30"])  # the measuring vCPU posts 32 frames a tick
    sim = Simulation(loaded, 1)
    summary = sim.run(3.0, 1.0)
    trace = packets_trace(sim, {})
    lost = np.isnan(trace.columns["arrival_s"])
    assert 0 < summary.measured_loss_fraction < 1 and 0 < lost.mean() < 1
    losses = trace_samples(packets_trace(sim, {"warmup_s": 1.0}), "sim")["loss_fraction"].values
    assert losses.mean() == pytest.approx(summary.measured_loss_fraction, abs=0.01)  # per stream vs pooled
    write_simulation_trace(tmp_path / "lossy.csv", sim, {})
    assert np.array_equal(np.isnan(read_any(tmp_path / "lossy.csv")[1].columns["arrival_s"]), lost)


def test_an_unwritable_path_is_an_input_error(simulated, tmp_path):
    sim, meta = simulated
    (tmp_path / "file").write_text("x")
    with pytest.raises(InputError, match="cannot write"):
        write_simulation_trace(tmp_path / "file" / "sim.csv", sim, meta)


def timer_run(engine, seed=2, overrides=("vm.background_burst=0", "params.host.socket_contention=0")):
    sim = Simulation(load_scenario(FIG2, list(overrides)), seed, engine=engine)
    sim.record_wakeups()
    sim.run(6.0, 1.0)
    return sim


def test_the_timer_trace_is_the_models_lognormal_lateness():
    """Timer lateness is log-normal with the workload's median (0.2 ms) and shape (1.0)."""
    sim = timer_run("auto")
    trace = timer_trace(sim, {})
    logs = np.log(trace.columns["lateness_s"])
    work = load_scenario(FIG2).models["workload"].values
    assert trace.kind == "timer" and len(trace) == 4 * 300  # 4 workers, 50 ticks a second, 6 s
    assert np.exp(np.median(logs)) == pytest.approx(work.timer_median, rel=0.1)
    assert np.std(logs) == pytest.approx(work.timer_sigma, rel=0.1)
    assert trace.meta["period_s"] == "0.02"
    assert set(trace.columns["thread"].tolist()) == {0, 1, 2, 3}
    assert np.allclose(np.diff(trace.columns["scheduled_s"][trace.columns["thread"] == 0]), 0.02)


def test_both_engines_record_the_same_wakeups():
    events, closed = timer_run("events"), timer_run("uncontended")
    first, second = timer_trace(events, {}), timer_trace(closed, {})
    for name in first.columns:
        assert np.array_equal(first.columns[name], second.columns[name]), name


def test_a_timer_trace_needs_the_wakeups_kept(simulated, tmp_path):
    sim, meta = simulated
    with pytest.raises(ValueError, match="record_wakeups"):
        timer_trace(sim, meta)
    sim = timer_run("auto")
    write_simulation_trace(tmp_path / "timer.csv", sim, {"seed": 2}, kind="timer")
    fmt, back = read_any(tmp_path / "timer.csv")
    assert fmt == "vsim" and back.kind == "timer"
    assert np.array_equal(back.columns["lateness_s"], timer_trace(sim, {}).columns["lateness_s"])


def ticks_run(config, seed=1, duration=2.0, overrides=()):
    sim = Simulation(load_scenario(config, list(overrides)), seed, engine="events")
    sim.record_wakeups()
    sim.record_ticks()
    sim.run(duration, 0.0)
    return sim


def test_an_uncontended_tick_starts_when_its_timer_fires_and_lasts_its_work():
    """One thread on two idle CPUs: every tick gets a CPU the moment it wakes and runs its work."""
    sim = ticks_run(TIMER)
    trace = cpu_ticks_trace(sim, {})
    wakes = np.array([when for _, when in sim.servers[0].workers[0].wakes])
    work = load_scenario(TIMER).models["workload"].values.frame_cost
    c = trace.columns
    assert trace.kind == "cpu_ticks" and len(trace) == 100 and set(c["vm"]) == {"vm0"}
    assert np.array_equal(c["start_s"], wakes[:len(trace)])
    assert np.allclose(c["end_s"] - c["start_s"], work)
    assert np.allclose(c["scheduled_s"], 0.02 * c["tick"])  # aligned phases: due on the grid from 0


def test_contended_ticks_start_after_their_wakeup_and_in_order():
    """Four 4 ms workers and three CPU-bound tasks on two CPUs: ticks wait, queue and stretch, but
    none starts before its timer fired or before the worker's previous tick ended."""
    sim = ticks_run(CPU_CGROUPS)
    c = cpu_ticks_trace(sim, {"seed": 1}).columns
    work = load_scenario(CPU_CGROUPS).models["workload"].values.frame_cost
    assert sorted(set(c["vm"])) == ["vm0", "vm1"] and set(c["worker"].tolist()) == {0, 1}
    vm = np.array(c["vm"])
    for server in sim.servers:
        for index, worker in enumerate(server.workers):
            rows = (vm == worker.world.group.name) & (c["worker"] == index)
            wakes = np.array([when for _, when in worker.wakes])[c["tick"][rows]]
            start, end = c["start_s"][rows], c["end_s"][rows]
            assert np.array_equal(c["tick"][rows], np.arange(rows.sum()))
            assert np.all(start >= wakes - 1e-12)
            assert np.all(end - start >= work - 1e-9)
            assert np.all(start[1:] >= end[:-1] - 1e-12)
    assert np.any(c["start_s"] - c["scheduled_s"] > 1e-3)  # some ticks waited for a CPU


def test_the_ticks_are_the_same_for_the_same_seed_and_need_the_event_engine(simulated):
    first, second = (cpu_ticks_trace(ticks_run(CPU_CGROUPS, seed=4), {}) for _ in range(2))
    for name in first.columns:
        assert np.array_equal(np.asarray(first.columns[name]), np.asarray(second.columns[name])), name
    with pytest.raises(ValueError, match="record_ticks"):
        cpu_ticks_trace(simulated[0], {})
    closed = Simulation(load_scenario(TIMER), 1, engine="uncontended")
    with pytest.raises(ValueError, match="event engine"):
        closed.record_ticks()


def test_a_sip_servers_response_times_read_back_as_sipp_files_are(tmp_path):
    """--trace-kind sipp_rtt writes SIPp's -trace_rtt format, read by the reader of real SIPp
    files: one row per call answered after the warm-up, its response time the summary's."""
    from vsim.results.simulation_trace import write_simulation_trace
    loaded = load_scenario(CONFIGS / "sip-jvm-gc" / "fig8.toml", sweep_points=False)
    sim = Simulation(loaded, 1)
    summary = sim.run(20.0, 5.0)
    path = tmp_path / "uac_rtt.csv"
    write_simulation_trace(path, sim, run_meta(loaded.scenario, "fig8.toml", 1, 20.0, 5.0, sim.engine), "sipp_rtt")
    _, rtt = read_any(path)
    section = summary.sip["proxy[0]"]
    assert len(rtt) == round(section.calls_successful_per_s * 15.0)
    assert np.percentile(rtt.response_time_ms, 50) == pytest.approx(section.response_time_p50_ms)
    assert (rtt.date_ms >= 5e3).all() and (np.diff(rtt.date_ms) >= 0).all()


def test_a_sip_servers_sipp_rtt_trace_holds_what_its_file_holds(tmp_path):
    """The ``sipp_rtt`` trace ``vsim validate`` compares is the -trace_rtt file read back: the same
    response times, and none from before the warm-up."""
    from vsim.results.simulation_trace import simulation_trace, write_simulation_trace
    from vsim.traces.sipp_rtt import rtt_trace
    loaded = load_scenario(CONFIGS / "sip-jvm-gc" / "fig8.toml", sweep_points=False)
    sim = Simulation(loaded, 1)
    sim.run(10.0, 2.0)
    meta = run_meta(loaded.scenario, "fig8.toml", 1, 10.0, 2.0, sim.engine)
    path = tmp_path / "uac_rtt.csv"
    write_simulation_trace(path, sim, meta, "sipp_rtt")
    trace = simulation_trace("sipp_rtt", sim, meta)
    _, rtt = read_any(path)
    assert trace.kind == "sipp_rtt" and trace.meta["warmup_s"] == "2.0"
    assert np.array_equal(trace.columns["response_time_ms"], rtt_trace(rtt).columns["response_time_ms"])
    assert (trace.columns["date_s"] >= 2.0).all() and len(rtt) > 0
