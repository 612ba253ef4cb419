"""Tests of a capture's RTP streams as a packets trace: the jitter agrees with tshark's conventions
(``rtp_streams``), sequence and timestamp wrap-around, loss, and streams without a clock rate."""

import dpkt
import numpy as np
import pytest

from rtp_captures import frame, scenario_delays, voice_stream, write_capture
from vsim.core.errors import InputError, InputNote
from vsim.traces.capture_packets import capture_trace
from vsim.traces.pcap_rtp import read_rtp
from vsim.traces.rtp_streams import capture_streams
from vsim.traces.trace_metrics import trace_samples


def capture(tmp_path, packets, name="call.pcap"):
    return read_rtp(write_capture(tmp_path / name, packets))


@pytest.mark.parametrize("kind", ["constant", "uniform", "spikes", "sine"])
def test_jitter_from_the_trace_is_tshark_jitter(tmp_path, kind):
    """rtp_streams' mean is Wireshark's over packets 1..N-1 (checked against tshark itself)."""
    rtp = capture(tmp_path, voice_stream(scenario_delays(kind, 400)))
    jitter = trace_samples(capture_trace(rtp), "c")["jitter_ms"].values
    stats = capture_streams(rtp)[0]
    assert jitter[1:].mean() == pytest.approx(stats.mean_jitter_ms, abs=1e-9)
    assert jitter.max() == pytest.approx(stats.max_jitter_ms, abs=1e-9)


def test_send_times_come_from_the_rtp_timestamps_across_a_wrap(tmp_path):
    packets = voice_stream(scenario_delays("uniform", 300), seq0=65500, ts0=2**32 - 160 * 100)
    trace = capture_trace(capture(tmp_path, packets))
    assert np.allclose(np.diff(trace.columns["send_s"]), 0.02)
    assert np.array_equal(np.diff(trace.columns["seq"]), np.ones(299))
    arrival = np.array([p.time_s for p in packets]) - packets[0].time_s
    assert np.allclose(trace.columns["arrival_s"], arrival, atol=1e-9)


def test_missing_sequence_numbers_are_loss(tmp_path):
    packets = voice_stream(np.full(200, 0.004), lost=(5, 6, 7, 100))
    samples = trace_samples(capture_trace(capture(tmp_path, packets)), "c")
    assert samples["loss_fraction"].values.tolist() == [pytest.approx(4 / 200)]


def test_streams_are_named_by_ssrc_and_keep_their_frame_sizes(tmp_path):
    packets = (voice_stream(np.full(10, 0.004), ssrc=0xA) + voice_stream(np.full(10, 0.003), ssrc=0xB,
                                                                           ports=(41000, 41002)))
    trace = capture_trace(capture(tmp_path, packets))
    assert sorted(set(trace.columns["stream"])) == ["0x0000000A", "0x0000000B"]
    assert set(trace.columns["class"]) == {"voice"} and trace.meta["payload"] == "g711U"
    assert len(set(trace.columns["size_bytes"].tolist())) == 1


def test_a_shared_ssrc_on_two_paths_gets_the_addresses_in_its_name(tmp_path):
    packets = (voice_stream(np.full(5, 0.004)) + voice_stream(np.full(5, 0.003), ports=(41000, 41002)))
    names = sorted(set(capture_trace(capture(tmp_path, packets)).columns["stream"]))
    assert len(names) == 2 and all(name.startswith("0x1234ABCD 10.0.0.1:") for name in names)


def test_dynamic_payload_types_are_left_out_with_a_note_and_alone_are_an_input_error(tmp_path):
    dynamic = voice_stream(np.full(10, 0.004), payload_type=96, ssrc=0xD)
    with pytest.warns(InputNote, match=r"1 of 2 RTP streams left out: payload type PT96 has no static "
                                       r"clock rate"):
        mixed = capture_trace(capture(tmp_path, dynamic + voice_stream(np.full(10, 0.004))))
    assert set(mixed.columns["stream"]) == {"0x1234ABCD"}
    with pytest.raises(InputError, match="only.pcap: expected RTP streams with a static payload type"):
        capture_trace(capture(tmp_path, dynamic, "only.pcap"))


def test_times_run_from_the_earliest_packet_not_the_first_record(tmp_path):
    """A merged capture whose first record is a late packet of another stream loses nothing."""
    stream = voice_stream(np.full(200, 0.004))
    late = voice_stream(np.full(1, 0.004), ssrc=0x99, ports=(41000, 41002), start_s=stream[0].time_s + 3.9)
    path = tmp_path / "merged.pcap"
    with open(path, "wb") as handle:
        writer = dpkt.pcap.Writer(handle, nano=True)
        for packet in late + stream:
            writer.writepkt(frame(packet), ts=round(packet.time_s, 9))
    trace = capture_trace(read_rtp(path))
    assert trace.columns["arrival_s"].min() == 0.0 and trace.columns["send_s"].min() == 0.0
    assert trace_samples(trace, "c")["jitter_ms"].values.size == 201
