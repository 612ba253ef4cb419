"""RTP-over-UDP packets of a pcap or pcapng capture, decoded in bulk into NumPy arrays.

Link layers: Ethernet (with up to two 802.1Q/802.1ad tags), Linux cooked
capture v1 and v2, raw IP and BSD loopback, as dpkt decodes them. Network
layer: IPv4 (unfragmented, or the first fragment is not RTP and is skipped)
and IPv6 (UDP directly after the fixed header). A UDP datagram counts as RTP
as ``tshark -o rtp.heuristic_rtp:TRUE`` (Wireshark 4.0) decides:

* neither of its ports is in ``DISSECTED_UDP_PORTS``. Wireshark tries its
  RTP heuristic only after the dissectors registered for the datagram's
  ports, so DNS, DHCP, NTP, syslog, mDNS, SSDP, VXLAN and the like never
  become RTP streams however their payload looks. The table approximates
  Wireshark 4.0's ``udp.port`` dissector table by what it does: it holds the
  ports whose dissector claims an RTP-shaped datagram sent from or to it
  (measured with tshark 4.0, one datagram per port; the test suite measures
  it again where tshark is installed). Ports whose dissector refuses such a
  datagram (SIP 5060, STUN 3478, SNMP 161, QUIC 443: their traffic never
  starts with an RTP version-2 byte) are not in it;
* version 2, a payload type outside 72-76, and a second byte (marker bit and
  payload type) outside 192-223: both are RTCP packet types (RFC 5761), which
  Wireshark hands to its RTCP dissector;
* room for the fixed header, its CSRC list and any header extension in the
  datagram's length (its UDP length: a capture's snap length may cut it);
* with the padding bit set and the datagram captured whole, a padding count
  (its last byte) of at least 1 and at most what follows the header;
* of a datagram the snap length cuts, the CSRC list captured and no padding
  bit: tshark's heuristic takes more of them for RTP, but its RTP dissector
  stops short of the end of those (reading past the capture), so its
  ``-z rtp,streams`` never counts them. The header extension may be cut.

The headers are decoded for all packets at once by indexing one byte array
(see ``vsim.traces.capture_file``): decoding each packet as dpkt objects
costs some 20 microseconds a packet, too slow for captures of millions of
packets. The test suite checks that both ways agree.
"""

import ipaddress
from dataclasses import dataclass

import numpy as np

from vsim.core.errors import InputError
from vsim.traces.capture_file import read_capture_file

LINK_NULL, LINK_ETHERNET, LINK_RAW, LINK_RAW_OPENBSD = 0, 1, 101, 12
LINK_SLL, LINK_SLL2, LINK_IPV4, LINK_IPV6 = 113, 276, 228, 229
LINK_TYPES = {LINK_NULL: "BSD loopback", LINK_ETHERNET: "Ethernet", LINK_RAW: "raw IP",
              LINK_RAW_OPENBSD: "raw IP", LINK_SLL: "Linux cooked", LINK_SLL2: "Linux cooked v2",
              LINK_IPV4: "raw IPv4", LINK_IPV6: "raw IPv6"}
