"""Tests of the metric samples of vsim traces: closed forms on hand-made traces, and the simulation's
own jitter summary reproduced from its exported trace."""

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from vsim.core.errors import InputError
from vsim.build.load import load_scenario
from vsim.engines.simulation import Simulation
from vsim.validate.distributions import mean_interval
from vsim.results.simulation_trace import packets_trace
from vsim.traces.trace_metrics import METRICS, metrics_of_kind, trace_samples
from vsim.traces.vsim_trace import Trace

FIG2 = Path(__file__).resolve().parents[2] / "configs" / "voip-vsphere5" / "fig2.toml"


def packets(delays, streams=1, lost=(), period=0.02, meta=None):
    """A packets trace: each stream sends every ``period``; packet k arrives ``delays[k]`` later."""
    rows = {"stream": [], "class": [], "seq": [], "rtp_timestamp": [], "send_s": [], "arrival_s": [],
            "size_bytes": []}
    for s in range(streams):
        for k, delay in enumerate(delays):
            rows["stream"].append(f"s{s}")
            rows["class"].append("voice")
            rows["seq"].append(k)
            rows["rtp_timestamp"].append(160 * k)
            rows["send_s"].append(k * period)
            rows["arrival_s"].append(math.nan if k in lost else k * period + delay)
            rows["size_bytes"].append(78)
    columns = {name: (values if name in ("stream", "class") else np.asarray(values))
               for name, values in rows.items()}
    return Trace("packets", meta or {}, columns)


def test_every_metric_belongs_to_a_trace_kind():
    assert metrics_of_kind("packets") == ["jitter_ms", "transit_ms", "interarrival_ms", "loss_fraction"]
    assert metrics_of_kind("timer") == ["lateness_ms"]
    assert set(metrics_of_kind("cpu_ticks")) == {"tick_start_lateness_ms", "tick_duration_ms", "overrun_fraction"}
    assert metrics_of_kind("sipp_rtt") == ["response_time_ms"]
    assert sum(len(metrics_of_kind(kind)) for kind in ("packets", "timer", "cpu_ticks", "sipp_rtt")) == len(METRICS)


def test_a_constant_delay_has_no_jitter_and_no_transit_variation():
    samples = trace_samples(packets(np.full(50, 0.005), streams=2), "t")
    assert np.allclose(samples["jitter_ms"].values, 0, atol=1e-12) and samples["jitter_ms"].values.size == 100
    assert np.allclose(samples["transit_ms"].values, 0)
    assert np.allclose(samples["interarrival_ms"].values, 20.0) and samples["interarrival_ms"].values.size == 98
    assert samples["loss_fraction"].values.tolist() == [0.0, 0.0]
    assert samples["loss_fraction"].times is None


def test_alternating_delays_follow_the_rfc3550_recursion_in_closed_form():
    """|D| = a at every packet after the first, so J_n = a (1 - (15/16)^n)."""
    a = 0.002
    delays = np.where(np.arange(200) % 2 == 0, 0.005, 0.005 + a)
    jitter = trace_samples(packets(delays), "t")["jitter_ms"].values
    n = np.arange(200)
    assert np.allclose(jitter, 1e3 * a * (1 - (15 / 16) ** n))
    transit = trace_samples(packets(delays), "t")["transit_ms"].values
    assert np.allclose(np.sort(np.unique(np.round(transit, 9))), [0.0, 2.0])


def test_lost_packets_count_as_loss_and_leave_the_other_metrics():
    samples = trace_samples(packets(np.full(100, 0.004), lost=(10, 11, 50)), "t")
    assert samples["loss_fraction"].values.tolist() == [pytest.approx(0.03)]
    assert samples["jitter_ms"].values.size == 97
    assert samples["interarrival_ms"].values.max() == pytest.approx(60.0)  # two packets missing


def test_the_warmup_in_the_header_drops_early_samples_but_feeds_the_jitter():
    delays = np.where(np.arange(100) % 2 == 0, 0.005, 0.007)
    whole = trace_samples(packets(delays), "t")["jitter_ms"]
    later = trace_samples(packets(delays, meta={"warmup_s": "1.0"}), "t")["jitter_ms"]
    assert later.values.size == 50 and np.array_equal(later.values, whole.values[50:])
    assert later.times.min() >= 1.0


