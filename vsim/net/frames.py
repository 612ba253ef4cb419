"""Ethernet framing arithmetic: how many bytes a packet costs on the wire.

A queue in front of a link is busy for as long as the link needs to clock out
the whole frame, not just the IP packet: the MAC header, the frame check
sequence, padding up to the minimum frame size, the preamble and the idle gap
between frames all take link time. Sizes are in bytes; every function accepts
a Python number or a numpy array and answers in kind.
"""

import numpy as np

from vsim.core.units import BITS_PER_BYTE
from vsim.net.header_sizes import (ETH_HEADER, FCS, INTERFRAME_GAP, IPV4_HEADER, MIN_PAYLOAD, PREAMBLE_SFD,
                                   RTP_HEADER, UDP_HEADER)


def _plain(value):
    """A 0-d numpy result as a Python number, arrays unchanged."""
    return value.item() if np.ndim(value) == 0 else value


def ip_bytes_for_rtp(payload_bytes):
    """IP packet size of an RTP packet carrying ``payload_bytes`` of media over UDP/IPv4."""
    return _plain(np.asarray(payload_bytes) + IPV4_HEADER + UDP_HEADER + RTP_HEADER)


def packet_bytes(ip_bytes):
    """Bytes of the packet a host's stack or virtual switch holds for an IP packet: the Ethernet
    header and the packet, no FCS, preamble or gap (Linux's skb->len, what NetIOC meters)."""
    return _plain(np.asarray(ip_bytes) + ETH_HEADER)


def frame_bytes(ip_bytes):
    """Ethernet frame size (header to FCS) for an IP packet, with padding to the minimum frame."""
    return _plain(np.maximum(np.asarray(ip_bytes), MIN_PAYLOAD) + ETH_HEADER + FCS)


def wire_bytes(ip_bytes):
    """Link time of an IP packet in byte times: the frame plus preamble/SFD and interframe gap."""
    return _plain(np.asarray(frame_bytes(ip_bytes)) + PREAMBLE_SFD + INTERFRAME_GAP)


def serialization_time(ip_bytes, rate_bps):
    """Seconds a link of ``rate_bps`` is busy sending one IP packet, framing overhead included."""
    return _plain(np.asarray(wire_bytes(ip_bytes)) * BITS_PER_BYTE / rate_bps)
