"""One layer of a network path and its CPU costs, in seconds of the CPU that runs it.

A layer is a guest's TCP/IP stack, a virtual device, the virtual switch or a
physical NIC's driver. Each costs ``*_per_packet`` seconds per packet it
passes (a TSO segment counts once) and ``*_per_byte`` per byte of data;
interrupts cost ``interrupt`` each, one per ``frames_per_interrupt`` frames
under load, at most ``interrupt_hz`` a second (a throttled NIC). Costs are
CPU time; ``wake_latency`` is time only (an idle vCPU being woken).
"""

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Layer:
    """A layer's costs (s per packet, s per byte, s per interrupt) and settings."""

    name: str
    tx_per_packet: float = 0.0
    tx_per_byte: float = 0.0
    rx_per_packet: float = 0.0
    rx_per_byte: float = 0.0
    interrupt: float = 0.0
    frames_per_interrupt: float = 1.0
    interrupt_hz: float = math.inf
    wake_latency: float = 0.0
    wakeup: float = 0.0
    segment_per_frame: float = 0.0
    copy_per_byte: float = 0.0
    ack_every: int = 2
    window_bytes: float = math.inf
    tso: bool = False

    def __post_init__(self):
        for name in ("tx_per_packet", "tx_per_byte", "rx_per_packet", "rx_per_byte", "interrupt",
                     "wake_latency", "wakeup", "segment_per_frame", "copy_per_byte"):
            if not getattr(self, name) >= 0:
                raise ValueError(f"{self.name}: {name} must be at least 0, got {getattr(self, name)!r}")
        if not (self.frames_per_interrupt >= 1 and self.interrupt_hz > 0 and self.ack_every >= 1
                and self.window_bytes > 0):
            raise ValueError(f"{self.name}: frames_per_interrupt, ack_every >= 1; interrupt_hz, "
                             "window_bytes > 0")

    def cpu_seconds(self, packets, data_bytes, direction="tx"):
        """CPU time of ``packets`` packets carrying ``data_bytes`` bytes of data in ``direction``:
        packets x per-packet cost + bytes x per-byte cost."""
        if direction == "tx":
            return packets * self.tx_per_packet + data_bytes * self.tx_per_byte
        return packets * self.rx_per_packet + data_bytes * self.rx_per_byte


@dataclass(frozen=True)
class Work:
    """What one CPU does per byte of data delivered: ``seconds_per_byte`` of per-packet and
    per-byte work, and ``interrupts_per_byte`` interrupts of ``interrupt_cost`` each, at most
    ``interrupt_hz`` a second. ``what`` says which layer and why."""

    cpu: str
    seconds_per_byte: float
    what: str
    interrupts_per_byte: float = 0.0
    interrupt_cost: float = 0.0
    interrupt_hz: float = math.inf

    def load(self, rate):
        """Share of its CPU this work takes at ``rate`` bytes of data per second."""
        interrupts = min(rate * self.interrupts_per_byte, self.interrupt_hz)
        return rate * self.seconds_per_byte + interrupts * self.interrupt_cost