def test_a_bad_warmup_in_the_header_is_an_input_error():
    with pytest.raises(InputError, match="trace.csv: warmup_s: expected '# warmup_s:' a number"):
        trace_samples(packets(np.zeros(3), meta={"warmup_s": "soon"}), "trace.csv")


def test_a_warmup_that_drops_every_row_is_refused_naming_the_key():
    with pytest.raises(InputError, match=r"trace.csv: warmup_s: the trace's warmup_s \(120 s\) drops all "
                                         r"its rows; expected a warm-up before its last send_s \(1.98 s\)"):
        trace_samples(packets(np.full(100, 0.004), meta={"warmup_s": "120"}), "trace.csv")
    with pytest.raises(InputError, match=r"t.csv: warmup_s: the trace's warmup_s \(5 s\) drops all its rows"):
        trace_samples(ticks(np.full(4, 0.001), np.full(4, 0.002), meta={"warmup_s": "5"}), "t.csv")


def test_without_a_warmup_no_sample_is_dropped_whatever_the_clock():
    trace = packets(np.full(50, 0.004))
    for name in ("send_s", "arrival_s"):
        trace.columns[name] = trace.columns[name] - 0.5  # the first 25 packets sent "before 0"
    samples = trace_samples(trace, "t")
    assert samples["jitter_ms"].values.size == 50 and samples["interarrival_ms"].values.size == 49
    assert samples["loss_fraction"].values.tolist() == [0.0]


def test_samples_come_in_time_order_across_streams():
    delays = 0.004 + 0.002 * np.sin(np.arange(100) / 7)
    samples = trace_samples(packets(delays, streams=3), "t")
    for name in ("jitter_ms", "transit_ms", "interarrival_ms"):
        assert np.all(np.diff(samples[name].times) >= 0)
    assert np.array_equal(samples["jitter_ms"].values[:3], np.zeros(3))  # every stream's first packet


def test_identical_streams_give_a_mean_interval_from_stretches_of_time():
    """Batches of one trace are stretches of time: ten identical streams vary over time, not between
    themselves, so the interval must not collapse to a point."""
    delays = 0.004 + 0.002 * np.random.default_rng(5).random(500)
    jitter = trace_samples(packets(delays, streams=10), "t")["jitter_ms"].values
    mean, (low, high) = mean_interval([jitter])
    assert low < mean < high


def test_timer_lateness_in_ms():
    trace = Trace("timer", {}, {"thread": np.zeros(3, dtype=np.int64), "tick": np.arange(3),
                                "scheduled_s": np.array([0.02, 0.04, 0.06]),
                                "lateness_s": np.array([1e-5, 2e-4, 0.0])})
    samples = trace_samples(trace, "t")["lateness_ms"]
    assert samples.values == pytest.approx([0.01, 0.2, 0.0]) and samples.times.tolist() == [0.02, 0.04, 0.06]


def ticks(starts, ends, period=0.02, meta=None, workers=1):
    count = len(starts)
    scheduled = np.tile(np.arange(count) * period, workers)
    return Trace("cpu_ticks", meta or {}, {
        "vm": ["vm0"] * count * workers, "worker": np.repeat(np.arange(workers), count),
        "tick": np.tile(np.arange(count), workers), "scheduled_s": scheduled,
        "start_s": scheduled + np.tile(starts, workers), "end_s": scheduled + np.tile(ends, workers)})


def test_cpu_ticks_give_start_lateness_duration_and_overruns():
    starts = np.array([0.001, 0.002, 0.001, 0.001])
    ends = np.array([0.010, 0.025, 0.012, 0.021])  # ticks 1 and 3 end after the next one is due
    samples = trace_samples(ticks(starts, ends, workers=2), "t")  # in time order: the workers' ticks alternate
    assert samples["tick_start_lateness_ms"].values == pytest.approx(np.repeat(starts, 2) * 1e3)
    assert samples["tick_duration_ms"].values == pytest.approx(np.repeat(ends - starts, 2) * 1e3)
    assert samples["overrun_fraction"].values.tolist() == [0.5, 0.5]


