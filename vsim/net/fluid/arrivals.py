"""The packets a fluid's flows are made of, and when they arrive, where the queue draws them.

Where a queue realizes its fluid packet by packet (the joint regime,
``vsim.net.fluid.realized``) each flow's packets arrive as its source
declares:

- ``paced``: evenly spaced, one every ``1 / pps`` seconds, as a sender pacing
  datagrams by a clock does (``vsim probe net``'s flood sleeps to absolute
  deadlines). Only the phase is random, drawn once from the queue's
  generator, and kept while the flow's rate holds, so the spacing stays
  even across the queue's changes of regime;
- ``poisson``: independent arrivals at rate ``pps`` (the superposition of
  many independent senders; what the free-place law of
  ``vsim.net.fluid.free_slots`` assumes);
- ``batched``: written on a sender's timer wake-ups (``WakeupBatches``): it
  wakes every ``period`` seconds, late by a log-normal draw, and writes every
  packet due by then on its schedule of ``1 / pps``, back to back
  ``spacing`` apart (its send call's cost); a share ``stall_share`` of its
  wake-ups come later still, by an exponential of mean ``stall_mean`` (the
  sender kept off a CPU by other work), and then write all that fell due
  meanwhile at once. A bulk sender on a pacing timer
  works so (iperf3's ``--pacing-timer``, 1000 µs by default; ``vsim probe
  net --flood-wakeup``). The first wake-up's phase is random, drawn once, and
  kept, as a paced flow's is, while the flow's rate holds; or, with
  ``phase``, the wake-ups are on the run's clock at ``phase + k * period``
  (a sender timed from the same start as the run's other timers, as the
  probe's flood and voice are). With ``send_buffer`` the sender's socket
  holds at most that many of its packets unsent (its send buffer over each
  packet's truesize): a write finding as many of them still waiting in the
  queue blocks until fewer than half are left, then the batch goes on from
  there, and the queue that draws the packets decides when
  (``vsim.net.fluid.realized``).

A fluid known only by its totals (no flows declared) is one Poisson flow.
"""

import math
from typing import Optional
from dataclasses import dataclass

import numpy as np

ARRIVALS = ("paced", "poisson", "batched")
"""The arrival processes a source may declare."""


@dataclass(frozen=True)
class WakeupBatches:
    """A sender's write pattern: a wake-up every ``period`` s, late by a log-normal of
    ``median`` s and shape ``sigma`` (a share ``stall_share`` of them later still by an
    exponential of mean ``stall_mean``), writing what is due ``spacing`` s apart; its socket
    holding at most ``send_buffer`` packets unsent (0: no limit)."""

    period: float
    median: float
    sigma: float
    spacing: float
    stall_share: float = 0.0
    stall_mean: float = 0.0
    phase: Optional[float] = None
    send_buffer: float = 0.0

    def __post_init__(self):
        if not (self.period > 0 and self.median >= 0 and self.sigma >= 0 and self.spacing >= 0
                and 0 <= self.stall_share <= 1 and self.stall_mean >= 0 and self.send_buffer >= 0
                and (self.phase is None or 0 <= self.phase < self.period)):
            raise ValueError(f"a wake-up pattern needs a period > 0, a stall share within [0, 1] "
                             f"and the rest >= 0, got {self}")


DUE_SLACK = 1e-9
"""Packets of slack in counting what is due at a wake-up: one due at the very instant (up to
rounding) is written then, as the probe's sender counts it."""


