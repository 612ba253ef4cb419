import json
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from vsim.core.errors import InputError
from vsim.net.frames import serialization_time
from vsim.scenario.load import load_scenario
from vsim.scenario.simulate import simulate

CONFIG = Path(__file__).resolve().parents[2] / "configs/netioc-vsphere6/fig6.toml"


def _config(tmp_path, count=12, params="outstanding = 1"):
    """The Fig 6 scenario with ``count`` VMs and ``params`` in place of its outstanding line."""
    text = CONFIG.read_text().replace("count = 12", f"count = {count}")
    path = tmp_path / f"rr_{count}_{abs(hash(params))}.toml"
    path.write_text(text.replace("outstanding = 1", params))
    return path


def _rr(tmp_path, overrides=(), duration=0.05, seed=1, **config):
    loaded = load_scenario(_config(tmp_path, **config), list(overrides))
    summary = simulate(loaded, seed, duration=duration, warmup=0.01)
    return loaded, summary["uplink"]["request_response"]["netperf"]


def test_a_lone_chain_matches_the_closed_form(tmp_path):
    loaded, rr = _rr(tmp_path, count=1)
    nic = loaded.models["nic"].values
    request = serialization_time(64 + 52, nic.rate_bps)
    response = serialization_time(64 + 52, nic.rate_bps)
    round_trip = (nic.host_path_latency + request + nic.latency + nic.peer_turnaround + nic.latency
                  + response)
    assert rr["one_way_latency_mean_us"] == pytest.approx(round_trip / 2 * 1e6, rel=1e-6)
    assert rr["transactions_per_s"] == pytest.approx(1 / round_trip, rel=2e-3)


def test_netioc_adds_nothing_without_a_completion_hold(tmp_path):
    _, default = _rr(tmp_path)
    _, netioc = _rr(tmp_path, ['host.uplink="netioc"', "params.nic.tx_completion_hold=0"])
    assert netioc["one_way_latency_mean_us"] == pytest.approx(default["one_way_latency_mean_us"],
                                                               abs=0.01)


def test_the_completion_hold_slows_netioc(tmp_path):
    _, default = _rr(tmp_path)
    _, netioc = _rr(tmp_path, ['host.uplink="netioc"'])
    assert netioc["one_way_latency_mean_us"] > default["one_way_latency_mean_us"] + 1


@settings(max_examples=5, deadline=None)
@given(st.integers(1, 4))
def test_more_outstanding_never_lowers_throughput_on_an_idle_link(tmp_path_factory, outstanding):
    tmp_path = tmp_path_factory.mktemp("rr")
    _, fewer = _rr(tmp_path, count=1, params=f"outstanding = {outstanding}")
    _, more = _rr(tmp_path, count=1, params=f"outstanding = {outstanding + 1}")
    assert more["transactions_per_s"] >= fewer["transactions_per_s"]


def test_same_seed_same_summary(tmp_path):
    assert json.dumps(_rr(tmp_path)[1]) == json.dumps(_rr(tmp_path)[1])


@pytest.mark.parametrize("params, key", [
    ("think_time = -1", "think_time"),
    ("outstanding = 1.5", "outstanding"),
    ("outstanding = 0", "outstanding"),
    ("window = 3", "window"),
])
def test_bad_parameters_name_the_key(tmp_path, params, key):
    with pytest.raises(InputError) as error:
        load_scenario(_config(tmp_path, params=params))
    assert key in error.value.where
