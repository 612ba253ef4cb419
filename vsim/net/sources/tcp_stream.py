"""A bulk TCP transfer (netperf TCP_STREAM, NFS reads, vMotion) as an elastic fluid.

Framing sets its ceiling: a 1500-byte MTU segment carries 1500 - 20 (IPv4)
- 20 (TCP) - 12 (timestamps option, RFC 7323) = 1448 bytes of data and takes
1500 + 38 byte times on the wire (``vsim.net.frames``), so goodput at line
rate is 1448/1538 of it: 941 Mb/s on 1 GbE, 9.41 Gb/s on 10 GbE (the
studies' figures). The stream offers the smaller of the line rate and
window/RTT (a window-limited sender cannot have more than a window in
flight per round trip) and, being elastic, follows the rate the uplink
scheduler leaves it (``UplinkScheduler.flow_rates``) without loss; its
goodput is that rate in segments times the data per segment.

A window-limited sender has its whole window in flight: what the path's
bandwidth-delay product (its rate times ``rtt``, the round trip without
queueing) does not hold waits in its bottleneck's queue
(``in_flight_packets``; the uplink schedulers keep it there,
``vsim.net.uplink.base``). A sender without a window given is taken as
never queueing.
"""

from vsim.core.errors import InputError
from vsim.core.units import BITS_PER_BYTE
from vsim.net.frames import IPV4_HEADER, packet_bytes, serialization_time
from vsim.net.sources.validate import IP_MAX, flag, positive

TCP_HEADER = 20
"""TCP header without options (RFC 9293, section 3.1)."""

TIMESTAMPS_OPTION = 12
"""Timestamps option (10 bytes, RFC 7323) padded to a 4-byte boundary with two NOPs."""


class TcpStream:
    """A TCP sender of full segments at ``mtu`` (IP bytes); window-limited if ``window_bytes`` is given."""

    elastic = True
    discrete = False

    def __init__(self, mtu=1500, timestamps=True, window_bytes=None, rtt=None,
                 source="<input>", where="traffic"):
        self.mtu = positive(mtu, "mtu", source, where)
        self.timestamps = flag(timestamps, "timestamps", source, where)
        self.payload = self.mtu - IPV4_HEADER - TCP_HEADER - (TIMESTAMPS_OPTION if timestamps else 0)
        if self.payload <= 0 or self.mtu > IP_MAX:
            raise InputError(source, f"{where}.mtu",
                             f"expected an MTU above the IP and TCP headers and at most {IP_MAX}, "
                             f"got {mtu!r}")
        if (window_bytes is None) != (rtt is None):
            raise InputError(source, f"{where}.{'rtt' if rtt is None else 'window_bytes'}",
                             "both window_bytes and rtt, or neither")
        self.window_bytes = None if window_bytes is None else positive(window_bytes, "window_bytes",
                                                                       source, where)
        self.rtt = None if rtt is None else positive(rtt, "rtt", source, where)
        self.ip_bytes = self.mtu

    def counted_bytes(self, segment_frames):
        """Bytes per wire frame of the packets a virtual switch holds when the guest sends
        TSO segments of ``segment_frames`` frames: one Ethernet, IP and TCP header per
        segment, the data of every frame."""
        return self.payload + (packet_bytes(self.mtu) - self.payload) / segment_frames

    def in_flight_packets(self):
        """Segments a window-limited sender keeps in flight (its window over the data per
        segment); 0 without a window, a sender taken as never queueing."""
        return 0.0 if self.window_bytes is None else self.window_bytes / self.payload

    def line_pps(self, rate_bps):
        """Segments/s that fill a link of ``rate_bps``."""
        return 1.0 / serialization_time(self.mtu, rate_bps)

    def goodput_bps(self, pps):
        """Application data rate of ``pps`` segments/s."""
        return pps * self.payload * BITS_PER_BYTE

    def demand_pps(self, rate_bps):
        """Segments/s the sender offers on a ``rate_bps`` link: line rate, or less if window-limited."""
        line = self.line_pps(rate_bps)
        if self.window_bytes is None or self.rtt is None:  # both or neither (``__init__``)
            return line
        return min(line, self.window_bytes / self.rtt / self.payload)

