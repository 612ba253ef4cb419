import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from vsim.core.errors import InputError
from vsim.guest.request_response import RTO_MIN, RequestResponseTraffic
from vsim.net.frames import serialization_time
from vsim.net.shared_uplink import SharedUplink
from vsim.build.load import load_scenario
from vsim.engines.simulation import Simulation, simulate

CONFIG = Path(__file__).resolve().parents[2] / "configs/netioc-vsphere6/fig6.toml"


def _config(tmp_path, count=12, params="outstanding = 1"):
    """The Fig 6 scenario with ``count`` VMs and ``params`` in place of its outstanding line."""
    text = CONFIG.read_text().replace("count = 12", f"count = {count}")
    path = tmp_path / f"rr_{count}_{abs(hash(params))}.toml"
    path.write_text(text.replace("outstanding = 1", params))
    return path


def _rr(tmp_path, overrides=(), duration=0.05, seed=1, **config):
    loaded = load_scenario(_config(tmp_path, **config), list(overrides))
    summary = simulate(loaded, seed, duration=duration, warmup=0.01).to_json()
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


UPLINKS = ["multiqueue", "netioc", "fifo"]


def chain_counts(rr):
    """Per chain of ``rr`` over the run: (transactions begun, completed by the run's end, in
    flight at its end: begun, its response not back, its request perhaps awaiting a resend)."""
    in_flight = ((rr.chain_begun > 0) & (rr.chain_back >= rr.duration)).astype(np.int64)
    return rr.chain_begun, rr.chain_completed, in_flight


@settings(max_examples=12, deadline=None)
@given(st.sampled_from(UPLINKS), st.integers(1, 12), st.integers(1, 3), st.integers(0, 2**16),
       st.sampled_from([0.0, 5e-6]))
def test_transactions_are_conserved(tmp_path_factory, uplink, count, outstanding, seed, think):
    """Each chain's transactions begun are those completed by the run's end plus the one in
    flight at its end, and no chain begins more than its round trips leave room for."""
    tmp_path = tmp_path_factory.mktemp("rr")
    path = _config(tmp_path, count=count,
                   params=f"outstanding = {outstanding}\nthink_time = {think}")
    loaded = load_scenario(path, [f'host.uplink="{uplink}"'])
    sim = Simulation(loaded, seed)
    duration = 0.02
    sim.run(duration, 0.005)
    begun, completed, in_flight = chain_counts(sim.rr)
    assert begun.size == count * outstanding
    assert np.array_equal(completed + in_flight, begun)
    assert set(in_flight.tolist()) <= {0, 1}
    nic = loaded.models["nic"].values
    shortest = 2 * serialization_time(116, nic.rate_bps) + 2 * nic.latency + think
    assert np.all(begun <= np.ceil(duration / shortest))
    assert int(sim.rr.vm_transactions.sum()) <= int(completed.sum())


@settings(max_examples=6, deadline=None)
@given(st.sampled_from(UPLINKS), st.integers(0, 2**16))
def test_a_seed_gives_the_same_summary(tmp_path_factory, uplink, seed):
    tmp_path = tmp_path_factory.mktemp("rr")
    runs = [_rr(tmp_path, [f'host.uplink="{uplink}"'], duration=0.03, seed=seed)[1]
            for _ in range(2)]
    assert json.dumps(runs[0]) == json.dumps(runs[1])


@pytest.mark.parametrize("uplink", UPLINKS)
def test_frame_by_frame_agrees_with_bursts_of_certain_requests(tmp_path, monkeypatch, uplink):
    """The requests sent one at a time through the scheduler's lanes meet what the requests
    due within the shortest round trip, sent together as one burst, meet: the same closed
    loops, summed in another order. NetIOC's passes decide on ties of arrival and pass times,
    which those last bits may tip, handing the same waits to other VMs: there the VMs' means
    agree within a nanosecond and the group's to rounding."""
    _, lanes = _rr(tmp_path, [f'host.uplink="{uplink}"'], duration=0.03)
    monkeypatch.setattr(SharedUplink, "frame_lanes", lambda *args: None)
    _, bursts = _rr(tmp_path, [f'host.uplink="{uplink}"'], duration=0.03)
    assert lanes["transactions_per_s"] == bursts["transactions_per_s"]
    assert lanes["one_way_latency_mean_us"] == pytest.approx(bursts["one_way_latency_mean_us"],
                                                             rel=1e-9)
    for mine, theirs in zip(lanes["per_vm"], bursts["per_vm"]):
        assert mine["transactions_per_s"] == theirs["transactions_per_s"]
        assert mine["one_way_latency_mean_us"] == pytest.approx(theirs["one_way_latency_mean_us"],
                                                                abs=1e-3)


@pytest.mark.parametrize("params, key", [
    ("think_time = -1", "think_time"),
    ("outstanding = 1.5", "outstanding"),
    ("outstanding = 0", "outstanding"),
    ("window = 3", "window"),
    ("outstanding = 2000", "outstanding"),  # past MAX_OUTSTANDING
    ("timestamps = \"false\"", "timestamps"),  # a string, not a flag
])
def test_bad_parameters_name_the_key(tmp_path, params, key):
    with pytest.raises(InputError) as error:
        load_scenario(_config(tmp_path, params=params))
    assert key in error.value.where


