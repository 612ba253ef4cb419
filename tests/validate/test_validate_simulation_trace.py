"""Tests of a simulation's packets exported as a vsim trace: the columns, and the round trip through
the trace reader."""

from pathlib import Path

import numpy as np
import pytest

from vsim.core.errors import InputError
from vsim.scenario.load import load_scenario
from vsim.scenario.simulate import Simulation
from vsim.validate.detect import read_any
from vsim.validate.trace_metrics import trace_samples
from vsim.validate.simulation_trace import (CLOCK_RATE_HZ, packets_trace, run_meta, timer_trace,
                                            write_simulation_trace)

FIG2 = Path(__file__).resolve().parents[2] / "configs" / "voip-vsphere5" / "fig2.toml"


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
    assert 0 < summary["measured_loss_fraction"] < 1 and 0 < lost.mean() < 1
    losses = trace_samples(packets_trace(sim, {"warmup_s": 1.0}), "sim")["loss_fraction"].values
    assert losses.mean() == pytest.approx(summary["measured_loss_fraction"], abs=0.01)  # per stream vs pooled
    write_simulation_trace(tmp_path / "lossy.csv", sim, {})
    assert np.array_equal(np.isnan(read_any(tmp_path / "lossy.csv")[1].columns["arrival_s"]), lost)


def test_an_unwritable_path_is_an_input_error(simulated, tmp_path):
    sim, meta = simulated
    (tmp_path / "file").write_text("x")
    with pytest.raises(InputError, match="cannot write"):
        write_simulation_trace(tmp_path / "file" / "sim.csv", sim, meta)


def timer_run(engine, seed=2, overrides=("vm.background_burst=0",)):
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
