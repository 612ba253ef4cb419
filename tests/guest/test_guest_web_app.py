"""A two-tier web application (``vsim.guest.web_app``) and its closed-loop users, end to end:
an operation meeting nothing takes its closed-form time, the users obey the interactive
response-time law X = N / (R + Z), bad keys are refused by name, the same seed gives the same
summary."""

import math

import pytest
from hypothesis import given, strategies as st

from cli_run import one_line_error, vsim
from vsim.build.load import load_scenario
from vsim.config.data_dirs import data_root
from vsim.engines.simulation import Simulation, simulate
from vsim.guest.web_app import SEGMENT_DATA, response_frames
from vsim.net.sources.web_users import MTU

ALONE = data_root() / "configs/netioc-vsphere6/exp2_alone.toml"
RESERVED = data_root() / "configs/netioc-vsphere6/exp2_reserved.toml"


def users(count, think):
    return [f"group.olio.traffic.params.users={count}", f"group.olio.traffic.params.think_time={think}"]


@given(st.floats(1.0, 1e6))
def test_a_response_is_full_segments_then_the_rest(size):
    frames = response_frames(size)
    headers = MTU - SEGMENT_DATA
    assert frames.size == math.ceil(math.ceil(size) / SEGMENT_DATA)
    assert (frames <= MTU).all() and (frames[:-1] == MTU).all()
    assert frames.sum() - headers * frames.size == math.ceil(size)


def test_an_operation_meeting_nothing_takes_its_closed_form_time():
    """One user thinking long: no operation waits for a vCPU or a frame, so each takes the
    model's CPU, the paths' latencies and its frames' wire time, nothing more."""
    loaded = load_scenario(ALONE, users(1, 0.5), sweep_points=False)
    sim = Simulation(loaded, 3)
    app = sim.web_apps[0]
    lone = app.lone_operation()
    sim.run(30.0, 1.0)
    times = app.finished_between(1.0, 30.0)
    assert times.size > 20
    assert times.min() == pytest.approx(lone, rel=1e-6)
    assert times.max() == pytest.approx(lone, rel=1e-6)


@pytest.mark.parametrize("config, count, think", [(ALONE, 40, 0.5), (RESERVED, 150, 1.0)])
def test_closed_loop_users_obey_the_response_time_law(config, count, think):
    """N users thinking Z on average between operations of mean response R finish
    X = N / (R + Z) operations a second (the interactive response-time law), whatever waits."""
    summary = simulate(load_scenario(config, users(count, think), sweep_points=False), 5,
                       duration=25.0, warmup=5.0).web_apps["olio[0]"]
    r = summary.response_time_mean_ms / 1000
    assert summary.operations > 1000
    # the window's operations are Poisson-like: 3 standard errors of the count
    assert summary.operations_per_s == pytest.approx(count / (r + think),
                                                     rel=3 / math.sqrt(summary.operations))


def test_the_summary_counts_the_model_s_requests():
    loaded = load_scenario(ALONE, users(20, 0.5), sweep_points=False)
    summary = simulate(loaded, 1, duration=10.0, warmup=1.0).web_apps["olio[0]"]
    per_operation = loaded.models["group.olio.workload"].values.requests_per_operation
    assert summary.requests_per_s == pytest.approx(summary.operations_per_s * per_operation)
    assert summary.response_time_p50_ms <= summary.response_time_p99_ms


def test_same_seed_same_summary():
    loaded = load_scenario(RESERVED, users(60, 1.0), sweep_points=False)
    first, second = (simulate(loaded, 7, duration=4.0, warmup=1.0).to_json() for _ in range(2))
    assert first == second


@pytest.mark.parametrize("override, key", [
    ("group.olio.traffic.params.users=0", "group.olio.traffic.params.users"),
    ("group.olio.traffic.params.think_time=-1", "group.olio.traffic.params.think_time"),
    ("group.olio.traffic.kind=udp_flood", "group.olio.traffic"),
    ("group.olio.workload=idle", "group.olio.traffic.kind"),
    ("group.olio.model=web_apps/none_such", "group.olio.model"),
    ("group.olio.model=workloads/vmcd_g729", "group.olio.model"),
])
def test_bad_web_app_settings_are_one_line_naming_the_key(capsys, override, key):
    code, _, err = vsim(capsys, "run", ALONE, "--set", override, "--duration", "1")
    assert code == 2 and key in one_line_error(err)
