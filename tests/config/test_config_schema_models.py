"""Component models: each policy takes its own parameters only, a codec all E-model values or none,
a client with receive stalls gives their length, a host its topology with hyper-threading on or off."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vsim.core.errors import InputError
from vsim.config.schema_models import (MODEL_ROLES, POLICY_PARAMETERS, ClientModel, CodecModel,
                                         HostModel, NicModel, SchedulerModel)
from vsim.config.typed import from_dict

BASE = {"quantum": 0.01, "period": 0.1}
VALUES = {"costop_threshold": 0.003, "wake_credit": 0.0, "wake_granularity": 0.001,
          "variant": None, "tunable_scaling": "log", "base_slice": 0.00075, "place_lag": True,
          "run_to_parity": True, "latency": 0.006, "min_granularity": 0.00075,
          "wakeup_granularity": 0.001, "gentle_fair_sleepers": True, "tick": 0.01,
          "credits_per_ms": 10.0, "default_weight": 256.0, "tick_debit": False}
ALL = sorted({name for names in POLICY_PARAMETERS.values() for name in names} - {"variant"})


def scheduler(policy, variant, names):
    data = {"policy": policy, **BASE, **{name: VALUES[name] for name in names}}
    if variant is not None:
        data["variant"] = variant
    return data


def problem(cls, data):
    try:
        from_dict(cls, data, source="m.toml", path="params")
    except InputError as error:
        return error.where
    return None


@pytest.mark.parametrize("policy, variant", sorted(POLICY_PARAMETERS, key=str))
@given(extra=st.sets(st.sampled_from(ALL)), missing=st.data())
def test_a_policy_takes_exactly_its_own_parameters(policy, variant, extra, missing):
    own = [name for name in POLICY_PARAMETERS[(policy, variant)] if name != "variant"]
    left_out = missing.draw(st.sets(st.sampled_from(own))) if own else set()
    given_names = (set(own) - left_out) | (extra - set(own))
    where = problem(SchedulerModel, scheduler(policy, variant, given_names))
    wrong = left_out | (extra - set(own))
    if not wrong:
        assert where is None
    else:
        assert where in {f"params.{name}" for name in wrong}


def test_linux_fair_needs_its_variant():
    assert problem(SchedulerModel, {"policy": "linux_fair", **BASE}) == "params.variant"


@pytest.mark.parametrize("policy, variant", sorted(POLICY_PARAMETERS, key=str))
def test_the_policy_gets_its_parameters_and_the_machine_the_co_stop_threshold(policy, variant):
    own = [name for name in POLICY_PARAMETERS[(policy, variant)] if name != "variant"]
    model = from_dict(SchedulerModel, scheduler(policy, variant, own), source="m.toml")
    params = model.policy_params()
    assert set(params) == set(POLICY_PARAMETERS[(policy, variant)]) - {"costop_threshold"}
    assert model.machine_costop_threshold() == (VALUES["costop_threshold"] if "costop_threshold" in own
                                                else math.inf)


@given(st.sets(st.sampled_from(CodecModel.E_MODEL)))
def test_a_codec_has_all_e_model_values_or_none(names):
    values = {"equipment_impairment": 11.0, "loss_robustness": 19.0, "lookahead": 0.005}
    data = {"payload_bytes": 20, "packet_interval": 0.02, **{name: values[name] for name in names}}
    where = problem(CodecModel, data)
    if len(names) in (0, len(CodecModel.E_MODEL)):
        assert where is None
        assert from_dict(CodecModel, data, source="m.toml").has_e_model() == bool(names)
    else:
        assert where in {f"params.{name}" for name in CodecModel.E_MODEL if name not in names}


@given(st.floats(0, 1e-3), st.floats(0, 1e-3))
def test_the_completion_hold_is_capped_by_its_window(hold, window):
    nic = NicModel(rate_bps=1e9, queue_packets=100, latency=0.0, tx_completion_window=window,
                   tx_completion_hold=hold)
    assert nic.completion_hold() == min(hold, window)


def test_every_role_has_a_model_class():
    assert set(MODEL_ROLES) == {"host", "scheduler", "nic", "vnic", "workload", "codec", "client"}


CLIENT = {"latency": 5e-5, "jitter_buffer_nominal": 0.04, "playout_smoothing": 0.998,
          "playout_variation_factor": 4.0, "talkspurt": 1.0}


@pytest.mark.parametrize("stalls, where", [
    ({}, None),
    ({"stall_rate": 0.1, "stall_duration": 0.02}, None),
    ({"stall_rate": 0.1}, "params.stall_duration"),
    ({"stall_rate": -1.0, "stall_duration": 0.02}, "params.stall_rate"),
])
def test_a_client_that_stalls_says_for_how_long(stalls, where):
    assert problem(ClientModel, {**CLIENT, **stalls}) == where


@given(st.integers(1, 4), st.integers(1, 16), st.integers(1, 2), st.booleans())
def test_a_hosts_logical_cpus_are_its_cores_threads_or_one_per_core_without_hyper_threading(
        sockets, cores, threads, hyperthreading):
    host = HostModel(sockets, cores, threads, ht_rate=0.6, socket_contention=0.1)
    topology = host.topology(hyperthreading)
    assert topology.logical_cpus == sockets * cores * (threads if hyperthreading else 1)
    assert (topology.cores, topology.ht_rate, topology.socket_contention) == (sockets * cores, 0.6, 0.1)
