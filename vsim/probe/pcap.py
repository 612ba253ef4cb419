"""A reader for the classic pcap files tcpdump writes: IPv4/UDP frames on Ethernet, with their timestamps.

Only what the network probe needs: microsecond or nanosecond timestamps,
either byte order, link type Ethernet; non-IPv4 or non-UDP frames are skipped.
"""

import struct
from dataclasses import dataclass

from vsim.core.errors import InputError

MAGIC_US = 0xA1B2C3D4
MAGIC_NS = 0xA1B23C4D
LINKTYPE_ETHERNET = 1
ETHERTYPE_IPV4 = 0x0800
IPPROTO_UDP = 17


@dataclass(frozen=True)
class UdpFrame:
    """A captured UDP datagram: capture time (ns since the epoch), frame size on the wire, ports, payload."""

    time_ns: int
    wire_bytes: int
    src_port: int
    dst_port: int
    payload: bytes


def _udp(frame):
    """(src_port, dst_port, payload) of an Ethernet/IPv4/UDP frame, or None."""
    if len(frame) < 14 + 20 + 8 or struct.unpack_from("!H", frame, 12)[0] != ETHERTYPE_IPV4:
        return None
    header_bytes = (frame[14] & 0x0F) * 4
    if frame[14] >> 4 != 4 or frame[14 + 9] != IPPROTO_UDP:
        return None
    udp = 14 + header_bytes
    if len(frame) < udp + 8:
        return None
    src_port, dst_port, length = struct.unpack_from("!HHH", frame, udp)
    return src_port, dst_port, frame[udp + 8:udp + length]


def read_udp_frames(path):
    """The UDP frames of the pcap file at ``path``, in capture order."""
    with open(path, "rb") as handle:
        data = handle.read()
    if len(data) < 24:
        raise InputError(path, None, "expected a pcap file, found fewer than 24 bytes")
    for order in ("<", ">"):
        magic, = struct.unpack_from(order + "I", data)
        if magic in (MAGIC_US, MAGIC_NS):
            break
    else:
        raise InputError(path, None, "expected a pcap file (magic a1b2c3d4 or a1b23c4d)")
    scale = 1 if magic == MAGIC_NS else 1000
    linktype, = struct.unpack_from(order + "I", data, 20)
    if linktype != LINKTYPE_ETHERNET:
        raise InputError(path, None, f"expected Ethernet captures (link type 1), found link type {linktype}")
    record = struct.Struct(order + "IIII")
    frames = []
    offset = 24
    while offset + record.size <= len(data):
        seconds, fraction, captured, wire = record.unpack_from(data, offset)
        offset += record.size
        udp = _udp(data[offset:offset + captured])
        offset += captured
        if udp is not None:
            frames.append(UdpFrame(seconds * 1_000_000_000 + fraction * scale, wire, *udp))
    return frames
