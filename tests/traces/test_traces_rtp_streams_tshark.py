"""vsim's per-stream RTP statistics against tshark's ``-z rtp,streams`` on captures of known timing,
and which UDP datagrams both take for RTP (ports other dissectors claim, RTCP packet types).

tshark is an independent implementation of the same RFC 3550 estimate (and
of the loss count); the test is skipped where it is not installed.
"""

import dataclasses
import shutil
import struct
import subprocess

import dpkt
import numpy as np
import pytest

from rtp_captures import Packet, frame, scenario_delays, voice_stream, write_capture
from vsim.core.errors import InputNote
from vsim.traces.capture_file import read_capture_file
from vsim.traces.pcap_rtp import DISSECTED_UDP_PORTS, read_rtp
from vsim.traces.rtp_streams import capture_streams
from vsim.traces.tshark_streams import parse_tshark_streams

TSHARK = shutil.which("tshark")
pytestmark = pytest.mark.skipif(TSHARK is None, reason="tshark is not installed (apt-get install tshark)")
TOLERANCE_MS = 0.001


def _tshark(path, cut_short=False):
    """tshark's streams of ``path``; one ``cut_short`` in its last packet makes tshark exit 2
    after reading the packets before it, with a message saying so."""
    out = subprocess.run([TSHARK, "-n", "-q", "-r", str(path), "-o", "rtp.heuristic_rtp:TRUE",
                          "-z", "rtp,streams"], capture_output=True, text=True, check=not cut_short, timeout=120)
    if cut_short:
        assert out.returncode == 2 and "cut short in the middle of a packet" in out.stderr
    return {stream.key: stream for stream in parse_tshark_streams(out.stdout, str(path))}


def _reordered(packets, pairs):
    """Swap the arrival times of the given packet index pairs (so they arrive out of order)."""
    packets = list(packets)
    for a, b in pairs:
        packets[a], packets[b] = (dataclasses.replace(packets[a], time_s=packets[b].time_s),
                                  dataclasses.replace(packets[b], time_s=packets[a].time_s))
    return packets


def _scenario(name):
    if name in ("constant", "uniform", "spikes", "sine"):
        return voice_stream(scenario_delays(name)) + voice_stream(
            scenario_delays(name, seed=7), ssrc=0x55, ports=(40020, 40022), payload_type=8)
    if name == "loss":
        return voice_stream(scenario_delays("uniform", seed=3), lost=(0, 1, 50, 51, 52, 300, 499))
    if name == "wrap":  # sequence numbers and RTP timestamps wrap around, with losses across the wrap
        return voice_stream(scenario_delays("uniform", seed=4), seq0=65400, ts0=2**32 - 8000,
                            lost=(99, 100, 101))
    if name == "reorder":  # late packets (RTP timestamp behind) and a duplicate
        packets = _reordered(voice_stream(scenario_delays("uniform", seed=5)), [(10, 11), (200, 203)])
        return packets + [dataclasses.replace(packets[40], time_s=packets[40].time_s + 0.0031)]
    if name == "late_first":  # the first packet captured is not the first sent: the second is 'behind'
        return _reordered(voice_stream(scenario_delays("uniform", seed=9)), [(0, 1), (30, 31)])
    if name == "marker_cn":  # talk spurts: marker bits and comfort noise are not 'regular' packets
        packets = voice_stream(scenario_delays("sine", seed=6), payload_type=18)
        packets[100] = dataclasses.replace(packets[100], marker=True)
        packets[250] = dataclasses.replace(packets[250], payload_type=13, payload=bytes(2))
        return packets
    if name == "ipv6":
        return voice_stream(scenario_delays("spikes", seed=8), src="2001:db8::1", dst="2001:db8::2")
    raise ValueError(name)