class BatchedArrivals:
    """The arrivals of one flow of ``pps`` written on ``batches``'s wake-ups from ``t``.

    Packet j is due at ``origin + j / pps``; wake-up k comes at ``origin + k * period``
    plus its lateness, never before the previous batch's last write, and writes every
    packet due by then not yet written.
    """

    BLOCK = 1024

    def __init__(self, rng, pps, batches, t):
        self.rng, self.pps, self.b = rng, float(pps), batches
        if batches.phase is None:
            self.origin = t + rng.random() * batches.period
        else:
            self.origin = batches.phase + math.ceil((t - batches.phase) / batches.period) * batches.period
        self.k = 0
        self.sent = 0
        self.pending = np.empty(0)
        self._late = []
        self.next_wake = self.origin + self._lateness()
        self._left = 0  # one write at a time (``peek``, ``wrote``): writes left in this batch
        self._at = 0.0  # ... the next one's time
        self._boundary = 0.0  # ... and the next wake-up's, once this batch is written

    def _lateness(self):
        """One wake-up's lateness: the log-normal, plus a stall for a share of them."""
        if not self._late:
            b, n = self.b, self.BLOCK
            late = self.rng.lognormal(math.log(b.median), b.sigma, n) if b.median > 0 else np.zeros(n)
            if b.stall_share > 0 and b.stall_mean > 0:
                late += np.where(self.rng.random(n) < b.stall_share, self.rng.exponential(b.stall_mean, n), 0.0)
            self._late = late.tolist()
        return self._late.pop()

    def times(self, until):
        """The arrivals before ``until`` not yet given, sorted."""
        chunks = [self.pending]
        period, spacing = self.b.period, self.b.spacing
        while self.next_wake < until:
            wake = self.next_wake
            due = int(math.floor((wake - self.origin) * self.pps + DUE_SLACK)) + 1
            count = due - self.sent
            last = wake
            if count > 0:
                chunk = wake + spacing * np.arange(count)
                chunks.append(chunk)
                last = float(chunk[-1])
                self.sent = due
            self.k += 1
            self.next_wake = max(self.origin + self.k * period + self._lateness(), last + spacing)
        every = np.concatenate(chunks)
        cut = int(np.searchsorted(every, until, side="left"))
        self.pending = every[cut:]
        return every[:cut]

    def peek(self):
        """When the next write falls, one write at a time: the times ``times`` gives, for a
        queue that may hold a write back (a blocked send, ``wrote``). A flow uses one way or
        the other, never both."""
        period, spacing = self.b.period, self.b.spacing
        while self._left == 0:
            wake = self.next_wake
            due = int(math.floor((wake - self.origin) * self.pps + DUE_SLACK)) + 1
            count = due - self.sent
            self.k += 1
            boundary = self.origin + self.k * period + self._lateness()
            if count > 0:
                self._left, self._at, self._boundary, self.sent = count, wake, boundary, due
            else:
                self.next_wake = max(boundary, wake + spacing)
        return self._at

    def wrote(self, at):
        """The write ``peek`` gave was made at ``at`` (later, when its send blocked): the batch
        goes on ``spacing`` after it, and the next wake-up comes no earlier."""
        spacing = self.b.spacing
        self._left -= 1
        if self._left:
            self._at = at + spacing
        else:
            self.next_wake = max(self._boundary, at + spacing)


@dataclass(frozen=True)
class FloodPackets:
    """One entry per flow: packets/s, each packet's link work and limit units, whether it is
    paced (else Poisson, or batched where ``batches`` holds its wake-up pattern), and a key
    naming the flow (its phase is kept under that key)."""

    pps: np.ndarray
    work: np.ndarray
    units: np.ndarray
    paced: np.ndarray
    keys: tuple
    batches: tuple = ()

    def batches_of(self, i):
        """Flow ``i``'s wake-up pattern, None when it has none."""
        return self.batches[i] if self.batches else None

    def any_regular(self):
        """Whether some flow's packets are not Poisson (paced, or batched on wake-ups)."""
        return bool(np.any(self.paced)) or any(b is not None for b in self.batches)

    @classmethod
    def of(cls, pps, work, units, paced, keys, batches=None):
        pps = np.atleast_1d(np.asarray(pps, dtype=float))
        shape = pps.shape
        work = np.broadcast_to(np.asarray(work, dtype=float), shape).copy()
        units = np.broadcast_to(np.asarray(units, dtype=float), shape).copy()
        paced = np.broadcast_to(np.asarray(paced, dtype=bool), shape).copy()
        keys = tuple(keys)
        if len(keys) != pps.size:
            raise ValueError("every flow needs a key")
        if not (np.all(pps > 0) and np.all(work > 0) and np.all(units > 0)):
            raise ValueError("flows realized as packets need positive rates, work and units")
        batches = tuple(batches) if batches is not None else ()
        if batches and len(batches) != pps.size:
            raise ValueError("a wake-up pattern (or None) for every flow, or none at all")
        return cls(pps, work, units, paced, keys, batches)

    @classmethod
    def none(cls):
        """No flood at all."""
        return cls.of(np.zeros(0), 1.0, 1.0, False, ())

    @classmethod
    def poisson(cls, pps, work, units):
        """A fluid known only by its totals: one Poisson flow of its mean packet."""
        return cls.of(pps, work, units, False, (None,))

    def __len__(self):
        return self.pps.size


def first_paced(rng, t, period, resumed=None):
    """The first arrival at or after ``t`` of a paced flow: on the grid of ``resumed`` (an
    earlier next arrival of the same flow at the same rate), else at a random phase."""
    if resumed is None:
        return t + rng.random() * period
    if resumed >= t:
        return resumed
    return resumed + math.ceil((t - resumed) / period) * period


def paced_times(next_at, period, until):
    """Arrivals from ``next_at`` every ``period`` before ``until``, and the next one after."""
    if next_at >= until:
        return np.empty(0), next_at
    count = int(math.ceil((until - next_at) / period))
    times = next_at + period * np.arange(count)
    if times[-1] >= until:  # rounding at the edge: that one belongs to the next span
        times = times[:-1]
    return times, next_at + period * times.size


def poisson_times(rng, pps, start, until):
    """Sorted Poisson arrivals at ``pps`` in [``start``, ``until``)."""
    span = until - start
    count = rng.poisson(pps * span) if span > 0 and pps > 0 else 0
    return np.sort(rng.uniform(start, until, count)) if count else np.empty(0)
