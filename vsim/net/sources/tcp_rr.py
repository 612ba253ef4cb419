"""Request/response traffic (netperf TCP_RR): discrete packets and closed-loop latency.

A transaction sends a request, waits for the response and only then sends
the next, so with ``outstanding`` transactions in flight its round trip is
the sum of the delays on the way there and back (the transmit paths, the
queues and wires, the peer's turnaround), and its rate is ``outstanding /
round trip`` transactions/s. The request leaves as one small packet (64
bytes of data in seed 001: 64 + 20 + 20 + 12 = 116 IP bytes), a discrete
packet that sees the uplink's queue; ``vsim.guest.request_response``
follows each chain's transactions through it. With ``think_time`` the
client waits that long after each response before the next request (0:
netperf's back-to-back transactions).
"""

from vsim.core.errors import InputError
from vsim.net.frames import IPV4_HEADER
from vsim.net.sources.tcp_stream import TCP_HEADER, TIMESTAMPS_OPTION
from vsim.net.sources.validate import IP_MAX, flag, non_negative, whole


MAX_OUTSTANDING = 1024
"""Most transactions one VM may keep in flight: each is a chain the simulation follows
request by request (netperf's burst mode keeps a few tens)."""


class TcpRequestResponse:
    """Transactions of ``request_bytes`` out and ``response_bytes`` back, ``outstanding`` at a time."""

    elastic = False
    discrete = True

    def __init__(self, request_bytes=64, response_bytes=64, outstanding=1, timestamps=True,
                 think_time=0.0, source="<input>", where="traffic"):
        self.request_bytes = whole(request_bytes, "request_bytes", source, where)
        self.response_bytes = whole(response_bytes, "response_bytes", source, where)
        self.outstanding = whole(outstanding, "outstanding", source, where, 1, MAX_OUTSTANDING)
        self.think_time = non_negative(think_time, "think_time", source, where)
        timestamps = flag(timestamps, "timestamps", source, where)
        overhead = IPV4_HEADER + TCP_HEADER + (TIMESTAMPS_OPTION if timestamps else 0)
        for name in ("request_bytes", "response_bytes"):
            if getattr(self, name) + overhead > IP_MAX:
                raise InputError(source, f"{where}.{name}",
                                 f"expected at most {IP_MAX - overhead} bytes of data (one IP packet of "
                                 f"{IP_MAX} with {overhead} of headers), got {getattr(self, name)!r}")
        self.ip_bytes = self.request_bytes + overhead
        self.response_ip_bytes = self.response_bytes + overhead
