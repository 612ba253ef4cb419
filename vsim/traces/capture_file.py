"""Packet capture files (pcap and pcapng): the packets' bytes, link types and exact timestamps.

This module only frames records; ``vsim.traces.pcap_rtp`` decodes them.
dpkt parses the file and interface headers (byte order, timestamp precision
and resolution, link type, options); the records themselves are walked here
with ``struct`` because a capture of a million packets must be read in about a
second, and because dpkt's readers round timestamps to a float of epoch
seconds (a quarter of a microsecond today) and pass a record cut short by the
end of the file through unnoticed. Timestamps are kept as integer
nanoseconds since the epoch.

Every defect raises ``InputError`` naming the file, the packet (or block)
number and what was expected, except a last packet cut short by the file's
end (a tcpdump stopped in the middle of a write): the packets before it are
read, as tshark reads them, with an ``InputNote`` saying which was dropped.
A pcap record claiming more bytes than any packet holds (``MAX_CAPLEN``, or the
file's snapshot length when larger) is damage, not a cut, wherever it is: read
as a cut, a length corrupted mid-file would drop every packet after it without
an error. So is a pcapng block longer than any block (``MAX_BLOCK``) or whose
trailing copy of its length disagrees with its header. Like tshark, the file is
refused, naming the record's or block's byte offset.
"""

import struct
import warnings
from dataclasses import dataclass

import dpkt
import numpy as np

from vsim.core.errors import InputError, InputNote
from vsim.core.input_files import TRACE_LIMIT, check_input_file
from vsim.traces.file_head import describe_head, refuse_compressed

PCAP_MAGICS = {  # first four bytes -> (byte order, nanosecond timestamps)
    b"\xd4\xc3\xb2\xa1": ("<", False), b"\xa1\xb2\xc3\xd4": (">", False),
    b"\x4d\x3c\xb2\xa1": ("<", True), b"\xa1\xb2\x3c\x4d": (">", True),
}
PCAPNG_MAGIC = b"\x0a\x0d\x0d\x0a"
_PCAP_HEADER = 24
MAX_CAPLEN = 262_144  # bytes: tshark's largest packet (WTAP_MAX_PACKET_SIZE_STANDARD)
MAX_BLOCK = 16 << 20  # bytes: a pcapng block holds one packet and its options, far less than this
_RECORD = 16
_BLOCK_IDB, _BLOCK_PB, _BLOCK_SPB, _BLOCK_EPB = 1, 2, 3, 6  # pcapng block types (the SHB is PCAPNG_MAGIC)


@dataclass(frozen=True)
class CaptureRecords:
    """The packets of a capture file, in file order, as parallel arrays.

    ``data`` holds every packet's captured bytes back to back; packet ``i``
    is ``data[start[i]:start[i] + caplen[i]]``. ``origlen`` is its length on
    the wire, ``linktype`` its link-layer header type (LINKTYPE_* number) and
    ``time_ns`` its capture time in nanoseconds since the epoch.
    """

    path: str
    data: np.ndarray
    start: np.ndarray
    caplen: np.ndarray
    origlen: np.ndarray
    linktype: np.ndarray
    time_ns: np.ndarray

    def __len__(self):
        return self.start.size


def read_capture_file(path):
    """Read a pcap or pcapng file; ``InputError`` on a missing, empty, truncated (before its
    first whole packet) or foreign file, or one that is no regular file or larger than
    ``TRACE_LIMIT`` (checked before it is read)."""
    check_input_file(path, TRACE_LIMIT, "a pcap or pcapng capture")
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError as exc:
        raise InputError(path, None, f"cannot read ({exc.strerror or exc})") from None
    if not raw:
        raise InputError(path, None, "empty file; expected a pcap or pcapng capture")
    refuse_compressed(path, raw, "a pcap or pcapng capture")
    if raw[:4] in PCAP_MAGICS:
        return _read_pcap(str(path), raw)
    if raw[:4] == PCAPNG_MAGIC:
        return _read_pcapng(str(path), raw)
    raise InputError(path, "byte 0", f"expected a pcap or pcapng magic number, found "
                                     f"{describe_head(raw[:64])} (not a packet capture)")


def _records(path, raw, offsets, caplens, origlens, linktypes, time_ns):
    start = np.asarray(offsets, dtype=np.int64)
    return CaptureRecords(path, np.frombuffer(raw, dtype=np.uint8), start,
                          np.asarray(caplens, dtype=np.int64), np.asarray(origlens, dtype=np.int64),
                          np.asarray(linktypes, dtype=np.int64), np.asarray(time_ns, dtype=np.int64))