_VLAN_TAGS = (0x8100, 0x88A8, 0x9100)
_ETHER_IPV4, _ETHER_IPV6 = 0x0800, 0x86DD
_UDP = 17
_NOT_IP = 0
_RTCP_TYPES = (192, 223)  # a second byte in this range is an RTCP packet type, not marker + payload type
DISSECTED_UDP_PORTS = (
    7, 13, 19, 37, 49, 53, 67, 68, 69, 111, 123, 137, 138, 173, 213, 269, 319, 320, 389, 427, 434, 464,
    496, 513, 514, 520, 521, 524, 525, 546, 547, 664, 701, 853, 854, 910, 921, 925, 1001, 1113, 1153,
    1194, 1293, 1628, 1629, 1718, 1719, 1745, 1755, 1900, 1985, 2029, 2099, 2157, 2221, 2222, 2246,
    2268, 2269, 2313, 2345, 2887, 2944, 2945, 2948, 2949, 3000, 3130, 3250, 3343, 3357, 3389, 3452,
    3455, 3544, 3567, 3671, 3784, 3785, 3804, 3863, 4305, 4306, 4307, 4341, 4342, 4500, 4551, 4555,
    4569, 4729, 4754, 4784, 4789, 4790, 4791, 4991, 5031, 5072, 5094, 5246, 5247, 5353, 5355, 5404,
    5405, 5436, 5567, 5678, 5683, 5684, 5868, 6073, 6081, 6118, 6160, 6635, 6784, 6970, 7074, 7075,
    7255, 7275, 7784, 8200, 8600, 8755, 8767, 8805, 8848, 9200, 9201, 9202, 9203, 9214, 9600, 9875,
    9877, 9899, 9901, 9956, 10253, 11211, 11273, 12000, 12001, 12002, 12003, 12004, 12220, 12222, 12223,
    13400, 17220, 17500, 17755, 17756, 19132, 19948, 19999, 23272, 24576, 24577, 25826, 26000, 27500,
    27910, 27950, 27951, 27952, 27953, 27960, 27961, 27962, 27963, 32000, 32512, 34962, 34980, 37008,
    41170, 44818, 47000, 54328, 60001,
)


def _port_table(ports):
    """A lookup array over every UDP port: true for ``ports``."""
    table = np.zeros(1 << 16, dtype=bool)
    table[list(ports)] = True
    return table


_DISSECTED = _port_table(DISSECTED_UDP_PORTS)


@dataclass(frozen=True)
class RtpPackets:
    """The RTP packets of a capture, in capture order, one array element per packet.

    ``number`` is the packet's frame number in the file (from 1); ``time_ns``
    its capture time (ns since the epoch); ``src``/``dst`` the IP addresses as
    16 bytes (IPv4 as IPv4-mapped IPv6) with ``ip_version`` 4 or 6; then the
    UDP ports, and the RTP header fields. ``frame_bytes`` is the frame's
    length on the wire, ``payload_bytes`` the RTP payload without padding (by the
    UDP length, so a packet the snap length cut counts all of it; its padding,
    not captured, counts as payload).
    ``first_time_ns`` is the capture time of the file's first packet (RTP or
    not), the origin of relative times as Wireshark shows them.
    """

    path: str
    first_time_ns: int
    number: np.ndarray
    time_ns: np.ndarray
    ip_version: np.ndarray
    src: np.ndarray
    dst: np.ndarray
    src_port: np.ndarray
    dst_port: np.ndarray
    ssrc: np.ndarray
    seq: np.ndarray
    rtp_timestamp: np.ndarray
    payload_type: np.ndarray
    marker: np.ndarray
    frame_bytes: np.ndarray
    payload_bytes: np.ndarray

    def __len__(self):
        return self.number.size

    def take(self, index):
        """The packets selected by ``index`` (a boolean mask or integer indices)."""
        fields = {name: getattr(self, name)[index] for name in _ARRAYS}
        return RtpPackets(self.path, self.first_time_ns, **fields)

    @staticmethod
    def address(raw, version):
        """An address as text, from its 16 bytes and IP version."""
        address = ipaddress.IPv6Address(bytes(raw))
        return str(address.ipv4_mapped) if version == 4 else str(address)


_ARRAYS = ("number", "time_ns", "ip_version", "src", "dst", "src_port", "dst_port", "ssrc", "seq",
           "rtp_timestamp", "payload_type", "marker", "frame_bytes", "payload_bytes")


