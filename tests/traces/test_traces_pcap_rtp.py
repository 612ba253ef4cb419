"""Tests of the bulk RTP decoder: it finds exactly the RTP packets, with the fields dpkt decodes."""

import socket
import struct

import dpkt
import pytest
from hypothesis import given, settings, strategies as st

from rtp_captures import Packet, frame, write_capture
from vsim.core.errors import InputError
from vsim.traces.capture_file import read_capture_file
from vsim.traces.pcap_rtp import DISSECTED_UDP_PORTS, RtpPackets, decode_rtp, read_rtp

payload_types = st.integers(0, 127).filter(lambda pt: not 72 <= pt <= 76)
rtp_ports = st.integers(1, 65535).filter(lambda port: port not in DISSECTED_UDP_PORTS)
packets = st.builds(
    Packet, time_s=st.integers(0, 10**6).map(lambda us: 1000 + us / 1e6),
    src=st.sampled_from(["10.0.0.1", "192.168.7.9", "2001:db8::1"]), src_port=rtp_ports,
    dst=st.just("10.0.0.2"), dst_port=rtp_ports, ssrc=st.integers(0, 2**32 - 1),
    seq=st.integers(0, 65535), timestamp=st.integers(0, 2**32 - 1), payload_type=payload_types,
    marker=st.booleans(), payload=st.binary(max_size=40),
).filter(lambda packet: not (packet.marker and 64 <= packet.payload_type <= 95))  # RTCP packet types


def _fix_family(packet):
    """Both addresses of one family (the strategy draws the source freely)."""
    if ":" in packet.src:
        return Packet(**{**packet.__dict__, "dst": "2001:db8::2"})
    return packet


@settings(max_examples=40, deadline=None)
@given(st.lists(packets.map(_fix_family), min_size=1, max_size=12),
       st.sampled_from(["ethernet", "vlan", "sll", "raw"]), st.sampled_from(["pcap", "pcapng"]))
def test_decoded_fields_are_the_written_ones(tmp_path_factory, written, link, fmt):
    path = write_capture(tmp_path_factory.mktemp("c") / f"x.{fmt}", written, link=link, fmt=fmt)
    decoded = read_rtp(path)
    ordered = sorted(written, key=lambda p: p.time_s)
    assert len(decoded) == len(ordered)
    for i, packet in enumerate(ordered):
        version = 6 if ":" in packet.src else 4
        assert RtpPackets.address(decoded.src[i], decoded.ip_version[i]) == packet.src
        assert RtpPackets.address(decoded.dst[i], decoded.ip_version[i]) == packet.dst
        assert decoded.ip_version[i] == version
        assert (decoded.src_port[i], decoded.dst_port[i]) == (packet.src_port, packet.dst_port)
        assert (decoded.ssrc[i], decoded.seq[i], decoded.rtp_timestamp[i]) == \
            (packet.ssrc, packet.seq, packet.timestamp)
        assert (decoded.payload_type[i], bool(decoded.marker[i])) == (packet.payload_type, packet.marker)
        assert decoded.payload_bytes[i] == len(packet.payload)
        assert decoded.frame_bytes[i] == len(frame(packet, link))


def _other_traffic():
    """Frames that are not RTP: a DNS-like datagram, RTCP, TCP and ARP."""
    base = Packet(0, "10.0.0.1", 5000, "10.0.0.2", 5002, 1, 1, 1)
    ip = dpkt.ip.IP(src=socket.inet_aton("10.0.0.1"), dst=socket.inet_aton("10.0.0.2"), p=dpkt.ip.IP_PROTO_UDP)
    dns = dpkt.udp.UDP(sport=53, dport=53, data=b"\x12\x34\x01\x00" + bytes(20))
    rtcp = dpkt.udp.UDP(sport=5001, dport=5003, data=b"\x80\xc8\x00\x06" + bytes(24))  # sender report
    frames = []
    for udp in (dns, rtcp):
        udp.ulen = 8 + len(udp.data)
        datagram = dpkt.ip.IP(src=ip.src, dst=ip.dst, p=17, data=udp)
        datagram.len = 20 + len(bytes(udp))
        frames.append(bytes(dpkt.ethernet.Ethernet(type=0x0800, data=datagram)))
    tcp = dpkt.ip.IP(src=ip.src, dst=ip.dst, p=dpkt.ip.IP_PROTO_TCP,
                     data=dpkt.tcp.TCP(sport=5000, dport=5002, data=bytes(frame(base, "raw"))[28:]))
    frames.append(bytes(dpkt.ethernet.Ethernet(type=0x0800, data=tcp)))
    frames.append(bytes(dpkt.ethernet.Ethernet(type=0x0806, data=bytes(28))))
    return frames


