"""The sizes, in bytes, of Ethernet's framing and of the IPv4, UDP and RTP headers.

Plain numbers with no imports, so that what only needs a size (a probe's argument bounds)
reads it without loading NumPy; ``vsim.net.frames`` does the arithmetic with them.
"""

ETH_HEADER = 14
"""MAC header: destination 6 + source 6 + EtherType 2 bytes (IEEE 802.3, clause 3.2)."""

FCS = 4
"""Frame check sequence, a CRC-32 (IEEE 802.3, clause 3.2.9)."""

PREAMBLE_SFD = 8
"""Preamble 7 + start frame delimiter 1 byte, sent before each frame (IEEE 802.3, clauses 3.2.1-3.2.2)."""

INTERFRAME_GAP = 12
"""Minimum idle time between frames, 96 bit times (IEEE 802.3, clause 4.4.2)."""

MIN_PAYLOAD = 46
"""Smallest MAC client data field; shorter payloads are padded so that a frame
is at least 64 bytes = 14 + 46 + 4 (IEEE 802.3, clauses 3.2.8 and 4.4.2)."""

IPV4_HEADER = 20
"""IPv4 header without options (RFC 791, section 3.1)."""

UDP_HEADER = 8
"""UDP header (RFC 768)."""

RTP_HEADER = 12
"""RTP fixed header without CSRC entries or extensions (RFC 3550, section 5.1)."""
