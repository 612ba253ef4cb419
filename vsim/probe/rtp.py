"""Packet payloads of the network probe: G.729-like RTP voice frames and flood datagrams.

A voice packet is a 12-byte RTP header (version 2, payload type 18 =
G.729, sequence number, timestamp at 8 kHz, SSRC) and a 20-byte payload
(two 10-byte G.729 frames: 20 ms of speech) whose
first 8 bytes carry the sender's CLOCK_REALTIME at send time in ns, so the
receiver's capture alone gives each packet's send and arrival times. A
flood datagram starts with its sequence number and its send time (8 bytes
each) and is padded to its size, at most ``vsim.probe.limits.MAX_FLOOD_PAYLOAD_BYTES``, so that
it crosses the veth (MTU 1500, as ``ip link add`` makes it) as one frame.
"""

import struct

from vsim.net.header_sizes import ETH_HEADER, IPV4_HEADER, UDP_HEADER

RTP_HEADER = struct.Struct("!BBHII")
SEND_TIME = struct.Struct("!Q")
FLOOD_HEADER = struct.Struct("!QQ")
RTP_VERSION_BYTE = 0x80  # version 2, no padding, no extension, no CSRC
PAYLOAD_TYPE_G729 = 18
CLOCK_HZ = 8000
VOICE_PAYLOAD_BYTES = 20
SSRC_BASE = 0x56530000
ETHERNET_IP_UDP_BYTES = ETH_HEADER + IPV4_HEADER + UDP_HEADER


def voice_packet(ssrc, seq, rtp_timestamp, send_ns):
    """The UDP payload of one voice packet (12 B RTP header + 20 B payload)."""
    header = RTP_HEADER.pack(RTP_VERSION_BYTE, PAYLOAD_TYPE_G729, seq & 0xFFFF, rtp_timestamp & 0xFFFFFFFF,
                             ssrc)
    return header + SEND_TIME.pack(send_ns) + bytes(VOICE_PAYLOAD_BYTES - SEND_TIME.size)


def parse_voice(payload):
    """(ssrc, seq, rtp_timestamp, send_ns) of a voice packet's UDP payload; None if it is not one."""
    if len(payload) < RTP_HEADER.size + SEND_TIME.size:
        return None
    first, payload_type, seq, rtp_timestamp, ssrc = RTP_HEADER.unpack_from(payload)
    if first != RTP_VERSION_BYTE or payload_type & 0x7F != PAYLOAD_TYPE_G729:
        return None
    send_ns, = SEND_TIME.unpack_from(payload, RTP_HEADER.size)
    return ssrc, seq, rtp_timestamp, send_ns


def flood_packet(buffer, seq, send_ns):
    """Write the flood header (seq, send time) at the start of ``buffer`` (the whole datagram)."""
    FLOOD_HEADER.pack_into(buffer, 0, seq, send_ns)
    return buffer


def parse_flood(payload):
    """(seq, send_ns) of a flood datagram; None if it is too short to be one."""
    if len(payload) < FLOOD_HEADER.size:
        return None
    return FLOOD_HEADER.unpack_from(payload)


def voice_frame_bytes():
    """A voice packet's size on the wire as captured (Ethernet + IPv4 + UDP + RTP + payload)."""
    return ETHERNET_IP_UDP_BYTES + RTP_HEADER.size + VOICE_PAYLOAD_BYTES


def flood_frame_bytes(payload_bytes):
    """A flood datagram's size on the wire as captured."""
    return ETHERNET_IP_UDP_BYTES + payload_bytes