def test_only_rtp_is_kept_and_agrees_with_dpkt(tmp_path):
    rtp = [Packet(1000 + k, "10.0.0.1", 5000, "10.0.0.2", 5002, 0xABC, k, 160 * k) for k in range(3)]
    extra = [(1000.5 + k, data) for k, data in enumerate(_other_traffic())]
    path = write_capture(tmp_path / "mix.pcap", rtp, extra=extra)
    decoded = read_rtp(path)
    records = read_capture_file(path)
    assert decoded.number.tolist() == [1, 3, 5]  # frames 2, 4, 6 and 7 are the other traffic
    for i, number in enumerate(decoded.number):
        start = records.start[number - 1]
        eth = dpkt.ethernet.Ethernet(records.data[start:start + records.caplen[number - 1]].tobytes())
        reference = dpkt.rtp.RTP(eth.data.data.data)
        assert (reference.ssrc, reference.seq, reference.ts, reference.pt) == \
            (decoded.ssrc[i], decoded.seq[i], decoded.rtp_timestamp[i], decoded.payload_type[i])


def test_csrc_list_and_padding_are_not_payload(tmp_path):
    packet = Packet(1000, "10.0.0.1", 5000, "10.0.0.2", 5002, 7, 1, 1)
    header = b"\xa2\x00\x00\x01" + b"\x00\x00\x00\x01" + b"\x00\x00\x00\x07" + bytes(8)  # 2 CSRCs, padded
    body = header + b"\x11" * 20 + b"\x00\x00\x03"  # 20 bytes of payload, 3 of padding
    udp = dpkt.udp.UDP(sport=5000, dport=5002, data=body)
    udp.ulen = 8 + len(body)
    ip = dpkt.ip.IP(src=socket.inet_aton("10.0.0.1"), dst=socket.inet_aton("10.0.0.2"), p=17, data=udp)
    ip.len = 20 + len(bytes(udp))
    path = write_capture(tmp_path / "pad.pcap", [], extra=[(packet.time_s, bytes(dpkt.ethernet.Ethernet(
        type=0x0800, data=ip)))])
    decoded = read_rtp(path)
    assert decoded.payload_bytes.tolist() == [20] and decoded.ssrc.tolist() == [7]


def test_unsupported_link_type_is_named(tmp_path):
    path = tmp_path / "ppp.pcap"
    with open(path, "wb") as handle:
        dpkt.pcap.Writer(handle, linktype=dpkt.pcap.DLT_PPP).writepkt(bytes(40), ts=1.0)
    with pytest.raises(InputError) as info:
        read_rtp(path)
    assert info.value.where == "link type" and "got link type 9" in info.value.expected


def test_a_capture_without_rtp_decodes_to_no_packets(tmp_path):
    path = write_capture(tmp_path / "none.pcap", [], extra=[(1.0, data) for data in _other_traffic()])
    assert len(decode_rtp(read_capture_file(path))) == 0


def test_datagrams_to_or_from_a_port_wireshark_dissects_are_not_rtp(tmp_path):
    ports = [(53, 5353), (40000, 123), (1900, 40002), (40000, 40002), (1024, 1026)]
    written = [Packet(1000 + k, "10.0.0.1", src, "10.0.0.2", dst, k, k, 160 * k)
               for k, (src, dst) in enumerate(ports)]
    decoded = read_rtp(write_capture(tmp_path / "ports.pcap", written))
    assert list(zip(decoded.src_port.tolist(), decoded.dst_port.tolist())) == [(40000, 40002), (1024, 1026)]


def test_a_marker_on_payload_types_64_to_95_makes_an_rtcp_packet_type_not_rtp(tmp_path):
    kinds = [(True, 63), (True, 64), (True, 80), (True, 95), (True, 96), (False, 64), (False, 95)]
    written = [Packet(1000 + k, "10.0.0.1", 40000, "10.0.0.2", 40002, k, k, 160 * k, payload_type=pt,
                      marker=marker) for k, (marker, pt) in enumerate(kinds)]
    decoded = read_rtp(write_capture(tmp_path / "rtcp.pcap", written))
    assert list(zip(decoded.marker.tolist(), decoded.payload_type.tolist())) == \
        [(True, 63), (True, 96), (False, 64), (False, 95)]


def _classic_pcap(path, records):
    """A classic pcap of Ethernet ``records`` (frame bytes, bytes kept), written by hand: dpkt
    writes every frame whole."""
    body = b"".join(struct.pack("<IIII", 1000 + k, 0, kept, len(data)) + data[:kept]
                    for k, (data, kept) in enumerate(records))
    path.write_bytes(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1) + body)
    return path


def test_a_zero_padding_count_is_not_rtp_and_a_cut_packet_s_payload_is_its_udp_length(tmp_path):
    zero_padding = bytearray(frame(Packet(0, "10.0.0.1", 40000, "10.0.0.2", 40002, 1, 1, 160,
                                          payload=bytes(20))))
    zero_padding[42] |= 0x20  # padding bit, and the last byte (the count) is 0
    whole = frame(Packet(0, "10.0.0.1", 40000, "10.0.0.2", 40002, 2, 2, 320, payload=bytes(20)))
    cut = frame(Packet(0, "10.0.0.1", 40000, "10.0.0.2", 40002, 3, 3, 480, payload=bytes(20)))
    decoded = read_rtp(_classic_pcap(tmp_path / "p.pcap", [(bytes(zero_padding), len(zero_padding)),
                                                            (whole, len(whole)), (cut, 60)]))
    assert decoded.ssrc.tolist() == [2, 3]
    assert decoded.payload_bytes.tolist() == [20, 20]
