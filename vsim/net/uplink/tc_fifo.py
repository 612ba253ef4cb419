"""Linux's pfifo and bfifo qdiscs (net/sched/sch_fifo.c): drop-tail FIFOs in front of a link.

The kernel's enqueue tests, for a packet arriving:

- pfifo: ``qlen < limit``, the packets waiting in the qdisc;
- bfifo: ``backlog + qdisc_pkt_len(skb) <= limit``, the bytes waiting plus
  the newcomer's, both counted as ``skb_len`` (``vsim.net.uplink.tc_bytes``:
  MAC header and IP packet, no FCS, padding, preamble or gap).

A FIFO in front of a wire (``shaper="wire"``, the root qdisc of a NIC):
the link serves each frame in its wire time (``vsim.net.frames``: frame,
FCS, preamble and gap). A packet the driver has taken (the frame on the
wire, or in the transmit stage) has left the qdisc and no longer counts,
so the queue here excludes the packet in service from the limit. pfifo with ``limit`` therefore holds
``limit`` frames plus the one in service: the same as ``fifo`` with
``limit + 1`` packets, or the tests' reference ``FifoLink``
(``tests/reference_fifo_link.py``) with ``buffer_packets = limit``. The existing ``fifo`` counts the frame in service
and frame bytes with FCS and padding, so it is not bfifo.

Without a link rate (``rate_bps=inf``, a veth) and without a transmit-stage
cost nothing would ever wait: such a FIFO is refused, as it models nothing.

Under a token bucket (``shaper="tbf"``): the FIFO is the child of a tbf
(``tc qdisc add ... parent 1: pfifo limit N`` under ``tbf rate R``), on a
device with no wire rate of its own (a veth), and ``rate_bps`` is tbf's
token rate. Two things then differ from a FIFO in front of a wire, both
from net/sched/sch_tbf.c:

- the rate charges ``qdisc_pkt_len(skb)`` = ``skb_len`` (MAC header and IP
  packet, no FCS, padding, preamble or gap: 74 B for a G.729 RTP packet
  where the wire takes 98 B): ``tbf_dequeue`` takes
  ``psched_l2t_ns(&q->rate, qdisc_pkt_len(skb))`` of tokens
  (``tc_bytes.token_time``);
- the packet waiting for tokens is still in the FIFO and counts against its
  limit: ``tbf_dequeue`` only peeks the child (``q->qdisc->ops->peek``,
  pfifo's ``qdisc_peek_head``) and dequeues it (``qdisc_dequeue_peeked``)
  once its tokens are there, so ``pfifo_enqueue``'s ``qlen < limit`` counts
  it. pfifo holds ``limit`` packets in all, the one in "service" included.

The bucket's depth (``burst``) is left out: under a steady overload the
bucket stays empty and the token rate is the service rate; after an idle
spell the kernel would let up to ``burst`` bytes through at once, which
``vsim.net.uplink.tbf`` models for tbf's own bfifo. Leaf queues of ``htb``
are such FIFOs too (the head waits for its class's tokens and counts).
"""

import math

import numpy as np

from vsim.net.fluid.queue import FluidPacketQueue
from vsim.net.uplink.base import UplinkScheduler
from vsim.net.uplink.tc_bytes import TXQUEUELEN, skb_units, token_time

SHAPERS = ("wire", "tbf")
"""What serves the FIFO at ``rate_bps``: the wire of a NIC, or a tbf above it on a veth."""


class TcFifoScheduler(UplinkScheduler):
    """A kernel FIFO of ``limit`` in ``unit`` served by ``shaper`` at ``rate_bps``; subclasses
    fix the unit."""

    unit_name: str | None = None

    def __init__(self, rate_bps, limit=TXQUEUELEN, unit=None, *, shaper="wire", rng, **kwargs):
        unit = self.unit_name if unit is None else unit
        if unit != self.unit_name:
            raise ValueError(f"{type(self).__name__} counts {self.unit_name}, got unit={unit!r}")
        if shaper not in SHAPERS:
            raise ValueError(f"shaper must be one of {SHAPERS}, got {shaper!r}")
        if shaper == "tbf" and not math.isfinite(rate_bps):
            raise ValueError(f"a token bucket needs a finite rate, got {rate_bps!r}")
        self.shaper = shaper
        super().__init__(rate_bps, limit, unit, rng=rng, **kwargs)
        if math.isinf(self.rate_bps) and not float(self.work(1500)) > 0:
            raise ValueError("a FIFO on a link with no rate and no transmit cost never queues; "
                             "give rate_bps or cost")
        self.queues = [FluidPacketQueue(limit, unit, rng, excludes_in_service=shaper == "wire")]

    def work(self, ip_bytes):
        """On a wire, the frame's wire time (or the transmit stage's, if longer); under tbf,
        the tokens of its ``skb_len`` (or the transmit stage's time, if longer)."""
        if self.shaper == "wire":
            return super().work(ip_bytes)
        return np.maximum(token_time(ip_bytes, self.rate_bps), self.cost.stage_time(ip_bytes))

    def units(self, ip_bytes):
        """Packets count 1; bytes count ``skb_len``, as the kernel's backlog does."""
        if self.unit == "packets":
            return super().units(ip_bytes)
        return skb_units(ip_bytes)


class PfifoScheduler(TcFifoScheduler):
    """pfifo: at most ``limit`` packets waiting behind the one on the wire, or ``limit`` in all
    under tbf."""

    unit_name = "packets"


class BfifoScheduler(TcFifoScheduler):
    """bfifo: at most ``limit`` bytes (``skb_len``) waiting behind the packet on the wire, or
    in all under tbf."""

    unit_name = "bytes"