BESIDE_VOICE = CONFIG.parents[1] / "whatif" / "netperf_beside_voice.toml"


def _send_each_request_at_its_time(monkeypatch):
    """Requests beside media servers sent each by an event at its own time (no lagging)."""
    def schedule(self):
        t = float(self.next_request.min()) if self.next_request.size else math.inf
        if t < self.duration:
            self.call_later(t - self.env.now, step, self)

    def step(self):
        self._commit(np.flatnonzero(self.next_request <= self.env.now))
        schedule(self)

    monkeypatch.setattr(SharedUplink, "add_lagging_source", lambda *args: None)
    monkeypatch.setattr(RequestResponseTraffic, "_schedule", schedule)


@pytest.mark.parametrize("uplink", ["fifo", "netioc"])
def test_requests_sent_late_meet_what_requests_sent_at_their_time_meet(monkeypatch, uplink):
    """Beside a media server the requests are sent in batches, late; the uplink still takes
    every frame in time order, so each request and each media frame meets what it would have
    met had every request been sent by an event at its own time: the same transactions, and
    the same delays up to rounding (which may move a media frame into the next 1 us bin of
    the uplink's delay histogram)."""
    loaded = load_scenario(BESIDE_VOICE, [f'host.uplink="{uplink}"', "group.netperf.count=3"])
    late = simulate(loaded, 1, duration=0.4, warmup=0.1).to_json()
    _send_each_request_at_its_time(monkeypatch)
    on_time = simulate(loaded, 1, duration=0.4, warmup=0.1).to_json()
    mine = late["uplink"]["request_response"]["netperf"]
    theirs = on_time["uplink"]["request_response"]["netperf"]
    assert mine["transactions_per_s"] == theirs["transactions_per_s"] > 0
    assert mine["one_way_latency_mean_us"] == pytest.approx(theirs["one_way_latency_mean_us"],
                                                            rel=1e-9)
    assert mine["uplink_delay_mean_us"] == pytest.approx(theirs["uplink_delay_mean_us"], rel=1e-6)
    voice, voice_on_time = late["uplink"]["voice"], on_time["uplink"]["voice"]
    assert voice["delay_mean_us"] == pytest.approx(voice_on_time["delay_mean_us"], abs=0.01)
    assert voice["delay_p99_us"] == pytest.approx(voice_on_time["delay_p99_us"], abs=1.0)
    for key in ("mean_ms", "p99_ms"):
        assert late["jitter"][key] == pytest.approx(on_time["jitter"][key], rel=1e-9)


def test_requests_lost_to_a_full_queue_show_their_retransmission_in_the_tail():
    """Past the transmit stage's ceiling the FIFO stays full: requests are lost and sent again
    after TCP's minimum retransmission timeout, and the 99th percentile of the one-way latency
    says so instead of stopping at the fine bins' 10 ms."""
    beside_flood = CONFIG.parents[1] / "whatif" / "netperf_beside_flood.toml"
    loaded = load_scenario(beside_flood, ["group.flood.count=8"])
    rr = simulate(loaded, 1, duration=1.0, warmup=0.2).to_json()["uplink"]["request_response"]["netperf"]
    assert sum(vm["retransmissions"] for vm in rr["per_vm"]) > 0
    assert rr["one_way_latency_p99_us"] > RTO_MIN / 2 * 1e6


def test_chains_that_lose_their_requests_stop_reserving_their_unloaded_rate():
    """Past the transmit stage's ceiling the chains send a small part of their unloaded rate
    (retransmission timeouts); declared again, they leave the flood the rest of the stage, as a
    FIFO would, instead of the ceiling less their unloaded rate."""
    beside_flood = CONFIG.parents[1] / "whatif" / "netperf_beside_flood.toml"
    loaded = load_scenario(beside_flood, ["group.flood.count=8"])
    summary = simulate(loaded, 1, duration=1.0, warmup=0.3).to_json()
    ceiling = 1 / loaded.models["nic"].values.tx_stage_per_packet
    rr = summary["uplink"]["request_response"]["netperf"]
    assert rr["transactions_per_s"] < 0.02 * ceiling
    assert summary["uplink"]["groups"]["flood"]["delivered_pps"] > 0.95 * ceiling


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(1e-6, 5e-3), min_size=1, max_size=300), st.floats(0.0, 1e-6))
def test_the_histograms_99th_percentile_is_the_values_to_a_bin_and_never_below(values, shift):
    """Read as the upper edge of its bin: at most a bin above the values' 99th percentile and
    never below it, so never below their mean when they all share one bin."""
    from vsim.guest.request_response import BIN, BINS, COARSE_BINS, _add, _p99
    values = np.array(values) + shift
    histogram = np.zeros((1, BINS + COARSE_BINS), dtype=np.int64)
    _add(histogram, np.zeros(values.size, dtype=np.int64), values)
    p99 = _p99(histogram[0], 1.0)
    true = np.percentile(values, 99, method="inverted_cdf")
    assert true - 1e-15 <= p99 <= true + BIN * (1 + 1e-9)
