"""A drop-tail FIFO link for frames of one size, resolved in O(1) per burst.

Voice frames of one codec all have the same size, and a guest hands them to
the NIC in bursts that arrive at one instant. For that case the queue is fully
described by the time the link will be free: the frames in the system at time
t are ``ceil((busy_until - t) / service)``. This is the hot path of the
simulator (hundreds of thousands of bursts per run), so it keeps two floats
instead of per-frame arrays. The tests check it against a general FIFO for
frames of mixed sizes, resolved frame by frame (``tests/reference_fifo_link.py``).
"""

import math
from typing import Any, Final, Tuple

from vsim.net.frames import serialization_time

DRAINED: Final = 1e-6
"""A frame within this fraction of its service time of leaving counts as gone,
so rounding in running sums of service times never invents a waiting frame."""


class UniformFifo:
    """Drop-tail FIFO of ``buffer_packets`` places before a ``rate_bps`` link, one frame size."""

    def __init__(self, rate_bps: float, buffer_packets: int, latency: float, ip_bytes: Any) -> None:
        self.service = float(serialization_time(ip_bytes, rate_bps))
        self.capacity = buffer_packets + 1
        self.latency = latency
        self.busy_until = -math.inf
        self.offered = 0
        self.sent = 0
        self.dropped = 0
        self.busy_time = 0.0

    @staticmethod
    def supports_closed_form() -> bool:
        """The closed-form engine may drive it: it needs nothing but the bursts in time order."""
        return True

    def in_system(self, t: float) -> int:
        """Frames queued or in transmission at time ``t``."""
        if self.busy_until <= t:
            return 0
        return math.ceil((self.busy_until - t) / self.service - DRAINED)

    def offer_burst(self, t: float, count: int) -> Tuple[int, float, float]:
        """``count`` frames arrive at ``t``: return (accepted, first far-end arrival, spacing).

        The first ``accepted`` frames of the burst are queued; the rest find
        the buffer full and are dropped. Accepted frame i reaches the far end
        at ``first + i * spacing``.
        """
        accepted = min(count, max(0, self.capacity - self.in_system(t)))
        start = t if self.busy_until < t else self.busy_until
        self.offered += count
        self.sent += accepted
        self.dropped += count - accepted
        if accepted:
            self.busy_until = start + accepted * self.service
            self.busy_time += accepted * self.service
        return accepted, start + self.service + self.latency, self.service
