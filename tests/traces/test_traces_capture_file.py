"""Tests of pcap/pcapng framing: exact timestamps, link types, and one-line errors on damaged files."""

import gzip
import struct

import dpkt
import pytest
from hypothesis import given, strategies as st

from rtp_captures import LINKTYPES, voice_stream, write_capture
from vsim.core.errors import InputError, InputNote
from vsim.traces.capture_file import _Interface, _to_ns, read_capture_file


def _capture(tmp_path, fmt="pcap", count=3, link="ethernet"):
    return write_capture(tmp_path / f"c.{fmt}", voice_stream([0.001] * count), link=link, fmt=fmt)


@pytest.mark.parametrize("fmt", ["pcap", "pcapng"])
def test_packets_times_and_lengths_are_read(tmp_path, fmt):
    records = read_capture_file(_capture(tmp_path, fmt))
    assert len(records) == 3
    assert records.linktype.tolist() == [1, 1, 1]
    assert records.caplen.tolist() == records.origlen.tolist() == [14 + 20 + 8 + 12 + 160] * 3
    # 1000 s + k * 20 ms + 1 ms, microsecond resolution in pcapng, nanosecond in pcap
    assert records.time_ns.tolist() == [1_000_001_000_000, 1_000_021_000_000, 1_000_041_000_000]
    first = records.data[records.start[0]:records.start[0] + records.caplen[0]].tobytes()
    assert dpkt.ethernet.Ethernet(first).data.data.sport == 40000


def test_nanosecond_pcap_keeps_every_nanosecond(tmp_path):
    path = tmp_path / "ns.pcap"
    with open(path, "wb") as handle:
        writer = dpkt.pcap.Writer(handle, nano=True)
        writer.writepkt(b"\x00" * 20, ts=1000.123456789)
    assert read_capture_file(path).time_ns.tolist() == [1_000_123_456_789]


def test_microsecond_pcap_scales_to_nanoseconds(tmp_path):
    path = tmp_path / "us.pcap"
    with open(path, "wb") as handle:
        writer = dpkt.pcap.Writer(handle)
        writer.writepkt(b"\x00" * 20, ts=1000.654321)
    assert read_capture_file(path).time_ns.tolist() == [1_000_654_321_000]


