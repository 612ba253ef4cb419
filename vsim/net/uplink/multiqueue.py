"""The default ESXi transmit scheduler: several NIC transmit queues served round robin.

Frames are spread over ``queues`` hardware transmit queues by a hash of
their port (a vNIC stays on one queue, so its frames stay in order); each
queue is a drop-tail FIFO, and the NIC serves the queues that have frames
round robin, so a queue with work gets an equal share of the link with the
other busy queues and more when they need less (water-filling with equal
weights). A frame of one queue may wait for the rest of another queue's
frame on the wire (``non_preemptive``).
"""

import numpy as np

from vsim.net.hclock.waterfill import waterfill
from vsim.net.uplink.base import UplinkScheduler

_HASH = np.uint64(0x9E3779B97F4A7C15)
"""Fibonacci hashing multiplier: spreads consecutive port numbers over the queues."""


class MultiQueueScheduler(UplinkScheduler):
    """``queues`` FIFO transmit queues of ``limit`` each, round robin between them."""

    non_preemptive = True

    def __init__(self, rate_bps, limit, unit="packets", *, queues=4, **kwargs):
        if not (isinstance(queues, int) and queues >= 1):
            raise ValueError(f"queues must be a positive integer, got {queues!r}")
        self.n_queues = queues
        super().__init__(rate_bps, limit, unit, **kwargs)

    def queue_index(self, classes, ports):
        hashed = (np.asarray(ports).astype(np.uint64) * _HASH) >> np.uint64(32)
        return (hashed % np.uint64(self.n_queues)).astype(np.int64)

    def service_rates(self, demand):
        rates = np.empty(self.n_queues)
        for q in range(self.n_queues):
            backlogged = demand.copy()
            backlogged[q] = np.inf
            rates[q] = waterfill(1.0, np.ones(self.n_queues), backlogged)[q]
        return rates
