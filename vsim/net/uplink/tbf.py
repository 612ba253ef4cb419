"""Linux's tbf qdisc (net/sched/sch_tbf.c): a token bucket shaping one bfifo queue.

The kernel's rules: tokens (bytes) accrue at ``rate`` up to ``burst``; the
packet at the head of the inner bfifo leaves when the bucket holds its
charged length (``tc_bytes.charged_bytes``: ``skb_len`` plus ``overhead``),
which it then takes; it waits in the bfifo, and counts against ``limit``
bytes of ``skb_len``, until then. A packet whose charged length exceeds
``burst`` (or ``mtu`` with a peak rate) can never leave and is dropped on
arrival (the kernel's ``max_size``, ``tc_bytes.largest_packet``). With
``peakrate`` a second bucket of depth ``mtu`` at ``peakrate`` must hold the
length too. tc's ``latency`` option is ``queue_latency`` here: the limit is
then ``rate * latency + burst`` bytes (with a peak rate, at most
``peakrate * latency + mtu``), as tc computes it.

Why a queue at ``rate`` gives the departures exactly: a bucket of depth
``B`` at rate ``r`` is a GCRA, and packets shaped greedily by it leave at

    d_i = max(a_i, v_i - B/r),

where ``v_i`` is the departure of the same packets from a FIFO served at
``r`` (network calculus: a greedy shaper with arrival curve ``B + r t``;
with a peak bucket the bound of its own FIFO at ``peakrate`` joins the
max). So the packets go through the usual ``FluidPacketQueue`` served at
the token rate, and each frame is released ``B/r`` before it would leave
that queue, never before it arrives: after idle, up to ``burst`` bytes pass
at once, then the rate holds. Fluid flows see the same queue: a long-run
rate of ``min(offered, rate)`` and, under overload, a loss of
``(offered - rate) / offered`` to drop-tail.

Approximations: the queue at ``r`` holds a packet until ``v_i``, up to
``B/r`` longer than the bfifo does, so its limit is ``limit + burst``; under
a steady overload that is exact (the bucket is empty), after idle a frame's
admission can differ by at most one frame. The peak bucket sees the frames
handed to ``transmit`` only (a fluid below the rate barely touches it).

The link under the qdisc: a veth has no wire rate (``rate_bps=inf``) and a
released frame leaves at once. On a finite link (or with a transmit-stage
cost) the released frames then take their link time one after another,
which also bounds the queue's service.
"""

import math

import numpy as np

from vsim.core.units import BITS_PER_BYTE
from vsim.net.fluid.queue import FluidPacketQueue
from vsim.net.uplink.base import UplinkScheduler
from vsim.net.uplink.tc_bytes import (LINKLAYERS, charged_bytes, largest_packet, skb_units,
                                      token_time)


def fifo_departures(arrivals, service, free_at):
    """Departures from a FIFO server free from ``free_at``: Lindley's recursion, vectorised."""
    done = np.cumsum(service)
    start = np.maximum.accumulate(np.maximum(arrivals - (done - service), free_at)) \
        if arrivals.size else arrivals
    return done + start


def tbf_limit_for_latency(rate, burst, queue_latency, peakrate=None, mtu=None):
    """tc's limit (bytes) for ``latency``: what the bucket lets through in that time."""
    limit = rate / BITS_PER_BYTE * queue_latency + burst
    if peakrate is not None:
        limit = min(limit, peakrate / BITS_PER_BYTE * queue_latency + mtu)
    return limit


