"""Interrupt coalescing and how a scheduler that interleaves ports defeats it.

A guest learns that its frames have left through completion interrupts. The
vNIC raises one per *batch* of completions and at most ``max_rate`` per
second (vmxnet3 rate-based coalescing, "the default interrupt rate is 4000
per second", seed 001 Exp 3); the NIC itself holds transmit completions for up to
``window`` (Net.NetSchedCoalesceTxUsecs, 33 µs by default, seed 001 "Handling
Latency Sensitive Traffic"), so completions closer together than that share
one signal.

How big a batch is depends on how the uplink orders frames. The default
scheduler sends a vNIC's burst (a TSO segment's frames, a ring's worth)
back to back: one run of ``burst`` frames. NetIOC interleaves the backlogged
ports, ``quantum`` frames per visit (seed 001 Exp 3: "NetIOC does a very
good job of interleaving packets from each VM"), so a port's frames leave
in runs of ``min(burst, quantum)`` separated by the other ports' runs; only
runs closer than ``window`` merge. Shorter batches mean more interrupts
until the rate cap binds, hence more CPU (Exp 3, Fig 5: 4-5 % with up to
24 VMs, 12 % at 100) and, because every frame of a port now waits for the
scheduler's pass over the others, a few µs more latency (Fig 6: 4-5 µs).

The interrupts a vNIC raises from this (``vsim.net.txpath.completions``)
cost its guest CPU (``vsim.guest.sender_cpu``). The cost per interrupt and
NetIOC's quantum have no published value: they are fitted to the claims
``netioc6.exp3.cpu_overhead.*`` (models/vnics/vmxnet3.toml,
models/nics/intel_82599_10gbe.toml).
"""

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Coalescing:
    """The vNIC's interrupt-rate cap and the NIC's completion hold time."""

    max_rate: float = 4000.0
    """Interrupts/s per vNIC, vmxnet3's default rate-based coalescing (seed 001 Exp 3)."""

    window: float = 33e-6
    """Net.NetSchedCoalesceTxUsecs default, seconds (seed 001)."""


def run_length(burst, competitors, quantum=None):
    """Frames of one port that leave back to back.

    ``burst`` frames are handed over together; with ``quantum`` (an
    interleaving scheduler) and ``competitors`` other backlogged ports the
    run is cut to ``quantum``; without (the default scheduler) the burst
    leaves whole.
    """
    if quantum is None or competitors == 0:
        return float(burst)
    return float(min(burst, quantum))


def completion_batch(run, competitors, service, window):
    """Frames per completion signal: runs one round apart merge within ``window``.

    A round of ``competitors + 1`` backlogged ports lasts ``(competitors + 1)
    * run * service`` seconds; a port's runs that end within ``window`` of
    the first are signalled together.
    """
    round_time = (competitors + 1) * run * service
    merged = 1 + math.floor(window / round_time) if round_time > 0 else 1
    return run * merged


def interrupt_rate(packet_rate, batch, coalescing=Coalescing()):
    """Interrupts/s for ``packet_rate`` completions/s in batches of ``batch``, under the cap."""
    return np.minimum(coalescing.max_rate, np.asarray(packet_rate, dtype=float) / batch)
