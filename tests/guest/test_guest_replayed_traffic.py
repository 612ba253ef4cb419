"""VMs replaying a packets trace (``packets_replay``), driven through the scenario simulation."""

import json

import numpy as np
import pytest

from cli_run import one_line_error, vsim
from vsim.build.load import load_scenario
from vsim.core.errors import InputError
from vsim.engines.simulation import Simulation
from vsim.traces.vsim_trace import write_trace

SEND = np.array([10.0, 10.0031, 10.0112, 10.2, 10.2007, 10.9, 11.45, 11.4501, 12.3, 13.05])
"""A recorded sender's send times, irregular, from an epoch of its own."""

SCENARIO = '''name = "replay"
[run]
duration = 2.0
warmup = 0.5
[vm]
instances = 1
streams_per_instance = 8
[[group]]
name = "r"
[group.traffic]
kind = "packets_replay"
active_from = {active_from}
params = {{ trace = "{trace}"{more} }}
{extra}'''


def scenario(tmp_path, trace="traces/sent.csv", more="", active_from=0.0, extra=""):
    """A scenario beside a packets trace of ``SEND`` (two streams, voice and flood sizes)."""
    (tmp_path / "traces").mkdir(exist_ok=True)
    streams = ["0x1", "0x2"] * (SEND.size // 2)
    write_trace(tmp_path / "traces" / "sent.csv", "packets", {
        "stream": streams, "class": ["voice" if s == "0x1" else "flood" for s in streams],
        "seq": np.arange(SEND.size) // 2, "rtp_timestamp": np.zeros(SEND.size, dtype=np.int64),
        "send_s": SEND, "arrival_s": SEND + 0.001,
        "size_bytes": np.where(np.array(streams) == "0x1", 78, 1042)})
    path = tmp_path / "replay.toml"
    path.write_text(SCENARIO.format(trace=trace, more=more, active_from=active_from, extra=extra))
    return path


def test_the_packets_go_out_at_the_traces_send_instants_from_the_traffics_start(tmp_path):
    sim = Simulation(load_scenario(scenario(tmp_path, more=", offset = 0.1", active_from=0.25)), 1)
    sim.run(2.0, 0.5)
    times, departures = sim.replay.sent()
    expected = 0.25 * 2.0 + 0.1 + (SEND - SEND[0])
    expected = expected[expected < 2.0]  # the run ends before the trace does
    assert times.tolist() == pytest.approx(expected.tolist(), abs=1e-12) and times.size == 6
    assert np.all(departures > times)  # none dropped on an idle 1 GbE uplink
    group = sim.replay.summary()["r"]
    assert group["packets"] == int(np.count_nonzero(expected >= 0.5)) and group["loss_fraction"] == 0


def test_a_stream_filter_keeps_that_streams_packets_and_their_size(tmp_path):
    sim = Simulation(load_scenario(scenario(tmp_path, more=', stream = "0x2"')), 1)
    sim.run(2.0, 0.5)
    times, _ = sim.replay.sent()
    assert times.tolist() == pytest.approx((SEND[1::2] - SEND[1])[:4].tolist(), abs=1e-12)
    assert set(sim.replay.ip_bytes.tolist()) == {1024.0}


def test_a_run_with_a_replay_is_deterministic(tmp_path):
    path = scenario(tmp_path)
    first, second = (json.dumps(Simulation(load_scenario(path), 3).run(2.0, 0.5).to_json(), sort_keys=True)
                     for _ in range(2))
    assert first == second and '"replayed"' in first


@pytest.mark.parametrize("changes, key, words", [
    ({"trace": "traces/missing.csv"}, "group.r.traffic.params.trace", "is not a file"),
    ({"more": ', traffic_class = "video"'}, "group.r.traffic.params.traffic_class", "got 'video'"),
    ({"extra": '[[group]]\nname = "rr"\ntraffic = { kind = "tcp_rr" }\n'}, "group.rr.traffic.kind",
     "beside packets_replay"),
])
def test_a_bad_replay_is_refused_when_the_scenario_loads(tmp_path, changes, key, words):
    with pytest.raises(InputError) as info:
        load_scenario(scenario(tmp_path, **changes))
    assert info.value.where == key and words in info.value.expected
    assert "\n" not in str(info.value)


def test_a_trace_of_another_kind_is_refused(tmp_path):
    path = scenario(tmp_path)
    write_trace(tmp_path / "traces" / "sent.csv", "timer", {
        "thread": [0], "tick": [0], "scheduled_s": [0.02], "lateness_s": [1e-5]})
    with pytest.raises(InputError, match="is a timer trace"):
        load_scenario(path)


def test_vsim_run_with_a_missing_trace_exits_2_with_one_line(tmp_path, capsys):
    code, out, err = vsim(capsys, "run", scenario(tmp_path, trace="nowhere.csv"), "--duration", "1")
    assert code == 2 and not out
    assert "group.r.traffic.params.trace" in one_line_error(err)