def test_the_period_in_the_header_decides_what_is_an_overrun():
    starts, ends = np.full(4, 0.001), np.array([0.010, 0.025, 0.012, 0.021])
    samples = trace_samples(ticks(starts, ends, meta={"period_s": "0.03"}), "t")
    assert samples["overrun_fraction"].values.tolist() == [0.0]


@pytest.mark.parametrize("text", ["0", "0.0", "-0.02"])
def test_a_period_that_is_not_positive_is_refused_naming_the_key(text):
    with pytest.raises(InputError, match=r"t.csv: period_s: expected '# period_s:' a period in seconds > 0"):
        trace_samples(ticks(np.full(4, 0.001), np.full(4, 0.002), meta={"period_s": text}), "t.csv")


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(0, 0.05), min_size=2, max_size=60), st.floats(0, 10))
def test_a_constant_clock_offset_changes_no_packet_metric(delays, offset):
    base = trace_samples(packets(np.asarray(delays)), "t")
    moved = trace_samples(packets(np.asarray(delays) + offset), "t")
    for metric in ("jitter_ms", "transit_ms", "interarrival_ms"):
        assert np.allclose(base[metric].values, moved[metric].values, atol=1e-6)


def test_the_exported_trace_gives_the_simulations_own_jitter_summary():
    """The same warm-up and RFC 3550 jitter as the summary: one definition on both sides."""
    sim = Simulation(load_scenario(FIG2), 3)
    summary = sim.run(8.0, 2.0)
    jitter = trace_samples(packets_trace(sim, {"warmup_s": 2.0}), "sim")["jitter_ms"].values
    assert jitter.size == summary.jitter.samples
    assert jitter.mean() == pytest.approx(summary.jitter.mean_ms, rel=1e-12)
    assert np.percentile(jitter, 99) == pytest.approx(summary.jitter.p99_ms, rel=1e-12)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(0.0, 3e-3), min_size=3, max_size=40), st.floats(0.0, 2e-3))
def test_with_a_clock_rate_jitter_and_transit_follow_the_rtp_timestamps_not_the_send_times(late, network):
    """A sender that leaves late: its trace records the real send times, the receiver knows only
    the RTP timestamps. The metrics must match a trace whose send times are the nominal ones."""
    nominal = packets([network + x for x in late])
    real = packets([network + x for x in late], meta={"clock_rate_hz": "8000"})
    real.columns["send_s"] = real.columns["send_s"] + np.asarray(late)
    got, want = trace_samples(real, "real"), trace_samples(nominal, "nominal")
    for name in ("jitter_ms", "transit_ms"):
        assert np.allclose(got[name].values, want[name].values, atol=1e-9)
    without_rate = packets([network + x for x in late])
    without_rate.columns["send_s"] = without_rate.columns["send_s"] + np.asarray(late)
    assert np.allclose(trace_samples(without_rate, "t")["transit_ms"].values, 0, atol=1e-12)


def test_rtp_timestamps_are_unwrapped_past_two_to_the_32():
    trace = packets(np.full(6, 0.004), meta={"clock_rate_hz": "8000"})
    trace.columns["rtp_timestamp"] = (trace.columns["rtp_timestamp"] + (1 << 32) - 320) % (1 << 32)
    assert np.allclose(trace_samples(trace, "t")["jitter_ms"].values, 0, atol=1e-9)


def test_a_stream_without_rtp_timestamps_uses_its_send_times():
    trace = packets(np.full(6, 0.004), meta={"clock_rate_hz": "8000"})
    trace.columns["rtp_timestamp"] = np.zeros(6, dtype=np.int64)
    trace.columns["send_s"] = trace.columns["send_s"] + np.linspace(0, 1e-3, 6)
    trace.columns["arrival_s"] = trace.columns["arrival_s"] + np.linspace(0, 1e-3, 6)
    assert np.allclose(trace_samples(trace, "t")["transit_ms"].values, 0, atol=1e-9)


@pytest.mark.parametrize("text", ["0", "-8000", "fast"])
def test_a_bad_clock_rate_is_refused_naming_the_key(text):
    with pytest.raises(InputError, match=r"t: clock_rate_hz: expected '# clock_rate_hz:' a rate in Hz > 0"):
        trace_samples(packets(np.full(3, 0.004), meta={"clock_rate_hz": text}), "t")
