"""The bytes Linux traffic control counts for a packet, and tc's defaults.

A qdisc on an Ethernet device (a NIC or a veth) sees the socket buffer that
``dev_queue_xmit`` hands it: the MAC header and the IP packet. Its length,
``qdisc_pkt_len(skb)`` = ``skb->len``, is 14 + IP bytes (18 with a VLAN tag
inserted in software). It has no frame check sequence (the NIC adds it), no
padding to the 60-byte minimum (the driver pads, if at all; a veth never
does), no preamble and no interframe gap. So for one UDP/IPv4 datagram of
RTP (a UDP socket makes one socket buffer per datagram unless UDP GSO is
asked for):

    skb_len = 14 + 20 + 8 + 12 + payload = 54 + payload bytes.

What each discipline does with it:

- pfifo counts packets waiting in its queue; bfifo counts ``skb_len`` bytes
  (``qstats.backlog``) of the packets waiting;
- tbf and htb charge their token buckets ``skb_len`` plus the rate's
  ``overhead`` (0 unless ``tc ... overhead N``), rounded up to whole 53-byte
  ATM cells of 48 bytes with ``linklayer atm`` (``psched_l2t_ns``); tbf's
  ``limit`` is bfifo bytes of ``skb_len``.

A size table (``tc qdisc ... stab``) would change ``qdisc_pkt_len`` itself;
vsim takes none. A link's wire time is another thing: ``vsim.net.frames``
counts FCS, padding, preamble and gap there.
"""

import numpy as np

from vsim.core.units import BITS_PER_BYTE
from vsim.net.frames import _plain, packet_bytes

VLAN_TAG = 4
"""IEEE 802.1Q tag, in the socket buffer when the VLAN is tagged in software."""

ATM_CELL, ATM_PAYLOAD = 53, 48
"""An ATM cell and the payload it carries (``linklayer atm``)."""

TXQUEUELEN = 1000
"""``DEFAULT_TX_QUEUE_LEN``: the device queue length ``ether_setup`` gives an
Ethernet device, a veth included; the limit of a pfifo created without one
(an htb leaf's default queue) and of htb's direct queue."""

HTB_R2Q = 10
"""htb's default ``r2q``: a leaf's default quantum is its rate in bytes/s over r2q."""

HTB_QUANTUM_MIN, HTB_QUANTUM_MAX = 1000, 200_000
"""Bounds the kernel clamps a default (not user-given) htb quantum to, in bytes."""

TC_MTU = 1600
"""The mtu tc assumes for rate tables and default bursts unless told ``mtu``."""

PSCHED_HZ = 1e9
"""The clock rate tc reads from /proc/net/psched on kernels with high-resolution timers."""

LINKLAYERS = ("ethernet", "atm")


def skb_len(ip_bytes, vlan=False):
    """Bytes a qdisc on an Ethernet device or veth counts for IP packets of ``ip_bytes``."""
    return _plain(np.asarray(packet_bytes(ip_bytes)) + (VLAN_TAG if vlan else 0))


def skb_units(ip_bytes):
    """``skb_len`` of IP packets as a float array: a byte-limited qdisc's count of each."""
    return np.asarray(skb_len(np.asarray(ip_bytes)), dtype=float)


def charged_bytes(length, overhead=0, linklayer="ethernet"):
    """Bytes a tbf or htb rate charges for a packet of ``length`` (``skb_len``)."""
    if linklayer not in LINKLAYERS:
        raise ValueError(f"linklayer must be one of {LINKLAYERS}, got {linklayer!r}")
    total = np.asarray(length) + overhead
    if linklayer == "atm":
        total = np.ceil(total / ATM_PAYLOAD) * ATM_CELL
    return _plain(total)


def largest_packet(bucket_bytes, overhead=0, linklayer="ethernet"):
    """The longest ``skb_len`` a bucket of ``bucket_bytes`` can ever pay for:
    ``psched_ns_t2l`` (net/sched/sch_api.c) turning tbf's bucket back into a length, whole
    ATM cells to their payload with ``linklayer atm``, less the rate's ``overhead``.
    tbf drops a longer packet on arrival (its ``max_size``)."""
    if linklayer not in LINKLAYERS:
        raise ValueError(f"linklayer must be one of {LINKLAYERS}, got {linklayer!r}")
    length = float(bucket_bytes)
    if linklayer == "atm":
        length = (length // ATM_CELL) * ATM_PAYLOAD
    return max(length - overhead, 0.0)


def token_time(ip_bytes, rate_bps, overhead=0, linklayer="ethernet"):
    """Seconds of tokens a tc rate of ``rate_bps`` charges IP packets of ``ip_bytes``:
    ``psched_l2t_ns(rate, qdisc_pkt_len(skb))`` (include/net/sch_generic.h), their
    ``charged_bytes`` at that rate."""
    length = charged_bytes(skb_len(np.asarray(ip_bytes, dtype=float)), overhead, linklayer)
    return np.asarray(length, dtype=float) * BITS_PER_BYTE / rate_bps


def htb_default_quantum(rate_bps, r2q=HTB_R2Q):
    """The quantum (bytes) the kernel gives an htb leaf of ``rate_bps`` when none is set."""
    return float(min(max((rate_bps / 8) // r2q, HTB_QUANTUM_MIN), HTB_QUANTUM_MAX))


def htb_default_burst(rate_bps):
    """The bucket depth (bytes) tc gives an htb rate or ceil when no burst is set:
    a second's bytes over the psched clock rate, plus the mtu: about 1600 bytes."""
    return rate_bps / 8 / PSCHED_HZ + TC_MTU
