"""Tests of the packets trace built from sender logs and a capture, and of its summary."""

import math

import numpy as np
import pytest

from vsim.probe import rtp
from vsim.probe.netstats import arrivals, packet_columns, stream_name, summarize
from vsim.probe.pcap import UdpFrame
from vsim.traces.vsim_trace import parse_trace, trace_text

T0 = 10**18


def test_lost_packets_keep_their_send_time_and_have_no_arrival():
    log = np.array([[0, 0, 0, T0], [0, 1, 160, T0 + 20_000_000], [-1, 0, 0, T0 + 1_000_000]])
    frames = [UdpFrame(T0 + 5_000_000, 74, 1, 40000, rtp.voice_packet(rtp.SSRC_BASE, 0, 0, T0)),
              UdpFrame(T0 + 3_000_000, 1042, 1, 50000, bytes(rtp.flood_packet(bytearray(1000), 0, T0)))]
    seen = arrivals(frames, range(40000, 40001), 50000)
    columns = packet_columns(log, seen, T0, 74, 1042)
    assert columns["stream"] == [stream_name(0), "flood", stream_name(0)]  # ordered by send time
    assert columns["arrival_s"][:2] == [0.005, 0.003]
    assert math.isnan(columns["arrival_s"][2])
    trace = parse_trace(trace_text("packets", columns))  # a well-formed packets trace
    assert len(trace) == 3
    summary = {s.stream: s for s in summarize(columns)}
    assert (summary[stream_name(0)].sent, summary[stream_name(0)].received) == (2, 1)
    assert summary[stream_name(0)].loss_pct == 50.0
    assert summary["[flood]"].delay_mean_ms == pytest.approx(2.0)


def test_frames_to_unknown_ports_are_ignored():
    frames = [UdpFrame(T0, 74, 1, 12345, rtp.voice_packet(rtp.SSRC_BASE, 0, 0, T0))]
    assert arrivals(frames, range(40000, 40002), 50000) == {}


def test_streams_are_named_by_ssrc():
    assert stream_name(3) == f"{rtp.SSRC_BASE + 3:08x}"
    assert stream_name(-1) == "flood"


def test_a_stream_that_got_nothing_through_says_n_a_and_jitter_is_the_value_at_end():
    log = np.array([[0, 0, 0, T0], [0, 1, 160, T0 + 20_000_000], [0, 2, 320, T0 + 40_000_000],
                    [1, 0, 0, T0], [1, 1, 160, T0 + 20_000_000]])
    frames = [UdpFrame(T0 + 1_000_000 + delay, 74, 1, 40000, rtp.voice_packet(rtp.SSRC_BASE, seq, 160 * seq, T0))
              for seq, delay in ((0, 0), (1, 20_000_000 + 2_000_000), (2, 40_000_000))]
    summaries = summarize(packet_columns(log, arrivals(frames, range(40000, 40002), 50000), T0, 74, 1042))
    lines = {s.stream: s.line() for s in summaries}
    assert "nan" not in "\n".join(lines.values())
    assert " ".join(lines[stream_name(1)].split()).endswith("delay mean n/a ms p99 n/a ms jitter at end n/a ms")
    jitter = (2.0 - 2.0 / 16) / 16 + 2.0 / 16  # J after transit differences of 2 ms, then -2 ms
    assert lines[stream_name(0)].endswith(f"jitter at end {jitter:7.3f} ms")
    # the class's mean leaves out the stream without a jitter rather than counting it as 0
    assert lines["[voice]"].endswith(f"mean jitter at end {jitter:7.3f} ms")
