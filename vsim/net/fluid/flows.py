"""Bulk flows as arrays: what each offers to the uplink from a given time on.

A flow is a rate of packets of one size from one port in one traffic class.
``elastic`` flows (TCP) adapt to what the scheduler leaves them and never
overflow a queue; inelastic ones (UDP floods) keep offering and are dropped.
``discrete`` flows are not fluid: they declare the rate of packets their
source hands to ``transmit`` one by one, so that the allocation and the
queue's overload account for them. ``counted_bytes`` is what a scheduler
that meters bytes in software (NetIOC) counts per wire packet: the packet as
the virtual switch holds it, Ethernet header and IP packet, a TSO segment's
share for a TCP sender (``vsim.net.sources.tcp_stream``). ``in_flight`` is
the packets a window-limited elastic flow keeps outstanding and ``rtt`` its
round trip without queueing: what its rate times ``rtt`` does not hold waits
in its queue (0: a flow taken as never queueing).
"""

from dataclasses import dataclass

import numpy as np

from vsim.net.frames import packet_bytes


@dataclass(frozen=True)
class Flows:
    """Struct of arrays, one entry per flow."""

    pps: np.ndarray
    ip_bytes: np.ndarray
    classes: np.ndarray
    ports: np.ndarray
    elastic: np.ndarray
    discrete: np.ndarray
    counted_bytes: np.ndarray
    in_flight: np.ndarray
    rtt: np.ndarray

    @classmethod
    def of(cls, pps, ip_bytes, classes, ports, elastic=False, discrete=False, counted_bytes=None,
           in_flight=0.0, rtt=0.0):
        """Flows from sequences (or scalars broadcast to the length of ``pps``); ``counted_bytes``
        defaults to each packet's Ethernet header and IP packet, ``in_flight`` and ``rtt`` to 0
        (no flow keeps packets queued)."""
        pps = np.atleast_1d(np.asarray(pps, dtype=float))
        shape = pps.shape
        ip_bytes = np.broadcast_to(np.asarray(ip_bytes, dtype=float), shape).copy()
        classes = np.broadcast_to(np.asarray(classes, dtype=np.int64), shape).copy()
        ports = np.broadcast_to(np.asarray(ports, dtype=np.int64), shape).copy()
        elastic = np.broadcast_to(np.asarray(elastic, dtype=bool), shape).copy()
        discrete = np.broadcast_to(np.asarray(discrete, dtype=bool), shape).copy()
        counted_bytes = (packet_bytes(ip_bytes) if counted_bytes is None else
                         np.broadcast_to(np.asarray(counted_bytes, dtype=float), shape).copy())
        in_flight = np.broadcast_to(np.asarray(in_flight, dtype=float), shape).copy()
        rtt = np.broadcast_to(np.asarray(rtt, dtype=float), shape).copy()
        if pps.ndim != 1:
            raise ValueError("flows are one-dimensional arrays")
        if not (np.all(np.isfinite(pps)) and np.all(pps >= 0)):
            raise ValueError("flow packet rates must be finite and non-negative")
        if not np.all(ip_bytes > 0):
            raise ValueError("flow packet sizes must be positive")
        if not np.all(counted_bytes > 0):
            raise ValueError("counted bytes per packet must be positive")
        if not (np.all(in_flight >= 0) and np.all(rtt >= 0)):
            raise ValueError("packets in flight and round trips must be non-negative")
        return cls(pps, ip_bytes, classes, ports, elastic, discrete, counted_bytes, in_flight, rtt)

    @classmethod
    def none(cls):
        return cls.of(np.zeros(0), 1, 0, 0)

    def __len__(self):
        return self.pps.size