# ------------------------------------------------------------------ pcap
def _read_pcap(path, raw):
    order, nano = PCAP_MAGICS[raw[:4]]
    if len(raw) < _PCAP_HEADER:
        raise InputError(path, "file header", f"expected a {_PCAP_HEADER}-byte pcap header, "
                                              f"the file ends after {len(raw)} bytes (truncated?)")
    header = (dpkt.pcap.LEFileHdr if order == "<" else dpkt.pcap.FileHdr)(raw[:_PCAP_HEADER])
    linktype = header.linktype & 0x0FFFFFFF  # the upper bits may carry FCS information
    caplen_at = struct.Struct(order + "I").unpack_from
    offsets = []
    position, size = _PCAP_HEADER, len(raw)
    while position + _RECORD <= size:  # the hot loop: only find where each record starts
        offsets.append(position)
        position += _RECORD + caplen_at(raw, position + 8)[0]
    _refuse_damaged_records(path, raw, offsets, order, max(MAX_CAPLEN, header.snaplen))
    if position < size:
        _cut_short(path, f"packet {len(offsets) + 1}", f"expected a {_RECORD}-byte record header, "
                   f"the file ends after {size - position} bytes (truncated?)", len(offsets))
    if position > size:
        data_start = offsets.pop() + _RECORD
        _cut_short(path, f"packet {len(offsets) + 1}", f"expected {position - data_start} bytes of packet "
                   f"data, the file ends after {size - data_start} (truncated?)", len(offsets))
    starts = np.asarray(offsets, dtype=np.int64).reshape(-1)
    header = np.frombuffer(raw, dtype=np.uint8)[starts[:, None] + np.arange(_RECORD)]
    seconds, fractions, caplens, origlens = header.copy().view(np.dtype(order + "u4")).T.astype(np.int64)
    offsets = starts + _RECORD
    scale = 1 if nano else 1000
    time_ns = seconds * 1_000_000_000 + fractions * scale
    return _records(path, raw, offsets, caplens, origlens, [linktype] * len(offsets), time_ns)


def _refuse_damaged_records(path, raw, offsets, order, largest):
    """``InputError`` naming the first record (packet number and byte offset) among those starting
    at ``offsets`` whose captured length is over ``largest`` or over the packet's original length
    (a writer captures at most the whole packet): a corrupt record, not a cut."""
    if not offsets:
        return
    fields = np.frombuffer(raw, dtype=np.uint8)[np.asarray(offsets, dtype=np.int64)[:, None] + 8 + np.arange(8)]
    caplens, origlens = fields.copy().view(np.dtype(order + "u4")).T
    damaged = np.flatnonzero((caplens > largest) | (caplens > origlens))
    if damaged.size:
        index = int(damaged[0])
        caplen, origlen = int(caplens[index]), int(origlens[index])
        limit = (f"at most {largest} bytes" if caplen > largest
                 else f"at most the packet's original length of {origlen} bytes")
        _damaged(path, f"packet {index + 1} (byte {offsets[index]})", f"expected a captured length of "
                 f"{limit}, the record says {caplen}")


def _damaged(path, where, expected):
    """Refuse a capture with a corrupt record or block at ``where``: damage, not a cut at its end."""
    raise InputError(path, where, f"{expected}: the file is damaged (a corrupt record, not one cut "
                                  f"short by the end of the file)")


def _cut_short(path, where, expected, complete):
    """The file ends inside its last packet: with ``complete`` packets before it, note that it
    is dropped and go on; with none, refuse the file."""
    if not complete:
        raise InputError(path, where, expected)
    warnings.warn(InputNote(f"{path}: {where}: {expected}; read the {complete} packets before it, "
                            f"as tshark does"), stacklevel=3)


# ---------------------------------------------------------------- pcapng
@dataclass(frozen=True)
class _Interface:
    linktype: int
    power: int        # timestamps count units of base ** -power seconds
    base: int         # 10 or 2
    offset_s: int     # if_tsoffset, seconds added to every timestamp


def _interface(path, block, order, number):
    cls = dpkt.pcapng.InterfaceDescriptionBlockLE if order == "<" else dpkt.pcapng.InterfaceDescriptionBlock
    try:
        idb = cls(block)
    except (dpkt.UnpackError, dpkt.NeedData, struct.error) as exc:
        raise InputError(path, f"block {number}", f"expected a valid interface description block ({exc})") \
            from None
    power, base, offset = 6, 10, 0
    for option in idb.opts:
        if option.code == dpkt.pcapng.PCAPNG_OPT_IF_TSRESOL and option.data:
            value = option.data[0]
            base, power = (2, value & 0x7F) if value & 0x80 else (10, value)
        elif option.code == dpkt.pcapng.PCAPNG_OPT_IF_TSOFFSET and len(option.data) == 8:
            offset = struct.unpack(order + "q", option.data)[0]
    return _Interface(idb.linktype, power, base, offset)


