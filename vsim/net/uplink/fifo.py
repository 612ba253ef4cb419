"""One drop-tail FIFO queue in front of the uplink: every frame and flow shares it.

What the voip-vsphere5 study calls "without NetIOC": voice and flood in one
queue, served in arrival order; under overload every flow loses the same
fraction of its packets.
"""

from vsim.net.uplink.base import UplinkScheduler


class FifoScheduler(UplinkScheduler):
    """A single queue of ``limit`` packets or bytes (``unit``), served at the full link rate."""

    n_queues = 1