class _Bytes:
    """Big-endian reads of fields at per-packet positions, false where the packet is too short."""

    def __init__(self, records):
        self.data = records.data
        self.end = records.start + records.caplen

    def fits(self, position, size):
        return position + size <= self.end

    def u8(self, position, valid):
        out = np.zeros(position.size, dtype=np.int64)
        out[valid] = self.data[position[valid]]
        return out

    def u16(self, position, valid):
        return (self.u8(position, valid) << 8) | self.u8(position + 1, valid)

    def u32(self, position, valid):
        return (self.u16(position, valid) << 16) | self.u16(position + 2, valid)

    def block(self, position, valid, size):
        """``size`` bytes from each valid position, as an (n, size) uint8 array."""
        out = np.zeros((position.size, size), dtype=np.uint8)
        rows = np.flatnonzero(valid)
        out[rows] = self.data[position[rows, None] + np.arange(size)]
        return out


def _network_layer(records, read):
    """(position of the IP header, ethertype-like protocol number) per packet."""
    start, link = records.start, records.linktype
    position = np.full(start.size, -1, dtype=np.int64)
    protocol = np.full(start.size, _NOT_IP, dtype=np.int64)

    ethernet = (link == LINK_ETHERNET) & read.fits(start, 14)
    offset = start + 12
    ether_type = read.u16(offset, ethernet)
    for _ in range(2):  # 802.1Q / 802.1ad tags: 4 bytes each
        tagged = ethernet & np.isin(ether_type, _VLAN_TAGS) & read.fits(offset + 4, 2)
        offset = np.where(tagged, offset + 4, offset)
        ether_type = np.where(tagged, read.u16(offset, tagged), ether_type)
    position = np.where(ethernet, offset + 2, position)
    protocol = np.where(ethernet, ether_type, protocol)

    sll = (link == LINK_SLL) & read.fits(start, 16)
    position = np.where(sll, start + 16, position)
    protocol = np.where(sll, read.u16(start + 14, sll), protocol)

    sll2 = (link == LINK_SLL2) & read.fits(start, 20)
    position = np.where(sll2, start + 20, position)
    protocol = np.where(sll2, read.u16(start, sll2), protocol)

    loopback = (link == LINK_NULL) & read.fits(start, 4)
    family_le = read.u8(start, loopback) | (read.u8(start + 1, loopback) << 8)
    family_be = read.u8(start + 3, loopback) | (read.u8(start + 2, loopback) << 8)
    family = np.where(family_le != 0, family_le, family_be)
    position = np.where(loopback, start + 4, position)
    protocol = np.where(loopback & (family == 2), _ETHER_IPV4,
                        np.where(loopback & np.isin(family, (10, 23, 24, 28, 30)), _ETHER_IPV6, protocol))

    raw = np.isin(link, (LINK_RAW, LINK_RAW_OPENBSD, LINK_IPV4, LINK_IPV6)) & read.fits(start, 1)
    version = read.u8(start, raw) >> 4
    position = np.where(raw, start, position)
    protocol = np.where(raw & (version == 4), _ETHER_IPV4,
                        np.where(raw & (version == 6), _ETHER_IPV6, protocol))
    return position, protocol