def test_big_endian_pcap_is_read(tmp_path):
    path = tmp_path / "be.pcap"
    header = struct.pack(">IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 101)
    path.write_bytes(header + struct.pack(">IIII", 1000, 250, 20, 20) + b"\x45" + bytes(19))
    records = read_capture_file(path)
    assert records.time_ns.tolist() == [1_000_000_250_000] and records.linktype.tolist() == [101]
    assert records.caplen.tolist() == [20] and records.data[records.start[0]] == 0x45


@given(st.integers(0, 2**63 // 10**9), st.integers(0, 40))
def test_binary_timestamp_resolution_converts_exactly(ticks, power):
    interface = _Interface(linktype=1, power=power, base=2, offset_s=0)
    assert _to_ns([ticks], interface).tolist() == [ticks * 10**9 >> power]


@given(st.integers(0, 2**40), st.integers(0, 12), st.integers(-1000, 1000))
def test_decimal_timestamp_resolution_converts_exactly(ticks, power, offset):
    interface = _Interface(linktype=1, power=power, base=10, offset_s=offset)
    assert _to_ns([ticks], interface).tolist() == [ticks * 10**9 // 10**power + offset * 10**9]


def _error(path):
    with pytest.raises(InputError) as info:
        read_capture_file(path)
    return info.value


def test_empty_file_is_its_own_error(tmp_path):
    (tmp_path / "e.pcap").write_bytes(b"")
    assert "empty file" in str(_error(tmp_path / "e.pcap"))


def test_a_text_file_is_not_a_capture(tmp_path):
    (tmp_path / "t.pcap").write_text("Date_ms;response_time_ms;rtd_no\n")
    error = _error(tmp_path / "t.pcap")
    assert error.where == "byte 0" and "not a packet capture" in error.expected


def test_a_gzip_compressed_capture_says_to_decompress_it(tmp_path):
    path = tmp_path / "c.pcap.gz"
    path.write_bytes(gzip.compress(_capture(tmp_path).read_bytes()))
    with pytest.raises(InputError, match=r"c.pcap.gz: expected a pcap or pcapng capture, found a "
                                         r"gzip-compressed file; decompress it into a file first \(gunzip -k FILE\)"):
        read_capture_file(path)


def test_truncated_file_header_is_named(tmp_path):
    raw = _capture(tmp_path).read_bytes()
    (tmp_path / "h.pcap").write_bytes(raw[:10])
    error = _error(tmp_path / "h.pcap")
    assert error.where == "file header" and "truncated" in error.expected


def _cut(tmp_path, raw, name):
    """Read ``raw`` written as ``name``: the records, and the one note the cut gave."""
    (tmp_path / name).write_bytes(raw)
    with pytest.warns(InputNote) as notes:
        records = read_capture_file(tmp_path / name)
    assert len(notes) == 1
    return records, str(notes[0].message)


def test_packet_data_cut_short_drops_that_packet_and_names_it(tmp_path):
    raw = _capture(tmp_path).read_bytes()
    records, note = _cut(tmp_path, raw[:-5], "d.pcap")
    assert len(records) == 2
    assert ": packet 3: expected 214 bytes of packet data, the file ends after 209" in note
    assert note.endswith("read the 2 packets before it, as tshark does")


def test_a_record_header_cut_short_drops_that_packet_and_names_it(tmp_path):
    raw = _capture(tmp_path).read_bytes()
    records, note = _cut(tmp_path, raw + b"\x00" * 7, "r.pcap")
    assert len(records) == 3 and ": packet 4: expected a 16-byte record header" in note


def test_a_pcapng_block_cut_short_drops_that_packet_and_names_the_block(tmp_path):
    raw = _capture(tmp_path, "pcapng").read_bytes()
    records, note = _cut(tmp_path, raw[:-30], "b.pcapng")
    assert len(records) == 2 and ": block " in note and "truncated" in note


def _sections(tmp_path):
    """Two pcapng sections back to back: 3 Ethernet frames, then 2 raw-IP ones (interface 0 of each)."""
    first = _capture(tmp_path, "pcapng", count=3).read_bytes()
    second = write_capture(tmp_path / "raw.pcapng", voice_stream([0.001] * 2), link="raw", fmt="pcapng")
    return first, second.read_bytes()


def test_each_pcapng_section_s_packets_keep_that_section_s_interfaces(tmp_path):
    first, second = _sections(tmp_path)
    (tmp_path / "two.pcapng").write_bytes(first + second)
    records = read_capture_file(tmp_path / "two.pcapng")
    assert records.linktype.tolist() == [LINKTYPES["ethernet"]] * 3 + [LINKTYPES["raw"]] * 2
    assert records.time_ns.tolist()[3] == 1_000_001_000_000


def test_a_second_section_cut_short_keeps_the_first_section_s_packets(tmp_path):
    first, second = _sections(tmp_path)
    records, note = _cut(tmp_path, first + second[:20], "cut.pcapng")
    assert records.linktype.tolist() == [1, 1, 1] and records.time_ns.min() > 0
    assert "read the 3 packets before it" in note


@pytest.mark.parametrize("fmt", ["pcap", "pcapng"])
def test_a_capture_cut_short_in_its_first_packet_is_refused(tmp_path, fmt):
    raw = _capture(tmp_path, fmt, count=1).read_bytes()
    (tmp_path / f"one.{fmt}").write_bytes(raw[:-5])
    error = _error(tmp_path / f"one.{fmt}")
    assert "truncated" in error.expected


def test_pcapng_packet_of_an_undescribed_interface_is_refused(tmp_path):
    raw = bytearray(_capture(tmp_path, "pcapng", count=1).read_bytes())
    epb = raw.rfind(struct.pack("<I", 6))  # the enhanced packet block's type word
    raw[epb + 8:epb + 12] = struct.pack("<I", 5)
    (tmp_path / "i.pcapng").write_bytes(bytes(raw))
    assert "interface 5" in _error(tmp_path / "i.pcapng").expected


def test_each_pcapng_interface_keeps_its_link_type_and_resolution(tmp_path):
    pcapng = dpkt.pcapng
    nano = [pcapng.PcapngOptionLE(code=pcapng.PCAPNG_OPT_IF_TSRESOL, data=b"\x09"),
            pcapng.PcapngOptionLE(code=pcapng.PCAPNG_OPT_ENDOFOPT)]
    blocks = [pcapng.SectionHeaderBlockLE(), pcapng.InterfaceDescriptionBlockLE(linktype=1),
              pcapng.InterfaceDescriptionBlockLE(linktype=101, opts=nano),
              pcapng.EnhancedPacketBlockLE(iface_id=0, ts_high=0, ts_low=7, pkt_data=bytes(14)),
              pcapng.EnhancedPacketBlockLE(iface_id=1, ts_high=1, ts_low=5, pkt_data=b"\x45" + bytes(19))]
    path = tmp_path / "two.pcapng"
    path.write_bytes(b"".join(bytes(block) for block in blocks))
    records = read_capture_file(path)
    assert records.linktype.tolist() == [1, 101]
    assert records.caplen.tolist() == [14, 20]
    assert records.time_ns.tolist() == [7_000, 2**32 + 5]


@pytest.mark.parametrize("caplen", [0x7FFFFFFF, 300_000, 200_000, 60_000])
def test_a_record_length_corrupt_before_the_end_is_a_damaged_file_not_a_cut(tmp_path, caplen):
    """It was read as if the file ended there: 7 of 283 packets kept, exit 0, a "truncated?" note."""
    raw = bytearray(_capture(tmp_path, count=283).read_bytes())
    record = 24 + 7 * (16 + 214)  # the 8th packet's record header
    struct.pack_into("<I", raw, record + 8, caplen)
    (tmp_path / "damaged.pcap").write_bytes(raw)
    with pytest.raises(InputError) as caught:
        read_capture_file(tmp_path / "damaged.pcap")
    assert caught.value.where == f"packet 8 (byte {record})"
    assert f"{caplen}" in caught.value.expected and "damaged" in caught.value.expected


def test_a_last_record_cut_short_is_still_a_truncation_when_its_length_is_plausible(tmp_path):
    raw = bytearray(_capture(tmp_path, count=5).read_bytes())
    records, note = _cut(tmp_path, bytes(raw[:-100]), "cut.pcap")
    assert len(records) == 4 and "truncated" in note


def _block_offsets(raw):
    """Byte offset of each pcapng block of ``raw`` (little-endian)."""
    offsets, position = [], 0
    while position < len(raw):
        offsets.append(position)
        position += struct.unpack_from("<I", raw, position + 4)[0]
    return offsets


@pytest.mark.parametrize("length", [0x7FFFFFF0, 0])
def test_a_pcapng_block_length_corrupt_before_the_end_is_a_damaged_file(tmp_path, length):
    """Past the end: it was read as a cut (2 of 283 packets kept); inside the file: its trailer disagrees."""
    raw = bytearray(_capture(tmp_path, "pcapng", count=283).read_bytes())
    block = _block_offsets(bytes(raw))[4]
    length = length or struct.unpack_from("<I", raw, block + 4)[0] + 8
    struct.pack_into("<I", raw, block + 4, length)
    (tmp_path / "damaged.pcapng").write_bytes(raw)
    with pytest.raises(InputError) as caught:
        read_capture_file(tmp_path / "damaged.pcapng")
    assert caught.value.where == f"block 5 (byte {block})" and "damaged" in caught.value.expected
