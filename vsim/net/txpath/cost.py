"""Per-packet hypervisor work in the transmit path and the packet-rate ceiling it sets.

Between a vNIC and the wire every frame passes a serial stage of the
hypervisor (the uplink's transmit: vSwitch forwarding, the uplink scheduler,
the driver posting the descriptor) that costs ``per_packet`` seconds plus
``per_byte`` seconds per IP byte. The stage and the wire work as a pipeline,
so the uplink serves a frame in the longer of its wire time and its stage
time: small frames at a high packet rate are limited by the stage before
the link is full.

Seed 000, Fig 6: four VMs flood 390 K packets/s at 880 Mb/s (about 94 % of
1 GbE on the wire) beside 120 voice streams (6 K packets/s); the voice loses
over 500 packets/s, 8.3 % of its packets, while the link is not full. A
drop-tail queue in front of a stage that serves ``C`` packets/s loses
``1 - C / offered`` of every flow's packets, so the ceiling is

    C = 396 K/s x (1 - 500/6000) = 363 K packets/s,

a per-packet cost of 2.75 µs (``FIG6_PER_PACKET``), fitted to claim
``voip5.fig6.loss_pps.without_netioc``. It is close to the 3 µs per frame
(about 10 k cycles at 3.4 GHz) assumed for the vNIC transmit path in
``models/vnics/vmxnet3.toml``. ``per_byte`` has no source in the studies:
a parameter to fit, zero by default.
"""

from dataclasses import dataclass

import numpy as np

from vsim.net.frames import serialization_time


@dataclass(frozen=True)
class PathCost:
    """Seconds of the serial transmit stage per frame and per IP byte."""

    per_packet: float = 0.0
    per_byte: float = 0.0

    def __post_init__(self):
        if not (self.per_packet >= 0 and self.per_byte >= 0):
            raise ValueError("per-packet and per-byte costs must be non-negative")

    def stage_time(self, ip_bytes):
        """Seconds the stage spends on a frame of ``ip_bytes``."""
        return self.per_packet + self.per_byte * np.asarray(ip_bytes, dtype=float)


def service_time(ip_bytes, rate_bps, cost=PathCost()):
    """Seconds of uplink per frame: the longer of its wire time and its stage time."""
    return np.maximum(np.asarray(serialization_time(np.asarray(ip_bytes), rate_bps), dtype=float),
                      cost.stage_time(ip_bytes))


def ceiling_from_loss(offered_pps, loss_fraction):
    """The packet rate a drop-tail bottleneck serves when it loses ``loss_fraction`` of ``offered_pps``."""
    if not 0 <= loss_fraction < 1:
        raise ValueError(f"loss_fraction must be in [0, 1), got {loss_fraction!r}")
    return offered_pps * (1.0 - loss_fraction)


def per_packet_for_ceiling(ceiling_pps):
    """The per-packet stage cost that makes the stage saturate at ``ceiling_pps``."""
    if not ceiling_pps > 0:
        raise ValueError(f"ceiling_pps must be positive, got {ceiling_pps!r}")
    return 1.0 / ceiling_pps


FIG6_OFFERED_PPS = 390_000 + 120 * 50
"""Seed 000, Fig 6: the flood's 390 K packets/s and 120 G.729 streams at 50 packets/s."""

FIG6_VOICE_LOSS = 500 / (120 * 50)
"""Seed 000, Fig 6: voice loss 'constantly over 500 packets per second' of 6,000."""

FIG6_PER_PACKET = per_packet_for_ceiling(ceiling_from_loss(FIG6_OFFERED_PPS, FIG6_VOICE_LOSS))
"""2.75 µs: fitted to ``voip5.fig6.loss_pps.without_netioc`` (see the module docstring)."""