@pytest.mark.parametrize("name, link, fmt", [
    ("constant", "ethernet", "pcap"), ("uniform", "ethernet", "pcap"), ("spikes", "vlan", "pcap"),
    ("sine", "sll", "pcapng"), ("loss", "ethernet", "pcapng"), ("wrap", "raw", "pcap"),
    ("reorder", "ethernet", "pcap"), ("late_first", "ethernet", "pcap"), ("marker_cn", "ethernet", "pcap"), ("ipv6", "ethernet", "pcapng"),
])
def test_streams_match_tshark(tmp_path, name, link, fmt):
    path = write_capture(tmp_path / f"{name}.{fmt}", _scenario(name), link=link, fmt=fmt)
    reference = _tshark(path)
    ours = capture_streams(read_rtp(path))
    assert len(ours) == len(reference) > 0
    for stream in ours:
        theirs = reference[(stream.src, stream.src_port, stream.dst, stream.dst_port, stream.ssrc)]
        assert stream.packets == theirs.packets
        assert stream.lost == theirs.lost
        assert np.isclose(stream.mean_jitter_ms, theirs.values["Mean Jitter(ms)"], rtol=0, atol=TOLERANCE_MS)
        assert np.isclose(stream.max_jitter_ms, theirs.values["Max Jitter(ms)"], rtol=0, atol=TOLERANCE_MS)
        assert np.isclose(stream.max_delta_ms, theirs.values["Max Delta(ms)"], rtol=0, atol=TOLERANCE_MS)


@pytest.mark.parametrize("fmt", ["pcap", "pcapng"])
def test_a_capture_cut_short_in_its_last_packet_gives_tshark_s_streams(tmp_path, fmt):
    path = write_capture(tmp_path / f"cut.{fmt}", _scenario("uniform"), fmt=fmt)
    path.write_bytes(path.read_bytes()[:-30])
    reference = _tshark(path, cut_short=True)
    with pytest.warns(InputNote):
        ours = capture_streams(read_rtp(path))
    assert sorted((s.ssrc, s.packets, s.lost) for s in ours) == sorted(
        (key[-1], theirs.packets, theirs.lost) for key, theirs in reference.items())
    for stream in ours:
        theirs = reference[(stream.src, stream.src_port, stream.dst, stream.dst_port, stream.ssrc)]
        assert np.isclose(stream.max_jitter_ms, theirs.values["Max Jitter(ms)"], rtol=0, atol=TOLERANCE_MS)


def test_a_pcapng_of_two_sections_with_other_link_types_gives_tshark_s_streams(tmp_path):
    first = write_capture(tmp_path / "a.pcapng", _scenario("uniform"), fmt="pcapng")
    second = write_capture(tmp_path / "b.pcapng", voice_stream(scenario_delays("spikes", seed=3), ssrc=0x77),
                           link="raw", fmt="pcapng")
    path = tmp_path / "two.pcapng"
    path.write_bytes(first.read_bytes() + second.read_bytes())
    reference = _tshark(path)
    ours = capture_streams(read_rtp(path))
    assert sorted((s.ssrc, s.packets, s.lost) for s in ours) == sorted(
        (key[-1], theirs.packets, theirs.lost) for key, theirs in reference.items())
    assert len(ours) == 3


def test_the_scenarios_are_not_trivial(tmp_path):
    """Guards the comparison above: the scenarios do produce jitter, loss and wrap-around."""
    stats = {name: capture_streams(read_rtp(write_capture(tmp_path / f"{name}.pcap", _scenario(name))))[0]
             for name in ("constant", "spikes", "loss", "wrap")}
    assert stats["constant"].max_jitter_ms == pytest.approx(0.0, abs=1e-6)
    assert stats["spikes"].max_jitter_ms > 0.5
    assert stats["loss"].lost == 4  # two losses come before the first packet, one after the last
    assert stats["wrap"].lost == 3


def _port_sweep(path):
    """One RTP datagram from every UDP port to port 40000 (SSRC = the port), then one from port 40000
    to every port (SSRC = 65536 + the port), each from its own address, so that a conversation one
    dissector sets up does not catch the datagrams after it."""
    template = bytearray(frame(Packet(0, "10.0.0.1", 40000, "10.0.0.2", 40000, 0, 1, 100)))
    source, ports, checksum, ssrc = slice(26, 30), slice(34, 38), slice(40, 42), slice(50, 54)
    template[checksum] = bytes(2)  # no UDP checksum, so the patched ports need none
    with open(path, "wb") as handle:
        writer = dpkt.pcap.Writer(handle, linktype=dpkt.pcap.DLT_EN10MB)
        for k in range(2 << 16):
            port = k & 0xFFFF
            data = bytearray(template)
            data[source] = struct.pack("!I", 0x0A000000 + k)
            data[ports] = struct.pack("!HH", *((port, 40000) if k < 1 << 16 else (40000, port)))
            data[ssrc] = struct.pack("!I", k)
            writer.writepkt(bytes(data), ts=1000 + k * 1e-4)
    return path


