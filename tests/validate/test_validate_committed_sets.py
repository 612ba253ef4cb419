"""``vsim validate`` on every committed measured set in validation/, against its scenario in
configs/validation/, in a short form (3 simulated seconds, one replication): the scenarios load, the
simulation gives the measured trace's kind, and every tolerance the scenario states is checked. The
full-length reports are made by validation/run_reports.sh."""

import json
from pathlib import Path

import numpy as np
import pytest

from cli_run import vsim
from vsim.build.load import load_scenario
from vsim.traces.trace_metrics import metrics_of_kind

ROOT = Path(__file__).resolve().parents[2]
SETS = {  # set: (scenario, measured traces, kind)
    "cpu_cgroups": ("cpu_cgroups", ["cpu_ticks.csv"], "cpu_ticks"),
    "cpu_cgroups_contended": ("cpu_cgroups_contended", ["cpu_ticks.csv"], "cpu_ticks"),
    "cpu_tick": ("cpu_tick", ["cpu_ticks.csv"], "cpu_ticks"),
    "timer_idle": ("timer_python", ["python.csv"], "timer"),
    "timer_alternating": ("timer_cyclictest", ["cyclictest_1.csv", "cyclictest_2.csv", "cyclictest_3.csv"],
                          "timer"),
    "timer_cyclictest_modes": ("timer_cyclictest", ["cyclictest_verbose.csv"], "timer"),
    "timer_threads": ("timer_threads_python", ["python_1.csv", "python_2.csv"], "timer"),
    "timer_load": ("timer_load_cyclictest", ["cyclictest.csv"], "timer"),
    "net_pfifo": ("net_pfifo", ["packets.csv"], "packets"),
    "net_htb": ("net_htb", ["packets.csv"], "packets"),
    "net_bursty": ("net_bursty", ["data/load1.2_wake0.001_r4.voice.csv"], "packets"),
    "sip_uas": ("sip_uas", ["data/rate_25/uac_rtt.csv"], "sipp_rtt"),
}


@pytest.mark.parametrize("name", sorted(SETS))
def test_a_short_validation_of_each_committed_set_checks_its_scenarios_tolerances(capsys, name):
    scenario, traces, kind = SETS[name]
    config = ROOT / "configs" / "validation" / f"{scenario}.toml"
    paths = [str(ROOT / "validation" / name / trace) for trace in traces]
    code, out, err = vsim(capsys, "validate", *paths, "--scenario", config, "--duration", "3",
                          "--replications", "1", "--quiet", "--json", "-")
    assert code in (0, 1), err  # 1: a check outside its tolerance, as some sets are
    result = json.loads(out)
    assert result["kind"] == kind
    assert set(result["metrics"]) == set(metrics_of_kind(kind))
    stated = load_scenario(config).scenario.validate.tolerances
    assert stated and {check["key"] for check in result["checks"]} == set(stated)
    assert code == (1 if result["failed"] else 0)


@pytest.mark.parametrize("name", ["net_pfifo", "net_htb"])
def test_a_sets_capture_validates_as_its_trace_does(capsys, name):
    """The probe's trace records real send times, its capture only RTP timestamps; with the
    trace's clock rate both give the measured voice class the same jitter and transit."""
    config = ROOT / "configs" / "validation" / f"{name}.toml"
    results = []
    for measured in ("packets.csv", "packets.pcap"):
        code, out, err = vsim(capsys, "validate", str(ROOT / "validation" / name / measured), "--scenario",
                              config, "--duration", "1", "--replications", "1", "--quiet", "--json", "-")
        assert code in (0, 1), err
        results.append(json.loads(out)["metrics"])
    for metric in ("jitter_ms", "transit_ms"):
        for statistic in ("p50", "p90", "p99"):
            trace, capture = (result[metric][statistic]["measured"] for result in results)
            assert trace == pytest.approx(capture, abs=1e-6)


def test_the_probes_voice_sender_writes_a_ticks_streams_one_after_another(capsys, tmp_path):
    """vsim probe net's voice sender sends each stream's packet with its own socket.send, so a
    tick's twelve packets leave frame_cost apart, not at one instant: the spread that decides
    what a full queue lets in. With the flood all but silent and 100 us a stream (longer than a
    packet's 31 us on the 20 Mbit/s class), they arrive 100 us apart; at one instant they would
    arrive a packet's time apart."""
    from vsim.traces.vsim_trace import read_trace
    config = ROOT / "configs" / "validation" / "net_bursty.toml"
    trace = tmp_path / "voice.csv"
    code, _, err = vsim(capsys, "run", str(config), "--duration", "1", "--trace", str(trace),
                        "--set", "group.flood.traffic.params.pps=1", "--set", "params.workload.frame_cost=1e-4")
    assert code == 0, err
    columns = read_trace(trace).columns
    send_s, arrival_s = (np.asarray(columns[name], dtype=float) for name in ("send_s", "arrival_s"))
    gaps = np.concatenate([np.diff(np.sort(arrival_s[send_s == t])) for t in np.unique(send_s)])
    assert gaps.size == send_s.size - np.unique(send_s).size > 0
    assert np.median(gaps) == pytest.approx(1e-4, rel=1e-6)


def test_voice_written_stream_by_stream_beside_a_batched_flood_loses_what_was_measured(capsys):
    """validation/net_bursty at 1.2 x the class's rate on the idle machine (round 4): with both
    senders' write patterns from their own logs and the flood's socket blocking by itself, the
    voice loses about what it lost (0.465)."""
    config = ROOT / "configs" / "validation" / "net_bursty.toml"
    trace = ROOT / "validation" / "net_bursty" / "data" / "load1.2_wake0.001_r4.voice.csv"
    code, out, err = vsim(capsys, "validate", str(trace), "--scenario", config, "--replications", "1",
                          "--quiet", "--json", "-")
    assert code in (0, 1), err
    loss = json.loads(out)["metrics"]["loss_fraction"]["mean"]
    assert loss["measured"] == pytest.approx(0.465, abs=0.001)
    assert loss["simulated"] == pytest.approx(loss["measured"], abs=0.1)
