"""The closed-form engine for uncontended hosts gives the event engine's run.

Both engines are run on the same scenario and seed; every VM's monitored
packets (stream, RTP send time, arrival) must be identical and every summary figure
equal to rounding. Per-logical-CPU utilisation may differ (the event engine
moves worlds between idle cores), its totals may not.
"""

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from vsim.build.load import load_scenario
from vsim.engines.simulation import Simulation
from vsim.engines.closed_form import applies

ROOT = Path(__file__).resolve().parents[2]
FIG3 = ROOT / "configs" / "voip-vsphere5" / "fig3.toml"


def scenario(*overrides, **model_values):
    """Fig 3's scenario (guest background bursts as calibrated unless overridden, no socket
    contention, which the closed form cannot play) with overrides; ``role__param=value``
    replaces a model parameter."""
    loaded = load_scenario(FIG3, ["params.host.socket_contention=0", *overrides])
    models = dict(loaded.models)
    for key, value in model_values.items():
        role, name = key.split("__")
        models[role] = replace(models[role], values=replace(models[role].values, **{name: value}))
    return replace(loaded, models=models)


def both(loaded, seed, duration, warmup):
    runs = {}
    for engine in ("events", "uncontended"):
        sim = Simulation(loaded, seed, engine=engine)
        summary = sim.run(duration, warmup)
        runs[engine] = (summary, [receiver.arrays() for receiver in sim.receivers], sim)
    return runs["events"], runs["uncontended"]