def decode_rtp(records):
    """The RTP packets among ``records`` (a ``CaptureRecords``), as an ``RtpPackets``."""
    read = _Bytes(records)
    ip, protocol = _network_layer(records, read)
    n = ip.size

    v4 = (protocol == _ETHER_IPV4) & read.fits(ip, 20)
    first = read.u8(ip, v4)
    header_len = (first & 0x0F) * 4
    fragment = read.u16(ip + 6, v4)
    v4 &= ((first >> 4) == 4) & (header_len >= 20) & (read.u8(ip + 9, v4) == _UDP) & ((fragment & 0x3FFF) == 0)

    v6 = (protocol == _ETHER_IPV6) & read.fits(ip, 40)
    v6 &= ((read.u8(ip, v6) >> 4) == 6) & (read.u8(ip + 6, v6) == _UDP)

    udp = np.where(v4, ip + header_len, np.where(v6, ip + 40, 0))
    is_udp = (v4 | v6) & read.fits(udp, 8)
    rtp = udp + 8
    src_port, dst_port = read.u16(udp, is_udp), read.u16(udp + 2, is_udp)
    offered = is_udp & ~(_DISSECTED[src_port] | _DISSECTED[dst_port])  # left to the RTP heuristic
    udp_len = read.u16(udp + 4, is_udp)
    datagram_end = udp + udp_len  # as the datagram was sent, captured in full or not
    whole = datagram_end <= read.end
    byte0 = read.u8(rtp, offered & read.fits(rtp, 12))
    candidate = offered & read.fits(rtp, 12) & ((byte0 >> 6) == 2) & (udp_len >= 8 + 12)
    byte1 = read.u8(rtp + 1, candidate)
    payload_type = byte1 & 0x7F
    candidate &= ~((payload_type >= 72) & (payload_type <= 76))
    candidate &= ~((byte1 >= _RTCP_TYPES[0]) & (byte1 <= _RTCP_TYPES[1]))
    header = 12 + 4 * (byte0 & 0x0F)
    extended = candidate & ((byte0 & 0x10) != 0) & read.fits(rtp + header, 4)
    header = header + np.where(extended, 4 + 4 * read.u16(rtp + header + 2, extended), 0)
    candidate &= (((byte0 & 0x10) == 0) | extended) & (rtp + header <= datagram_end)
    # the padding count (the datagram's last byte) is read only where the capture holds it
    padded = candidate & ((byte0 & 0x20) != 0) & whole
    padding = read.u8(datagram_end - 1, padded & (datagram_end - 1 >= rtp + header))
    candidate &= ~padded | (padding > 0)
    payload = datagram_end - rtp - header - padding
    candidate &= payload >= 0
    # tshark's streams count a packet only if its dissector read it to the end: the CSRC list
    # captured, and with the padding bit the datagram whole (for its padding count)
    candidate &= whole | (((byte0 & 0x20) == 0) & read.fits(rtp, 12 + 4 * (byte0 & 0x0F)))

    keep = np.flatnonzero(candidate)
    unknown = sorted(set(np.unique(records.linktype).tolist()) - set(LINK_TYPES))
    if keep.size == 0 and unknown and not np.isin(records.linktype, list(LINK_TYPES)).any():
        raise InputError(records.path, "link type", f"expected one of {', '.join(sorted(set(LINK_TYPES.values())))}, "
                                                    f"got link type {unknown[0]}")
    address = np.zeros((n, 16), dtype=np.uint8)
    src, dst = address.copy(), address.copy()
    mapped = np.array([0] * 10 + [0xFF, 0xFF], dtype=np.uint8)
    v4_keep = keep[v4[keep]]
    v6_keep = keep[v6[keep]]
    src[v4_keep, :12] = mapped
    dst[v4_keep, :12] = mapped
    src[v4_keep, 12:] = read.block(ip + 12, v4, 4)[v4_keep]
    dst[v4_keep, 12:] = read.block(ip + 16, v4, 4)[v4_keep]
    src[v6_keep] = read.block(ip + 8, v6, 16)[v6_keep]
    dst[v6_keep] = read.block(ip + 24, v6, 16)[v6_keep]
    return RtpPackets(
        path=records.path,
        first_time_ns=int(records.time_ns[0]) if n else 0,
        number=keep + 1,
        time_ns=records.time_ns[keep],
        ip_version=np.where(v4[keep], 4, 6).astype(np.int8),
        src=src[keep], dst=dst[keep],
        src_port=src_port[keep].astype(np.uint16),
        dst_port=dst_port[keep].astype(np.uint16),
        ssrc=read.u32(rtp + 8, candidate)[keep].astype(np.uint32),
        seq=read.u16(rtp + 2, candidate)[keep].astype(np.uint16),
        rtp_timestamp=read.u32(rtp + 4, candidate)[keep].astype(np.uint32),
        payload_type=payload_type[keep].astype(np.uint8),
        marker=(byte1[keep] & 0x80) != 0,
        frame_bytes=records.origlen[keep],
        payload_bytes=payload[keep],
    )


def read_rtp(path):
    """The RTP packets of the pcap or pcapng file ``path``; ``InputError`` on a bad file."""
    return decode_rtp(read_capture_file(path))