class TbfScheduler(UplinkScheduler):
    """tbf of ``rate`` b/s and ``burst`` bytes over a bfifo of ``limit`` bytes, on a link of
    ``rate_bps`` (``inf`` for a veth)."""

    def __init__(self, rate_bps, limit=None, unit="bytes", *, rate, burst, peakrate=None, mtu=None,
                 queue_latency=None, overhead=0, linklayer="ethernet", rng, **kwargs):
        if unit != "bytes":
            raise ValueError(f"tbf's limit counts bytes, got unit={unit!r}")
        if not (0 < rate < math.inf):
            raise ValueError(f"rate must be a positive finite b/s, got {rate!r}")
        if not burst > 0:
            raise ValueError(f"burst must be positive bytes, got {burst!r}")
        if peakrate is not None and not (peakrate > rate and mtu is not None and mtu > 0):
            raise ValueError("peakrate must exceed rate and come with a positive mtu")
        if linklayer not in LINKLAYERS:
            raise ValueError(f"linklayer must be one of {LINKLAYERS}, got {linklayer!r}")
        if (limit is None) == (queue_latency is None):
            raise ValueError("give tbf exactly one of limit (bytes) and queue_latency (s)")
        if limit is None:
            limit = tbf_limit_for_latency(rate, burst, queue_latency, peakrate, mtu)
        if not limit > 0:
            raise ValueError(f"limit must be positive bytes, got {limit!r}")
        self.token_rate = float(rate)
        self.burst = float(burst)
        self.peakrate = peakrate
        self.mtu = mtu
        self.limit = float(limit)
        self.overhead = overhead
        self.linklayer = linklayer
        self.max_size = largest_packet(self.burst, overhead, linklayer)
        if peakrate is not None:
            self.max_size = min(self.max_size, largest_packet(mtu, overhead, linklayer))
        super().__init__(rate_bps, limit, unit, rng=rng, **kwargs)
        self.queues = [FluidPacketQueue(self.limit + self.burst, "bytes", rng)]
        self.oversize_dropped = 0
        self._peak_free = -math.inf
        self._link_free = -math.inf
        self._out = np.empty(0)

    def link_work(self, ip_bytes):
        """Time the link (and transmit stage) under the qdisc takes per frame."""
        return super().work(ip_bytes)

    def work(self, ip_bytes):
        """Service at the token rate, or at the link's pace where that is slower."""
        tokens = token_time(ip_bytes, self.token_rate, self.overhead, self.linklayer)
        return np.maximum(tokens, self.link_work(ip_bytes))

    def units(self, ip_bytes):
        """Bytes count ``skb_len``: tbf's limit counts the bytes it holds, as the kernel's does."""
        return skb_units(ip_bytes)

    def transmit(self, times, ip_bytes, classes, ports):
        times = self.checked_times(times)
        out = np.full(times.size, np.nan)
        if not times.size:
            return out
        ip_bytes = np.broadcast_to(np.asarray(ip_bytes, dtype=float), times.shape)
        fits = self.units(ip_bytes) <= self.max_size
        self.oversize_dropped += int(np.count_nonzero(~fits))
        virtual = np.full(times.size, np.nan)
        virtual[fits] = self.queues[0].offer(times[fits], self.work(ip_bytes[fits]),
                                             self.units(ip_bytes[fits]))
        kept = np.flatnonzero(~np.isnan(virtual))
        self.t = float(times[-1])
        if not kept.size:
            return out
        arrivals = times[kept]
        length = charged_bytes(self.units(ip_bytes[kept]), self.overhead, self.linklayer)
        release = np.maximum(arrivals, virtual[kept] - self.burst * BITS_PER_BYTE / self.token_rate)
        if self.peakrate is not None:
            peak = fifo_departures(arrivals, length * BITS_PER_BYTE / self.peakrate,
                                   self._peak_free)
            self._peak_free = float(peak[-1])
            release = np.maximum(release, peak - self.mtu * BITS_PER_BYTE / self.peakrate)
        link = self.link_work(ip_bytes[kept])
        if np.any(link > 0):
            release = fifo_departures(release, link, self._link_free)
            self._link_free = float(release[-1])
        out[kept] = release
        self._out = np.concatenate((self._out[self._out > self.t], release))
        return out + self.latency

    @property
    def frames_offered(self):
        return super().frames_offered + self.oversize_dropped

    @property
    def frames_dropped(self):
        return super().frames_dropped + self.oversize_dropped

    def frames_in_system(self, t):
        """Frames accepted and not yet released (and off the link) at ``t``."""
        return int(np.count_nonzero(self._out > t))