def flatten(summary, prefix=""):
    out = {}
    for key, value in summary.items():
        if isinstance(value, dict):
            out.update(flatten(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def assert_same_run(events, closed):
    (s_events, arrays_events, sim_events), (s_closed, arrays_closed, sim_closed) = events, closed
    assert len(arrays_events) == len(arrays_closed)
    for receiver_events, receiver_closed in zip(arrays_events, arrays_closed):
        for a, b in zip(receiver_events, receiver_closed):
            np.testing.assert_array_equal(a, b)
    flat_events, flat_closed = flatten(s_events.to_json()), flatten(s_closed.to_json())
    assert flat_events.keys() == flat_closed.keys()
    for key, value in flat_events.items():
        other = flat_closed[key]
        if key == "host.lcpu_util_pct":
            assert sum(other) == pytest.approx(sum(value), rel=1e-9, abs=1e-9)
        elif isinstance(value, float):
            assert other == pytest.approx(value, rel=1e-9, abs=1e-9), key
        else:
            assert other == value, key
    assert sim_closed.vnics[0].posted == sim_events.vnics[0].posted
    assert sim_closed.uplink.sent == sim_events.uplink.sent


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(streams=st.sampled_from([0, 4, 20, 60, 120, 200]), vcpus=st.integers(1, 4),
       seed=st.integers(0, 10_000), duration=st.floats(1.0, 4.0))
def test_one_vm_runs_the_same_in_both_engines(streams, vcpus, seed, duration):
    loaded = scenario("vm.instances=1", f"vm.vcpus={vcpus}", f"vm.streams_per_instance={streams}")
    assert_same_run(*both(loaded, seed, duration, duration / 4))


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances=st.integers(2, 4), seed=st.integers(0, 10_000))
def test_several_small_vms_share_the_uplink_the_same_in_both_engines(instances, seed):
    vcpus = 8 // instances - 1  # one core per vCPU and per transmit world
    loaded = scenario(f"vm.instances={instances}", f"vm.vcpus={vcpus}", "vm.streams_per_instance=40")
    assert_same_run(*both(loaded, seed, 2.0, 0.5))


def test_given_phases_run_the_same_in_both_engines():
    loaded = scenario("vm.instances=2", "vm.vcpus=3", "vm.phases=[0.0, 0.0, 0.004, 0.0137, 0.0199]")
    assert Simulation(loaded, 1).engine == "uncontended"
    events, closed = both(loaded, 4, 2.0, 0.5)
    assert [w.phase for s in closed[2].servers for w in s.workers] == \
        [0.0, 0.0, 0.004, 0.0137, 0.0199, 0.0]
    assert_same_run(events, closed)


def test_ring_drops_and_rate_limited_wakeups_are_the_same_in_both_engines():
    """A 40-descriptor ring and 100 wakeups a second: frames wait for the next wakeup and overflow."""
    loaded = scenario("vm.instances=1", vnic__tx_ring=40, vnic__wake_rate_hz=100.0)
    events, closed = both(loaded, 7, 3.0, 0.5)
    assert events[2].vnics[0].ring_drops > 0
    assert_same_run(events, closed)


def test_uplink_drops_are_the_same_in_both_engines():
    """A 2 Mb/s uplink with an 8-frame queue cannot carry 6,200 frames a second."""
    loaded = scenario("vm.instances=1", nic__rate_bps=2e6, nic__queue_packets=8)
    events, closed = both(loaded, 11, 2.0, 0.5)
    assert events[0].voice.packets_dropped > 0
    assert events[0].measured_loss_fraction > 0
    assert_same_run(events, closed)


def test_auto_picks_the_closed_form_only_where_nothing_waits():
    assert Simulation(scenario("vm.instances=1"), 1).engine == "uncontended"
    assert Simulation(scenario("vm.instances=2"), 1).engine == "events"  # 10 worlds, 8 cores
    assert Simulation(scenario("vm.instances=1", "vm.limit=2.0"), 1).engine == "events"
    assert Simulation(scenario("vm.instances=1", "vm.reservation=1.0"), 1).engine == "events"
    assert Simulation(scenario("vm.instances=1", "vm.affinity=[0, 1, 2, 3]"), 1).engine == "events"
    assert Simulation(scenario("vm.instances=1", "vm.background_burst=0"), 1).engine == "uncontended"


@pytest.mark.parametrize("key, phrase", [
    # the closed form has no moves between cores, so it cannot charge their refill
    ("params.workload.refill_same_socket", "no cache refill cost"),
    # in the closed form every world runs as if alone on the host; with socket contention
    # busy cores slow each other, which only the event engine plays
    ("params.host.socket_contention", "socket contention"),
])
def test_a_refill_cost_or_socket_contention_needs_the_event_engine(key, phrase):
    assert Simulation(scenario("vm.instances=1", f"{key}=2e-5"), 1).engine == "events"
    assert Simulation(scenario("vm.instances=1", f"{key}=0"), 1).engine == "uncontended"
    with pytest.raises(ValueError, match=phrase):
        Simulation(scenario("vm.instances=1", f"{key}=2e-5"), 1, engine="uncontended")


def test_socket_contention_stretches_the_tick_work():
    """One media server whose workers share a socket of four cores: contention stretches
    each tick by the other busy cores (at most three), so the host is busy longer for the
    same work, by less than a factor of 1 + 3c."""
    plain = Simulation(scenario("vm.instances=1"), 3, engine="events").run(4.0, 1.0)
    contended = Simulation(scenario("vm.instances=1", "params.host.socket_contention=0.2"), 3,
                           engine="events").run(4.0, 1.0)
    ratio = contended.host.cpu_util_pct / plain.host.cpu_util_pct
    assert 1.0 < ratio < 1.0 + 3 * 0.2


def test_applies_counts_cores_not_threads():
    with_ht = Simulation(scenario("vm.instances=1", "vm.vcpus=7"), 1, engine="events").machine
    assert applies(with_ht)  # 7 vCPUs + 1 transmit world on 8 cores
    crowded = Simulation(scenario("vm.instances=1", "vm.vcpus=8"), 1, engine="events").machine
    assert not applies(crowded)


def test_asking_for_the_closed_form_on_a_contended_host_is_an_error():
    with pytest.raises(ValueError, match="60 worlds on 8 cores"):
        Simulation(scenario("vm.instances=12"), 1, engine="uncontended")
    with pytest.raises(ValueError, match="engine must be one of"):
        Simulation(scenario("vm.instances=1"), 1, engine="fluid")


def test_the_closed_form_is_deterministic():
    loaded = scenario("vm.instances=1")
    first = Simulation(loaded, 5).run(2.0, 0.5)
    second = Simulation(loaded, 5).run(2.0, 0.5)
    assert first == second
    assert not math.isnan(first.jitter.mean_ms)
