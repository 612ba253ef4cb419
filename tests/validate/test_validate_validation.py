"""Tests of the validation run as a library: captures as measured traces, several traces, what cannot
be compared, and where tolerances come from."""

from pathlib import Path

import numpy as np
import pytest

from rtp_captures import voice_stream, write_capture
from esxtop_samples import esxtop_text
from vsim.core.errors import InputError
from vsim.validate.validation import Options, measured_trace, run_validation, stated_tolerances
from vsim.traces.vsim_trace import write_trace

FIG2 = str(Path(__file__).resolve().parents[2] / "configs" / "voip-vsphere5" / "fig2.toml")


def short(traces, **kwargs):
    return Options(tuple(str(trace) for trace in traces), FIG2, duration=6.0, replications=2, **kwargs)


def test_a_capture_is_compared_like_a_trace(tmp_path):
    rng = np.random.default_rng(1)
    streams = [voice_stream(0.002 + rng.uniform(0, 0.001, 300), ssrc=0x100 + k, ports=(40000 + 2 * k, 50000))
               for k in range(4)]
    pcap = write_capture(tmp_path / "call.pcap", [packet for stream in streams for packet in stream])
    result = run_validation(short([pcap], tolerances=("jitter_ms.p99=2",)))
    doc = result.doc
    assert doc["kind"] == "packets" and doc["verdict"] == "pass"
    assert doc["metrics"]["jitter_ms"]["samples"]["measured"] == 1200
    assert doc["metrics"]["loss_fraction"]["samples"] == {"measured": 4, "simulated": 8}
    assert len(result.measured["jitter_ms"]) == 1 and len(result.simulated["jitter_ms"]) == 2


def test_several_measured_traces_count_as_independent_runs(tmp_path):
    paths = []
    for seed in (1, 2):
        delays = 0.002 + np.random.default_rng(seed).uniform(0, 0.002 * seed, 200)
        paths.append(write_capture(tmp_path / f"run{seed}.pcap", voice_stream(delays)))
    doc = run_validation(short(paths)).doc
    jitter = doc["metrics"]["jitter_ms"]
    assert jitter["samples"]["measured"] == 400
    low, high = jitter["mean"]["measured_interval"]
    assert low < jitter["mean"]["measured"] < high


def test_other_trace_formats_are_refused_by_name(tmp_path):
    esxtop = tmp_path / "host.csv"
    esxtop.write_text(esxtop_text())
    with pytest.raises(InputError, match="host.csv: expected a capture, a SIPp -trace_rtt file or a vsim "
                                         "trace to compare with a simulation, found esxtop batch-mode CSV"):
        measured_trace(esxtop)


def test_a_steal_trace_is_refused_as_something_to_compare(tmp_path):
    steal = tmp_path / "steal.csv"
    write_trace(steal, "steal", {"cpu": [0], "start_s": [0.0], "end_s": [0.05], "steal_s": [0.0]})
    with pytest.raises(InputError, match="steal.csv: kind: expected a trace to compare .* host.steal_trace"):
        measured_trace(steal)


def test_a_capture_without_rtp_is_refused(tmp_path):
    empty = write_capture(tmp_path / "empty.pcap", [])
    with pytest.raises(InputError, match="empty.pcap: expected RTP packets"):
        measured_trace(empty)


def test_the_command_line_replaces_a_scenarios_tolerance_of_the_same_name():
    stated = stated_tolerances({"jitter_ms.ks": 0.1, "jitter_ms.p99": 0.2}, "s.toml",
                               ("jitter_ms.ks=0.3", "transit_ms.wasserstein=0.05"))
    assert stated == {"jitter_ms.ks": (0.3, ("--tolerance", "jitter_ms.ks=0.3")),
                      "jitter_ms.p99": (0.2, ("s.toml", 'validate.tolerances."jitter_ms.p99"')),
                      "transit_ms.wasserstein": (0.05, ("--tolerance", "transit_ms.wasserstein=0.05"))}


def test_a_tolerance_of_a_metric_without_samples_is_an_input_error(tmp_path):
    single = write_capture(tmp_path / "one.pcap", voice_stream([0.002]))  # no gaps between arrivals
    with pytest.raises(InputError, match="--tolerance: interarrival_ms.p50=1: expected samples of "
                                         "interarrival_ms on both sides, found no measured samples"):
        run_validation(short([single], tolerances=("interarrival_ms.p50=1",)))


def test_a_trace_without_any_samples_is_refused_before_anything_is_simulated(tmp_path, monkeypatch):
    empty = tmp_path / "empty.csv"
    empty.write_text("# vsim-trace 1\n# kind: timer\nthread,tick,scheduled_s,lateness_s\n")
    monkeypatch.setattr("vsim.validate.validation.simulated_traces", lambda *a: pytest.fail("simulated"))
    with pytest.raises(InputError, match="empty.csv: expected measured samples of at least one of "
                                         "lateness_ms, found none"):
        run_validation(short([empty]))


def packets_with_flood(path):
    """A vsim packets trace of one voice stream (100 packets) and one flood stream (50)."""
    from vsim.traces.vsim_trace import write_trace
    send = np.concatenate([0.02 * np.arange(100), 0.001 + 0.04 * np.arange(50)])
    write_trace(path, "packets", {
        "stream": ["0x00000001"] * 100 + ["flood"] * 50, "class": ["voice"] * 100 + ["flood"] * 50,
        "seq": np.concatenate([np.arange(100), np.arange(50)]), "rtp_timestamp": np.zeros(150, dtype=np.int64),
        "send_s": send, "arrival_s": send + 0.001, "size_bytes": np.full(150, 78)}, {})
    return path


def test_a_traffic_class_keeps_only_its_packets_on_both_sides(tmp_path):
    path = packets_with_flood(tmp_path / "mixed.csv")
    voice = run_validation(short([path], overrides=('validate.traffic_class="voice"',))).doc
    assert voice["metrics"]["loss_fraction"]["samples"]["measured"] == 1
    assert voice["metrics"]["transit_ms"]["samples"]["measured"] == 100
    assert voice["traffic_class"] == "voice"


def test_packets_of_several_classes_without_a_chosen_one_are_refused(tmp_path):
    """A flood's packets were pooled with the voice and compared with a voice-only simulation."""
    path = packets_with_flood(tmp_path / "mixed.csv")
    with pytest.raises(InputError) as error:
        run_validation(short([path]))
    assert error.value.where == "class"
    assert error.value.expected == ("expected packets of one traffic class, found flood, voice; choose the "
                                    "class to compare with validate.traffic_class "
                                    "(--set 'validate.traffic_class=\"voice\"')")


def test_a_traffic_class_the_measured_trace_lacks_is_an_input_error(tmp_path):
    path = packets_with_flood(tmp_path / "mixed.csv")
    with pytest.raises(InputError) as error:
        run_validation(short([path], overrides=('validate.traffic_class="video"',)))
    assert error.value.where == "class" and "found flood, voice" in error.value.expected
