"""Linux's pfifo and bfifo qdiscs (net/sched/sch_fifo.c): drop-tail FIFOs in front of a link.

The kernel's enqueue tests, for a packet arriving:

- pfifo: ``qlen < limit``, the packets waiting in the qdisc;
- bfifo: ``backlog + qdisc_pkt_len(skb) <= limit``, the bytes waiting plus
  the newcomer's, both counted as ``skb_len`` (``vsim.net.uplink.tc_bytes``:
  MAC header and IP packet, no FCS, padding, preamble or gap).

A packet the driver has taken (the frame on the wire, or in the transmit
stage) has left the qdisc and no longer counts, so the queue here excludes
the packet in service from the limit. pfifo with ``limit`` therefore holds
``limit`` frames plus the one in service: the same as ``fifo`` with
``limit + 1`` packets, or ``vsim.net.fifo_link.FifoLink`` with
``buffer_packets = limit``. The existing ``fifo`` counts the frame in service
and frame bytes with FCS and padding, so it is not bfifo.

Without a link rate (``rate_bps=inf``, a veth) and without a transmit-stage
cost nothing would ever wait: such a FIFO is refused, as it models nothing.
Leaf queues of ``htb`` and the queue of ``tbf`` are these FIFOs too, but
there the packet at the head waits in the qdisc for tokens and counts.
"""

import math

import numpy as np

from vsim.net.fluid.queue import FluidPacketQueue
from vsim.net.uplink.base import UplinkScheduler
from vsim.net.uplink.tc_bytes import TXQUEUELEN, skb_len


class TcFifoScheduler(UplinkScheduler):
    """A kernel FIFO of ``limit`` in ``unit``; subclasses fix the unit."""

    unit_name = None

    def __init__(self, rate_bps, limit=TXQUEUELEN, unit=None, *, rng, **kwargs):
        unit = self.unit_name if unit is None else unit
        if unit != self.unit_name:
            raise ValueError(f"{type(self).__name__} counts {self.unit_name}, got unit={unit!r}")
        super().__init__(rate_bps, limit, unit, rng=rng, **kwargs)
        if math.isinf(self.rate_bps) and not float(self.work(1500)) > 0:
            raise ValueError("a FIFO on a link with no rate and no transmit cost never queues; "
                             "give rate_bps or cost")
        self.queues = [FluidPacketQueue(limit, unit, rng, excludes_in_service=True)]

    def units(self, ip_bytes):
        """Packets count 1; bytes count ``skb_len``, as the kernel's backlog does."""
        if self.unit == "packets":
            return super().units(ip_bytes)
        return np.asarray(skb_len(np.asarray(ip_bytes)), dtype=float)


class PfifoScheduler(TcFifoScheduler):
    """pfifo: at most ``limit`` packets waiting behind the one being sent."""

    unit_name = "packets"


class BfifoScheduler(TcFifoScheduler):
    """bfifo: at most ``limit`` bytes (``skb_len``) waiting behind the packet being sent."""

    unit_name = "bytes"
