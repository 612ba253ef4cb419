"""Guest background bursts: their rate, their CPU, and how they delay the ticks queued behind them."""

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from vsim.core.errors import InputError
from vsim.build.load import load_scenario
from vsim.engines.simulation import Simulation, simulate

ROOT = Path(__file__).resolve().parents[2]
FIG3 = ROOT / "configs" / "voip-vsphere5" / "fig3.toml"
BURST = 0.005


def fig3(*overrides):
    """Fig 3's scenario, short, with the guest background bursts off unless ``overrides`` set them,
    and no socket contention, so that a worker alone on its core runs at full speed."""
    return load_scenario(FIG3, ["vm.instances=1", "run.duration=20", "run.warmup=1",
                                "vm.background_burst=0", "params.host.socket_contention=0",
                                *overrides])


def quiet(loaded):
    """No timer lateness and no frame-cost variation: on an idle host every tick's transit is equal."""
    model = loaded.models["workload"]
    values = replace(model.values, timer_median=0.0, frame_cost_cv=0.0)
    return replace(loaded, models=dict(loaded.models, workload=replace(model, values=values)))


def measured_transit(loaded, seed, duration):
    """Transit times of the measuring conference's packets, each less its stream's least."""
    sim = Simulation(loaded, seed)
    sim.run(duration, 1.0)
    streams, send, recv = sim.client.arrays()
    transit = recv - send
    for stream in np.unique(streams):
        transit[streams == stream] -= transit[streams == stream].min()
    return transit


def test_the_workload_model_sets_the_bursts_and_a_zero_burst_turns_them_off():
    calibrated = load_scenario(FIG3, ["vm.instances=1"])
    workload = calibrated.models["workload"].values
    assert calibrated.scenario.vm.background(workload) == (workload.background_burst,
                                                           workload.background_interval)
    assert workload.background_burst > 0
    assert "guest_background" in simulate(calibrated, seed=2, duration=5).to_json()
    summary = simulate(fig3("vm.background_interval=0.1"), seed=2, duration=5).to_json()
    assert "guest_background" not in summary
    assert summary == simulate(fig3(), seed=2, duration=5).to_json()


def test_bursts_arrive_at_the_configured_rate():
    interval, duration = 0.25, 200.0
    summary = simulate(fig3(f"vm.background_burst={BURST}", f"vm.background_interval={interval}",
                            "vm.instances=2"), seed=4, duration=duration).to_json()
    rate = summary["guest_background"]["bursts_per_vm_per_s"]
    expected = 1 / interval
    arrivals = expected * (duration - 1.0) * 2  # both VMs
    # Poisson: the count's standard deviation is its square root; allow five of them
    assert abs(rate - expected) * (duration - 1.0) * 2 <= 5 * np.sqrt(arrivals)


def test_burst_work_is_added_to_the_vms_cpu():
    """On whole idle cores every burst runs at full speed, so the VM's used CPU grows by
    exactly the bursts' work, give or take the bursts cut by the window's edges."""
    base = simulate(quiet(fig3()), seed=5).to_json()
    busy = simulate(quiet(fig3(f"vm.background_burst={BURST}", "vm.background_interval=0.05")), seed=5).to_json()
    window = 20.0 - 1.0
    bursts = busy["guest_background"]["bursts_per_vm_per_s"] * window
    added = (busy["vms"]["vm0"]["used_pct"] - base["vms"]["vm0"]["used_pct"]) / 100 * window
    assert bursts > 300
    assert abs(added - bursts * BURST) <= 2 * BURST
    assert busy["guest_background"]["cpu_pct_of_vm"] == pytest.approx(100 * bursts * BURST / window / 4)


def test_a_burst_delays_the_ticks_queued_behind_it_by_at_most_its_length():
    """A tick that fires during a burst on its vCPU starts when the burst ends: measured
    packets are late by up to a burst (two when bursts pile up), never early."""
    base = measured_transit(quiet(fig3()), 6, 20.0)
    excess = measured_transit(quiet(fig3(f"vm.background_burst={BURST}", "vm.background_interval=0.1")),
                              6, 20.0)
    assert base.max() < 1e-9
    assert np.count_nonzero(excess < 1e-9) > 0.8 * excess.size
    assert excess.max() <= 2 * BURST + 1e-9
    assert np.count_nonzero(excess > BURST / 2) >= 4
    assert simulate(quiet(fig3(f"vm.background_burst={BURST}")), seed=6).to_json()["jitter"]["mean_ms"] > 1e-4


def frames_fired(loaded, seed, duration):
    """Frames of every tick whose timer fired by ``duration``: emitted, or still queued."""
    sim = Simulation(loaded, seed, engine="events")
    sim.run(duration, 1.0)
    queued = sum(worker.streams for server in sim.servers for worker in server.workers
                 for item in worker.backlog if isinstance(item, int))
    return sum(server.emitted for server in sim.servers) + queued


@settings(max_examples=15, deadline=None)
@given(burst=st.floats(1e-4, 0.03), interval=st.floats(0.01, 1.0), seed=st.integers(0, 2**16))
def test_bursts_never_lose_or_add_a_tick(burst, interval, seed):
    """Bursts only delay ticks: the same ticks fire, and each is emitted or still queued,
    however much background work piles up."""
    busy = fig3("vm.instances=2", f"vm.background_burst={burst}", f"vm.background_interval={interval}")
    assert frames_fired(busy, seed, 4.0) == frames_fired(fig3("vm.instances=2"), seed, 4.0)


@settings(max_examples=10, deadline=None)
@given(burst=st.floats(1e-4, 0.03), interval=st.floats(0.005, 1.0), seed=st.integers(0, 2**16))
def test_both_engines_run_the_same_bursts_on_an_uncontended_host(burst, interval, seed):
    """The closed form draws the bursts in advance as the events draw them, and queues them
    with the ticks the same way: the same packets at the same times, the same CPU used."""
    loaded = fig3(f"vm.background_burst={burst}", f"vm.background_interval={interval}")
    runs = {}
    for engine in ("events", "uncontended"):
        sim = Simulation(loaded, seed, engine=engine)
        runs[engine] = (sim.run(4.0, 1.0).to_json(), sim.client.arrays())
    (events, packets_events), (closed, packets_closed) = runs["events"], runs["uncontended"]
    for a, b in zip(packets_events, packets_closed):
        np.testing.assert_array_equal(a, b)
    assert closed["guest_background"] == events["guest_background"]
    assert closed["vms"]["vm0"]["used_pct"] == pytest.approx(events["vms"]["vm0"]["used_pct"], rel=1e-9)


def test_same_seed_same_summary_with_background():
    loaded = fig3("vm.instances=6", f"vm.background_burst={BURST}", "vm.background_interval=0.3")
    assert simulate(loaded, seed=9, duration=5).to_json() == simulate(loaded, seed=9, duration=5).to_json()


@pytest.mark.parametrize("setting, message", [
    ("vm.background_burst=-0.001", "vm.background_burst: expected a number >= 0"),
    ("vm.background_burst=inf", "vm.background_burst: expected a finite number"),
    ("vm.background_interval=0", "vm.background_interval: expected a number > 0"),
])
def test_bad_background_settings_name_their_key(setting, message):
    with pytest.raises(InputError, match=message):
        fig3(setting)
