"""Request/response transactions (netperf TCP_RR) from the same layer costs: the rate is the
inverse of the round trip through the path.

A message goes down the sender's stack and device, through the virtual
switch (and the NIC's driver, the wire and the peer's NIC), and up the
receiver's device and stack; every layer adds its CPU time for one small
packet, a halted vCPU adds its wake-up latency, the receiving application
its wake-up. The reply piggybacks the ACK, so no other packets flow. A
throttled NIC (``interrupt_hz``) raises an interrupt at most every
``1/interrupt_hz`` after its last one (the 8254x's ITR: a cause arriving
later is signalled at once, one arriving sooner waits for the interval to
end). With one transaction in flight each NIC on the path receives one
packet per transaction, so its interrupts come one round trip apart, and a
round trip shorter than a throttle's interval is stretched to it: the
packet waits out what is left of the interval since the NIC's last
interrupt, which is the interval less the round trip's other time. So

    RTT = max(base, largest 1/interrupt_hz of the NICs on the path).

With one transaction outstanding every CPU's work lies on the round trip,
so the rate is exactly 1/RTT.
"""

from dataclasses import dataclass

from vsim.net.frames import packet_bytes, serialization_time
from vsim.net.stack.paths import TCP_IP_HEADERS


@dataclass(frozen=True)
class OneWay:
    """A message's trip: its latency without throttling, each CPU's time on it, and the
    minimum interrupt intervals of the throttled NICs it is received by."""

    latency: float
    cpu: dict
    throttles: tuple


def one_way(src, dst, message_bytes, local=False, rate_bps=None, link_latency=0.0):
    """The ``OneWay`` of a ``message_bytes`` message from endpoint ``src`` to ``dst``."""
    ip = message_bytes + TCP_IP_HEADERS
    frame = packet_bytes(ip)
    cpu: dict[str, float] = {}
    throttles: list[float] = []
    latency = 0.0

    def spend(where, seconds):
        cpu[where] = cpu.get(where, 0.0) + seconds

    g = src.guest
    spend(src.name, g.tx_per_packet + g.tx_per_byte * message_bytes)
    if src.virtual:
        spend(src.name, src.device.tx_per_packet)
    if local:
        spend(f"{src.host} vswitch", src.vswitch.tx_per_packet + frame * src.vswitch.copy_per_byte)
    else:
        if src.virtual:
            spend(f"{src.host} tx", src.vswitch.tx_per_packet + src.nic.tx_per_packet)
        else:
            spend(src.name, src.nic.tx_per_packet)
        latency += serialization_time(ip, rate_bps) + link_latency
        nic = dst.nic
        where = f"{dst.host} rx" if dst.virtual else dst.name
        spend(where, nic.interrupt + nic.rx_per_packet)
        if nic.interrupt_hz != float("inf"):
            throttles.append(1.0 / nic.interrupt_hz)
        if dst.virtual:
            spend(where, dst.vswitch.rx_per_packet + frame * dst.vswitch.copy_per_byte)
    if dst.virtual:
        d = dst.device
        latency += d.wake_latency
        spend(dst.name, d.interrupt + d.rx_per_packet)
    g = dst.guest
    spend(dst.name, g.rx_per_packet + g.rx_per_byte * message_bytes + g.wakeup)
    return OneWay(latency + sum(cpu.values()), cpu, tuple(throttles))


def throttled_round_trip(base, intervals):
    """The steady round trip of one transaction in flight through NICs throttled to the
    minimum interrupt ``intervals``: each NIC's interrupts are a round trip apart, so the round
    trip is at least the longest interval, and ``base`` (its time without throttling) when
    that is longer. The wait the throttles add lies at whichever NIC's interval binds."""
    return max([base, *intervals])


@dataclass(frozen=True)
class RequestResponse:
    """A transaction's round trip (s), its rate (1/s), each CPU's time per transaction and the
    latency the throttled NICs add."""

    rtt: float
    rate: float
    cpu: dict
    throttle_wait: float


def request_response(client, server, request_bytes=1, response_bytes=1, local=False,
                     rate_bps=None, link_latency=0.0, outstanding=1):
    """Transactions/s of ``outstanding`` requests at a time between ``client`` and ``server``
    (only one: the rate is then 1/RTT)."""
    if outstanding != 1:
        raise ValueError(f"one transaction in flight (netperf TCP_RR's default), got {outstanding!r}")
    out = one_way(client, server, request_bytes, local, rate_bps, link_latency)
    back = one_way(server, client, response_bytes, local, rate_bps, link_latency)
    base = out.latency + back.latency
    rtt = throttled_round_trip(base, out.throttles + back.throttles)
    cpu = {name: out.cpu.get(name, 0.0) + back.cpu.get(name, 0.0) for name in {**out.cpu, **back.cpu}}
    return RequestResponse(rtt, outstanding / rtt, dict(sorted(cpu.items())), rtt - base)
