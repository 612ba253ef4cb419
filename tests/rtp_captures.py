"""Captures of RTP streams with known timing, written with dpkt, for the trace-reading tests.

A packet is a ``Packet``; ``voice_stream`` makes a G.711-like stream (20 ms
frames, 160 timestamp units) whose arrival times are the send times plus a
given delay per packet; ``write_capture`` writes packets sorted by arrival
into a pcap or pcapng file over a chosen link layer.
"""

import socket
from dataclasses import dataclass

import dpkt
import numpy as np


@dataclass(frozen=True)
class Packet:
    time_s: float
    src: str
    src_port: int
    dst: str
    dst_port: int
    ssrc: int
    seq: int
    timestamp: int
    payload_type: int = 0
    marker: bool = False
    payload: bytes = bytes(160)


def voice_stream(delays_s, ssrc=0x1234ABCD, src="10.0.0.1", dst="10.0.0.2", ports=(40000, 40002),
                 start_s=1000.0, seq0=1000, ts0=5000, payload_type=0, lost=(), period_s=0.02,
                 step=160):
    """One stream: packet k sent at start + k * period, arriving after ``delays_s[k]``; ``lost`` dropped."""
    packets = []
    for k, delay in enumerate(delays_s):
        if k in lost:
            continue
        packets.append(Packet(start_s + k * period_s + delay, src, ports[0], dst, ports[1], ssrc,
                              (seq0 + k) % 65536, (ts0 + k * step) % 2**32, payload_type))
    return packets


def _ip(packet, udp):
    if ":" in packet.src:
        ip = dpkt.ip6.IP6(src=socket.inet_pton(socket.AF_INET6, packet.src),
                          dst=socket.inet_pton(socket.AF_INET6, packet.dst), nxt=dpkt.ip.IP_PROTO_UDP,
                          hlim=64, plen=len(udp), data=udp)
        return ip, 0x86DD
    ip = dpkt.ip.IP(src=socket.inet_aton(packet.src), dst=socket.inet_aton(packet.dst),
                    p=dpkt.ip.IP_PROTO_UDP, ttl=64, data=udp)
    ip.len = 20 + len(udp)
    return ip, 0x0800


def frame(packet, link="ethernet"):
    """The bytes of ``packet`` over ``link`` (ethernet, vlan, sll, raw)."""
    rtp = dpkt.rtp.RTP(version=2, m=int(packet.marker), pt=packet.payload_type, seq=packet.seq,
                       ts=packet.timestamp, ssrc=packet.ssrc, data=packet.payload)
    udp = dpkt.udp.UDP(sport=packet.src_port, dport=packet.dst_port, data=bytes(rtp))
    udp.ulen = 8 + len(bytes(rtp))
    ip, ether_type = _ip(packet, udp)
    if link == "raw":
        return bytes(ip)
    if link == "sll":
        return bytes(dpkt.sll.SLL(type=0, hrd=1, hlen=6, hdr=b"\x02\x00\x00\x00\x00\x01\x00\x00",
                                  ethtype=ether_type, data=ip))
    eth = dpkt.ethernet.Ethernet(src=b"\x02\x00\x00\x00\x00\x01", dst=b"\x02\x00\x00\x00\x00\x02",
                                 type=ether_type, data=ip)
    if link == "vlan":
        eth.vlan_tags = [dpkt.ethernet.VLANtag8021Q(id=42)]
        eth.type = ether_type
        return bytes(eth)
    return bytes(eth)


LINKTYPES = {"ethernet": dpkt.pcap.DLT_EN10MB, "vlan": dpkt.pcap.DLT_EN10MB,
             "sll": dpkt.pcap.DLT_LINUX_SLL, "raw": dpkt.pcap.DLT_RAW}


def write_capture(path, packets, link="ethernet", fmt="pcap", extra=()):
    """Write ``packets`` (and ``extra`` (time_s, bytes) frames) sorted by time; nanosecond pcap or pcapng."""
    frames = [(p.time_s, frame(p, link)) for p in packets] + list(extra)
    frames.sort(key=lambda item: item[0])
    with open(path, "wb") as handle:
        if fmt == "pcapng":
            writer = dpkt.pcapng.Writer(handle, linktype=LINKTYPES[link])
        else:
            writer = dpkt.pcap.Writer(handle, linktype=LINKTYPES[link], nano=True)
        for time_s, data in frames:
            writer.writepkt(data, ts=round(time_s, 9))
    return path


def scenario_delays(kind, count=500, seed=1):
    """Per-packet one-way delays (s) of a named timing scenario."""
    rng = np.random.default_rng(seed)
    k = np.arange(count)
    if kind == "constant":
        return np.full(count, 0.005)
    if kind == "uniform":
        return 0.005 + rng.uniform(0, 0.004, count)
    if kind == "spikes":
        delays = np.full(count, 0.002)
        delays[rng.choice(count, 10, replace=False)] += 0.015
        return delays
    if kind == "sine":
        return 0.010 + 0.004 * np.sin(2 * np.pi * k / 250)
    raise ValueError(kind)