def _to_ns(ticks, interface):
    """Timestamps in the interface's units -> integer nanoseconds since the epoch."""
    ticks = np.asarray(ticks, dtype=np.uint64)
    if interface.base == 10:
        if interface.power <= 9:
            ns = ticks * np.uint64(10 ** (9 - interface.power))
        else:
            ns = ticks // np.uint64(10 ** (interface.power - 9))
    else:
        shift = np.uint64(interface.power)
        whole = ticks >> shift
        part = ticks & np.uint64((1 << interface.power) - 1)
        ns = whole * np.uint64(10 ** 9) + ((part * np.uint64(10 ** 9)) >> shift)
    return ns.astype(np.int64) + interface.offset_s * 1_000_000_000


def _read_pcapng(path, raw):
    size = len(raw)
    position, number, order = 0, 0, "<"
    interfaces = []  # of every section, in file order
    section_start = 0  # where the current section's interfaces begin in ``interfaces``
    offsets, caplens, origlens, owners, ticks = [], [], [], [], []
    while position < size:
        number += 1
        if position + 12 > size:
            _cut_short(path, f"block {number}", "expected a block header of 8 bytes and a trailer, "
                       f"the file ends after {size - position} bytes (truncated?)", len(offsets))
            break
        if raw[position:position + 4] == PCAPNG_MAGIC:
            bom = raw[position + 8:position + 12]
            if bom not in (b"\x4d\x3c\x2b\x1a", b"\x1a\x2b\x3c\x4d"):
                raise InputError(path, f"block {number}", f"expected the byte-order magic 1a2b3c4d, "
                                                          f"found {bom.hex()}")
            order = "<" if bom == b"\x4d\x3c\x2b\x1a" else ">"
            section_start = len(interfaces)  # interface ids restart in every section
        kind, length = struct.unpack_from(order + "II", raw, position)
        if length < 12 or length % 4:
            raise InputError(path, f"block {number}", f"expected a block length >= 12 and a multiple of 4, "
                                                      f"got {length}")
        if length > MAX_BLOCK:
            _damaged(path, f"block {number} (byte {position})", f"expected a block of at most {MAX_BLOCK} "
                     f"bytes, its header says {length}")
        if position + length > size:
            _cut_short(path, f"block {number}", f"expected {length} bytes of block, the file ends "
                       f"after {size - position} (truncated?)", len(offsets))
            break
        trailer = struct.unpack_from(order + "I", raw, position + length - 4)[0]
        if trailer != length:
            _damaged(path, f"block {number} (byte {position})", f"expected the block's length, {length}, "
                     f"repeated at its end, found {trailer}")
        body = position + 8
        if kind == _BLOCK_IDB:
            interfaces.append(_interface(path, raw[position:position + length], order, number))
        elif kind in (_BLOCK_EPB, _BLOCK_PB):
            if kind == _BLOCK_EPB:
                iface, high, low, caplen, origlen = struct.unpack_from(order + "IIIII", raw, body)
                data = body + 20
            else:
                iface, _drops, high, low, caplen, origlen = struct.unpack_from(order + "HHIIII", raw, body)
                data = body + 20
            described = len(interfaces) - section_start
            if iface >= described:
                raise InputError(path, f"block {number}", f"expected a packet of a described interface "
                                 f"(0..{described - 1}), got interface {iface}")
            if data + caplen > position + length - 4:
                raise InputError(path, f"block {number}", f"expected {caplen} bytes of packet data inside "
                                                          f"a {length}-byte block")
            offsets.append(data)
            caplens.append(caplen)
            origlens.append(origlen)
            owners.append(section_start + iface)
            ticks.append((high << 32) | low)
        elif kind == _BLOCK_SPB:
            raise InputError(path, f"block {number}", "expected enhanced packet blocks; simple packet "
                                                      "blocks carry no timestamp")
        position += length
    owners = np.asarray(owners, dtype=np.int64)
    ticks = np.asarray(ticks, dtype=np.uint64)
    time_ns = np.zeros(owners.size, dtype=np.int64)
    linktypes = np.zeros(owners.size, dtype=np.int64)
    for index, interface in enumerate(interfaces):
        mine = owners == index
        time_ns[mine] = _to_ns(ticks[mine], interface)
        linktypes[mine] = interface.linktype
    return _records(path, raw, offsets, caplens, origlens, linktypes, time_ns)
