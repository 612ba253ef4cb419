"""The tc bottleneck on the sender's veth end, as tc command lines built from a ``Bottleneck``.

A veth is as fast as the CPU, so every shape has a rate:

- ``pfifo`` / ``bfifo``: a token bucket (tbf) at ``rate_bps`` whose queue is
  replaced by a pfifo of ``limit`` packets or a bfifo of ``limit`` bytes;
- ``tbf``: a token bucket at ``rate_bps`` with ``burst_bytes`` and its own
  byte ``limit``;
- ``htb``: a root class at ``rate_bps`` with two children, voice (1:10, the
  default class) and flood (1:20, selected by a u32 filter on the flood's
  UDP destination port), each with its rate and ceil and a pfifo of
  ``limit`` packets;
- ``htb_shared``: a root class at ``rate_bps`` with one child (1:10, the
  default class, rate and ceil ``rate_bps``) whose pfifo of ``limit``
  packets voice and flood share: a drop-tail queue behind htb's dequeue.

tc and the kernel bound what a bottleneck can be: a limit or a size is a
32-bit count (``MAX_U32``), and a token bucket's size is kept as a 32-bit
count of 64 ns scheduler ticks, so it holds at most ``MAX_BUCKET_S`` of
sending at its rate; tc silently wraps a larger burst around.
"""

from dataclasses import dataclass

SHAPES = ("pfifo", "bfifo", "tbf", "htb", "htb_shared")
VOICE_CLASS = "1:10"
FLOOD_CLASS = "1:20"
BYTE_LIMITS = ("bfifo", "tbf")  # the shapes whose limit counts bytes; pfifo and the htb ones count packets
MAX_RATE_BPS = 1e11  # 100 Gbit/s: more than a veth carries, so a faster bottleneck would shape nothing
MAX_U32 = 2**32 - 1
TICK_S = 64e-9  # the kernel's packet scheduler tick (PSCHED_SHIFT 6: 2**6 ns)
MAX_BUCKET_S = 2**32 * TICK_S


@dataclass(frozen=True)
class Bottleneck:
    """A bottleneck's shape and parameters (rates in bit/s, sizes in bytes unless said otherwise)."""

    shape: str
    rate_bps: float
    limit: int
    burst_bytes: int
    flood_port: int
    voice_rate_bps: float = 0.0
    voice_ceil_bps: float = 0.0
    flood_rate_bps: float = 0.0
    flood_ceil_bps: float = 0.0

    def describe(self):
        """One line with every parameter that shapes the traffic."""
        line = f"{self.shape} rate={self.rate_bps:g}bit/s limit={self.limit} burst={self.burst_bytes}B"
        if self.shape == "htb":
            line += (f" voice(rate={self.voice_rate_bps:g} ceil={self.voice_ceil_bps:g})"
                     f" flood(rate={self.flood_rate_bps:g} ceil={self.flood_ceil_bps:g}, udp dport "
                     f"{self.flood_port})")
        return line

    def bucket_rates_bps(self):
        """The rates of the token buckets that hold ``burst_bytes``: the tbf's, or htb's root's and classes'."""
        if self.shape == "htb":
            return (self.rate_bps, self.voice_rate_bps, self.flood_rate_bps)
        if self.shape == "htb_shared":
            return (self.rate_bps, self.rate_bps)
        return (self.rate_bps,)


def max_burst_bytes(rate_bps):
    """The largest burst, bytes, that the kernel can hold in a token bucket filling at ``rate_bps``."""
    return min(MAX_U32, int(rate_bps / 8 * MAX_BUCKET_S))


def _bit(rate_bps):
    return f"{int(round(rate_bps))}bit"


def tc_commands(device, bottleneck):
    """The tc argument lists that install ``bottleneck`` as ``device``'s root qdisc, in order."""
    b = bottleneck
    if b.shape not in SHAPES:
        raise ValueError(f"unknown bottleneck shape {b.shape!r}")
    qdisc = ["tc", "qdisc", "add", "dev", device]
    if b.shape in ("pfifo", "bfifo", "tbf"):
        tbf_limit = b.limit if b.shape == "tbf" else max(b.burst_bytes, 1)
        commands = [qdisc + ["root", "handle", "1:", "tbf", "rate", _bit(b.rate_bps),
                             "burst", str(b.burst_bytes), "limit", str(tbf_limit)]]
        if b.shape != "tbf":
            commands.append(qdisc + ["parent", "1:1", "handle", "10:", b.shape, "limit", str(b.limit)])
        return commands
    cls = ["tc", "class", "add", "dev", device]
    if b.shape == "htb_shared":
        return [
            qdisc + ["root", "handle", "1:", "htb", "default", VOICE_CLASS.split(":")[1]],
            cls + ["parent", "1:", "classid", "1:1", "htb", "rate", _bit(b.rate_bps), "ceil", _bit(b.rate_bps),
                   "burst", str(b.burst_bytes)],
            cls + ["parent", "1:1", "classid", VOICE_CLASS, "htb", "rate", _bit(b.rate_bps),
                   "ceil", _bit(b.rate_bps), "burst", str(b.burst_bytes)],
            qdisc + ["parent", VOICE_CLASS, "handle", "10:", "pfifo", "limit", str(b.limit)],
        ]
    return [
        qdisc + ["root", "handle", "1:", "htb", "default", VOICE_CLASS.split(":")[1]],
        cls + ["parent", "1:", "classid", "1:1", "htb", "rate", _bit(b.rate_bps), "ceil", _bit(b.rate_bps),
               "burst", str(b.burst_bytes)],
        cls + ["parent", "1:1", "classid", VOICE_CLASS, "htb", "rate", _bit(b.voice_rate_bps),
               "ceil", _bit(b.voice_ceil_bps), "burst", str(b.burst_bytes)],
        cls + ["parent", "1:1", "classid", FLOOD_CLASS, "htb", "rate", _bit(b.flood_rate_bps),
               "ceil", _bit(b.flood_ceil_bps), "burst", str(b.burst_bytes)],
        qdisc + ["parent", VOICE_CLASS, "handle", "10:", "pfifo", "limit", str(b.limit)],
        qdisc + ["parent", FLOOD_CLASS, "handle", "20:", "pfifo", "limit", str(b.limit)],
        ["tc", "filter", "add", "dev", device, "parent", "1:", "protocol", "ip", "prio", "1", "u32",
         "match", "ip", "protocol", "17", "0xff", "match", "ip", "dport", str(b.flood_port), "0xffff",
         "flowid", FLOOD_CLASS],
    ]
