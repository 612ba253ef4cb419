"""Tests of the pcap reader on files written here in either byte order and timestamp resolution."""

import struct

import pytest
from hypothesis import given, strategies as st

from vsim.core.errors import InputError
from vsim.probe.pcap import MAGIC_NS, MAGIC_US, read_udp_frames


def udp_frame(src, dst, payload, protocol=17, ethertype=0x0800):
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + 8 + len(payload), 0, 0, 64, protocol, 0,
                     bytes([192, 0, 2, 1]), bytes([192, 0, 2, 2]))
    udp = struct.pack("!HHHH", src, dst, 8 + len(payload), 0)
    return bytes(12) + struct.pack("!H", ethertype) + ip + udp + payload


def pcap(records, order="<", magic=MAGIC_NS, linktype=1, snaplen=65535):
    out = struct.pack(order + "IHHiIII", magic, 2, 4, 0, 0, snaplen, linktype)
    for seconds, fraction, frame in records:
        captured = frame[:snaplen]
        out += struct.pack(order + "IIII", seconds, fraction, len(captured), len(frame)) + captured
    return out


@given(order=st.sampled_from(["<", ">"]), magic=st.sampled_from([MAGIC_US, MAGIC_NS]),
       packets=st.lists(st.tuples(st.integers(0, 2**31), st.integers(0, 999_999), st.binary(max_size=40)),
                        max_size=5))
def test_frames_come_back_with_their_times_ports_and_payloads(tmp_path_factory, order, magic, packets):
    path = tmp_path_factory.mktemp("pcap") / "c.pcap"
    records = [(s, f, udp_frame(1000 + i, 2000 + i, p)) for i, (s, f, p) in enumerate(packets)]
    path.write_bytes(pcap(records, order, magic))
    frames = read_udp_frames(path)
    scale = 1 if magic == MAGIC_NS else 1000
    assert [f.time_ns for f in frames] == [s * 10**9 + f * scale for s, f, _ in packets]
    assert [f.payload for f in frames] == [p for _, _, p in packets]
    assert [(f.src_port, f.dst_port) for f in frames] == [(1000 + i, 2000 + i) for i in range(len(packets))]
    assert [f.wire_bytes for f in frames] == [42 + len(p) for _, _, p in packets]


def test_truncated_captures_keep_the_wire_size(tmp_path):
    path = tmp_path / "c.pcap"
    path.write_bytes(pcap([(1, 2, udp_frame(1, 2, bytes(1000)))], snaplen=128))
    frame, = read_udp_frames(path)
    assert frame.wire_bytes == 1042 and len(frame.payload) == 128 - 42


def test_non_udp_frames_are_skipped(tmp_path):
    path = tmp_path / "c.pcap"
    path.write_bytes(pcap([(1, 0, udp_frame(1, 2, b"x", protocol=6)),
                           (1, 0, udp_frame(1, 2, b"x", ethertype=0x0806))]))
    assert read_udp_frames(path) == []


@pytest.mark.parametrize("data, message", [(b"abc", "fewer than 24"), (bytes(24), "magic"),
                                           (pcap([], linktype=113), "link type 113")])
def test_bad_files_are_named(tmp_path, data, message):
    path = tmp_path / "c.pcap"
    path.write_bytes(data)
    with pytest.raises(InputError, match=message):
        read_udp_frames(path)
