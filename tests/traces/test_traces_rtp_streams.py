"""Tests of per-stream RTP statistics: RFC 3550's recursion, closed forms, loss counting, stream split."""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from rtp_captures import voice_stream, write_capture
from vsim.traces.pcap_rtp import read_rtp
from vsim.traces.rtp_streams import _running_mean, capture_streams

GAIN = 1 / 16


def _stats(tmp_path, packets, name="s.pcap"):
    return capture_streams(read_rtp(write_capture(tmp_path / name, packets)))


def _recursive_jitter_ms(delays_s, period_s=0.02):
    """RFC 3550 6.4.1 literally, one packet at a time (all packets in order, G.711 at 8 kHz)."""
    arrival = [k * period_s + d for k, d in enumerate(delays_s)]
    send = [k * period_s for k in range(len(delays_s))]
    j, series = 0.0, []
    for i in range(1, len(arrival)):
        d = (arrival[i] - arrival[i - 1]) - (send[i] - send[i - 1])
        j += (abs(d) - j) * GAIN
        series.append(j * 1e3)
    return series


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 15_000), min_size=2, max_size=200))
def test_jitter_of_a_generated_capture_is_the_recursive_formula(tmp_path_factory, delays_us):
    delays = [us / 1e6 for us in delays_us]
    series = _recursive_jitter_ms(delays)
    (stream,) = _stats(tmp_path_factory.mktemp("j"), voice_stream(delays, period_s=0.02))
    assert stream.mean_jitter_ms == pytest.approx(np.mean(series), abs=1e-6)
    assert stream.max_jitter_ms == pytest.approx(max(series), abs=1e-6)


def test_constant_delay_gives_zero_jitter(tmp_path):
    (stream,) = _stats(tmp_path, voice_stream([0.0123] * 300))
    assert stream.max_jitter_ms == pytest.approx(0, abs=1e-9)
    assert stream.max_delta_ms == pytest.approx(20.0, abs=1e-9)


def test_alternating_delay_matches_the_closed_form(tmp_path):
    """|D| = a at every packet, so J_n = a (1 - r^n) with r = 15/16, and the mean has a closed form."""
    a_ms, count = 3.0, 400
    (stream,) = _stats(tmp_path, voice_stream([(k % 2) * a_ms / 1e3 for k in range(count)]))
    r, n = 15 / 16, count - 1
    assert stream.max_jitter_ms == pytest.approx(a_ms * (1 - r ** n), abs=1e-9)
    mean = a_ms * (1 - r * (1 - r ** n) / ((1 - r) * n))
    assert stream.mean_jitter_ms == pytest.approx(mean, abs=1e-9)


def test_loss_across_the_sequence_wrap(tmp_path):
    (stream,) = _stats(tmp_path, voice_stream([0.001] * 40, seq0=65520, lost=(10, 16, 17)))
    assert (stream.packets, stream.expected, stream.lost) == (37, 40, 3)


def test_a_duplicate_counts_as_negative_loss(tmp_path):
    packets = voice_stream([0.001] * 10)
    packets.append(dataclasses.replace(packets[4], time_s=packets[4].time_s + 0.005))
    (stream,) = _stats(tmp_path, packets)
    assert (stream.packets, stream.lost) == (11, -1)


def test_dynamic_payload_type_has_no_jitter(tmp_path):
    (stream,) = _stats(tmp_path, voice_stream([0.001, 0.004, 0.002], payload_type=96))
    assert stream.mean_jitter_ms is None and stream.max_jitter_ms is None
    assert stream.payload == "PT96"


def test_streams_split_by_ssrc_and_ports(tmp_path):
    packets = (voice_stream([0.001] * 5, ssrc=1) + voice_stream([0.002] * 5, ssrc=2)
               + voice_stream([0.003] * 5, ssrc=1, ports=(50000, 50002)))
    streams = _stats(tmp_path, packets)
    assert [(s.ssrc, s.src_port, s.packets) for s in streams] == [(1, 40000, 5), (2, 40000, 5), (1, 50000, 5)]


@given(st.lists(st.tuples(st.floats(0, 100), st.booleans()), min_size=1, max_size=60))
def test_running_mean_with_skipped_packets_is_the_sequential_recursion(values):
    """Wireshark's mean skips irregular packets but keeps dividing by the packet index."""
    mean, kept, index = 0.0, [], []
    for n, (value, regular) in enumerate(values, start=1):
        if regular:
            mean = (mean * (n - 1) + value) / n
            kept.append(value)
            index.append(n)
    assert _running_mean(np.array(kept), np.array(index)) == pytest.approx(mean, rel=1e-9, abs=1e-12)
