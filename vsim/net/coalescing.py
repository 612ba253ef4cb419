"""Virtual-NIC interrupt coalescing, after the vmxnet3 modes.

A virtual NIC does not interrupt the guest for every received packet: it holds
packets and raises one interrupt for a group, trading latency for CPU. The
interrupt handler takes every packet pending when it runs, so all packets
pending at an interrupt are delivered at its time.

Modes:

``"rate"``
    Adaptive, vmxnet3's default: at most ``max_rate_hz`` interrupts per second.
    An interrupt fires at the first pending arrival if ``1 / max_rate_hz`` has
    passed since the previous interrupt, otherwise at previous + ``1 / max_rate_hz``.
``"static"``
    An interrupt fires when ``batch`` packets are pending, or ``timeout``
    seconds after the first pending packet arrived, whichever comes first.
``"off"``
    Every packet is delivered, with its own interrupt, when it arrives.

Arrivals are resolved a call at a time, one interrupt per loop step (never one
step per packet). A call's timeouts are resolved as if no packet arrived after
the call's last one, so a caller offers all packets of a burst in one call.
A packet of a later call that arrives before an interrupt already announced is
delivered by that interrupt.
"""

import math

import numpy as np

MODES = ("rate", "static", "off")


class InterruptCoalescer:
    """Turns packet arrival times at a virtual NIC into delivery times to the guest.

    ``interrupts`` counts the interrupts raised so far.
    """

    def __init__(self, mode, max_rate_hz=4000.0, batch=64, timeout=0.004):
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
        if not max_rate_hz > 0:
            raise ValueError(f"max_rate_hz must be positive, got {max_rate_hz!r}")
        if int(batch) != batch or batch < 1:
            raise ValueError(f"batch must be a positive integer, got {batch!r}")
        if not timeout >= 0:
            raise ValueError(f"timeout must be non-negative, got {timeout!r}")
        self.mode = mode
        self.max_rate_hz = float(max_rate_hz)
        self.batch = int(batch)
        self.timeout = float(timeout)
        self.interrupts = 0
        self._last_interrupt = -math.inf
        self._last_arrival = -math.inf

    def deliver(self, times):
        """Delivery times of packets arriving at ``times`` (non-decreasing, not before earlier calls)."""
        times = np.asarray(times, dtype=float)
        if times.ndim != 1:
            raise ValueError("times must be a one-dimensional array")
        if times.size and not (times[0] >= self._last_arrival and np.all(np.diff(times) >= 0)):
            raise ValueError("arrival times must be non-decreasing and not earlier than those already delivered")
        if not times.size:
            return times.copy()
        self._last_arrival = times[-1]
        if self.mode == "off":
            self.interrupts += times.size
            return times.copy()
        delivered = np.empty_like(times)
        pending = int(np.searchsorted(times, self._last_interrupt, side="right"))
        delivered[:pending] = self._last_interrupt
        while pending < times.size:
            fire = self._next_interrupt(times, pending)
            taken = int(np.searchsorted(times, fire, side="right"))
            delivered[pending:taken] = fire
            self.interrupts += 1
            self._last_interrupt = fire
            pending = taken
        return delivered

    def _next_interrupt(self, times, first):
        """Time of the interrupt that delivers the packet at index ``first``, the oldest pending."""
        if self.mode == "rate":
            return max(times[first], self._last_interrupt + 1.0 / self.max_rate_hz)
        deadline = times[first] + self.timeout
        full = first + self.batch - 1
        return min(times[full], deadline) if full < times.size else deadline
