"""Tests of the voice and flood payloads: they round-trip and have the sizes of G.729 over RTP."""

from hypothesis import given, strategies as st

from vsim.probe import rtp
from vsim.probe.limits import MAX_FLOOD_PAYLOAD_BYTES

U64 = st.integers(0, 2**64 - 1)


@given(st.integers(0, 2**32 - 1), st.integers(0, 2**16 - 1), st.integers(0, 2**32 - 1), U64)
def test_a_voice_packet_round_trips(ssrc, seq, timestamp, send_ns):
    packet = rtp.voice_packet(ssrc, seq, timestamp, send_ns)
    assert len(packet) == 12 + rtp.VOICE_PAYLOAD_BYTES == 32
    assert rtp.parse_voice(packet) == (ssrc, seq, timestamp, send_ns)


@given(st.integers(16, 1472), U64, U64)
def test_a_flood_datagram_round_trips_and_keeps_its_size(size, seq, send_ns):
    packet = rtp.flood_packet(bytearray(size), seq, send_ns)
    assert len(packet) == size
    assert rtp.parse_flood(bytes(packet)) == (seq, send_ns)


def test_other_payloads_are_not_voice():
    assert rtp.parse_voice(bytes(32)) is None  # version 0
    assert rtp.parse_voice(b"\x80\x12") is None  # too short
    assert rtp.parse_flood(b"short") is None


def test_wire_sizes_add_ethernet_ip_and_udp_headers():
    assert rtp.voice_frame_bytes() == 14 + 20 + 8 + 12 + 20
    assert rtp.flood_frame_bytes(1000) == 1042


def test_the_largest_flood_datagram_fills_the_veths_mtu():
    assert rtp.flood_frame_bytes(MAX_FLOOD_PAYLOAD_BYTES) == 14 + 1500