def test_the_ports_left_to_the_rtp_heuristic_are_wiresharks(tmp_path):
    path = _port_sweep(tmp_path / "ports.pcap")
    theirs = {key[-1] for key in _tshark(path)}
    ours = set(read_rtp(path).ssrc.tolist())
    assert ours <= theirs
    kept_both_ways = {ssrc for ssrc in theirs if ssrc < 1 << 16 and ssrc + (1 << 16) in theirs}
    assert sorted(set(range(1 << 16)) - kept_both_ways) == list(DISSECTED_UDP_PORTS)


def test_the_second_bytes_taken_for_rtp_are_wiresharks(tmp_path):
    written = [Packet(1000 + b * 1e-3, "10.0.0.1", 40000, "10.0.0.2", 40002, b, b, 160 * b,
                      payload_type=b & 0x7F, marker=bool(b & 0x80)) for b in range(256)]
    path = write_capture(tmp_path / "second_byte.pcap", written)
    assert set(read_rtp(path).ssrc.tolist()) == {key[-1] for key in _tshark(path)}



def _header_variants(path, seed, count=400):
    """Datagrams with every mix of padding bit (counts of 0 to 255), header extension, CSRC list
    and payload length, about half cut by the snap length (a classic pcap written by hand, as
    dpkt writes every packet whole), SSRC = the datagram's index."""
    rng = np.random.default_rng(seed)
    template = bytearray(frame(Packet(0, "10.0.0.1", 40000, "10.0.0.2", 40002, 1, 1, 1))[:42])
    template[40:42] = bytes(2)  # no UDP checksum, so the patched lengths need none
    records = []
    for k in range(count):
        padded, extended = bool(rng.random() < 0.5), bool(rng.random() < 0.3)
        csrcs = int(rng.choice([0, 0, 1, 2, 15]))
        body = struct.pack("!BBHII", 0x80 | 0x20 * padded | 0x10 * extended | csrcs, 0, k,
                           160 * k, k) + bytes(4 * csrcs)
        if extended:
            body += struct.pack("!HH", 0xBEDE, int(rng.choice([0, 1, 3, 50])))
            body += bytes(4 * int(rng.choice([0, 1, 3])))
        body += bytes(int(rng.choice([0, 1, 5, 20])))
        if padded:  # the last byte is the padding count
            body = body[:-1] + bytes([int(rng.choice([0, 1, 3, 20, 255]))])
        data = bytearray(template) + body
        data[16:18] = struct.pack("!H", 28 + len(body))  # IP total length (its checksum unchecked)
        data[38:40] = struct.pack("!H", 8 + len(body))   # UDP length
        kept = len(data) if rng.random() < 0.5 else int(rng.integers(54, len(data) + 1))
        records.append(struct.pack("<IIII", 1000 + k, 0, kept, len(data)) + bytes(data[:kept]))
    path.write_bytes(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, dpkt.pcap.DLT_EN10MB)
                     + b"".join(records))
    return path


@pytest.mark.parametrize("seed", [11, 12])
def test_padding_csrc_lists_extensions_and_snap_lengths_count_as_in_tshark_s_streams(tmp_path, seed):
    """A set padding bit needs a count of at least 1 in a datagram captured whole; a cut datagram
    counts with its CSRC list captured and no padding bit, its extension cut or not."""
    path = _header_variants(tmp_path / "headers.pcap", seed)
    ours = read_rtp(path)
    assert set(ours.ssrc.tolist()) == {key[-1] for key in _tshark(path)}
    records = read_capture_file(path)
    cut = records.caplen[ours.number - 1] < records.origlen[ours.number - 1]
    assert 150 < len(ours) < 300 and 20 < np.count_nonzero(cut) < len(ours) - 100  # all kinds
