"""A SIP server group on a host, end to end: its scenario keys, its run and its summary."""

import pytest

from vsim.build.load import load_scenario
from vsim.core.errors import InputError
from vsim.engines.simulation import simulate
from vsim.config.data_dirs import data_root

FIG8 = data_root() / "configs/sip-jvm-gc/fig8.toml"
FIG9 = data_root() / "configs/sip-jvm-gc/fig9.toml"


def run(config, rate, duration=60.0, extra=()):
    loaded = load_scenario(config, [f"group.proxy.traffic.params.rate={rate}", *extra], sweep_points=False)
    return simulate(loaded, 1, duration=duration, warmup=10.0).sip["proxy[0]"]


def test_cpu_is_the_calls_work_plus_the_collections():
    """Below saturation the server's CPU is the call rate times a call's messages' work, plus
    what the collections take (zero without a collector)."""
    rate = 100.0
    loaded = load_scenario(FIG8, [f"group.proxy.traffic.params.rate={rate}"], sweep_points=False)
    costs = loaded.models["group.proxy.workload"].values
    per_call = costs.invite + costs.ack + costs.bye
    section = run(FIG8, rate)
    assert section.calls_attempted_per_s == pytest.approx(rate)
    assert section.failed_fraction == 0
    expected = 100 * rate * per_call / 2  # two processors
    assert expected < section.cpu_util_pct < expected + section.gc_paused_pct + 1


def test_an_idle_server_sets_up_in_its_messages_work():
    """At a low rate nothing waits: the setup is the INVITE's and the ACK's work and three
    network crossings, every call alike."""
    loaded = load_scenario(FIG9, ["group.proxy.traffic.params.rate=5"], sweep_points=False)
    costs = loaded.models["group.proxy.workload"].values
    section = run(FIG9, 5.0)
    expected_ms = 1e3 * (costs.invite + costs.ack + 3 * 1e-4)
    assert section.setup_p50_ms == pytest.approx(expected_ms, abs=0.01)


def test_a_collector_with_long_pauses_delays_calls_and_fills_the_queue():
    calm, paused = run(FIG9, 130.0, duration=200.0), run(FIG8, 130.0, duration=200.0)
    assert paused.gc_pause_max_ms > 10 * calm.gc_pause_max_ms
    assert paused.setup_p95_ms > calm.setup_p95_ms
    assert paused.queue_dropped > calm.queue_dropped == 0


def test_saturation_raises_the_setup_time():
    below, beyond = run(FIG9, 200.0), run(FIG9, 300.0)
    assert beyond.setup_p50_ms > 10 * below.setup_p50_ms
    assert beyond.cpu_util_pct > 99


def test_same_seed_same_summary():
    loaded = load_scenario(FIG8, ["group.proxy.traffic.params.rate=120", "group.proxy.traffic.params.arrivals=poisson"],
                           sweep_points=False)
    first, second = (simulate(loaded, 7, duration=40.0, warmup=5.0).to_json() for _ in range(2))
    assert first == second


@pytest.mark.parametrize("override, key", [
    (["group.proxy.workload=idle"], "group.proxy.traffic.kind"),
    (["group.proxy.traffic.kind=udp_flood"], "group.proxy.traffic"),
    (["group.proxy.gc=jvm_gc/none_such"], "group.proxy.gc"),
    (["group.proxy.model=workloads/vmcd_g729"], "group.proxy.model"),
    (["group.proxy.traffic.params.rate=-1"], "group.proxy.traffic.params.rate"),
])
def test_bad_sip_settings_are_refused_by_key(override, key):
    with pytest.raises(InputError) as refused:
        load_scenario(FIG8, override, sweep_points=False)
    assert key in str(refused.value)


def test_the_validation_counterpart_spends_its_measured_cost_until_its_quota():
    """configs/validation/sip_uas.toml: below its quota the UAS's CPU is the rate times the cost
    measured at 25 calls/s; above it, the 0.0333 CPUs its cgroup allows and no more."""
    config = data_root() / "configs/validation/sip_uas.toml"
    def cpu(rate):
        loaded = load_scenario(config, [f"group.uas.traffic.params.rate={rate}"], sweep_points=False)
        return simulate(loaded, 1).sip["uas[0]"].cpu_util_pct
    assert cpu(100.0) == pytest.approx(100 * 100 * 0.212e-3, rel=0.02)
    assert cpu(400.0) == pytest.approx(3.33, abs=0.02)
