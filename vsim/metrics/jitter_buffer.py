"""A receiver's jitter buffer: when each packet of a stream is played, and which come too late.

A voice receiver holds packets back so that they can be played at the pace
they were sent: packet i is due for playout at its send time plus a playout
delay, and a packet that arrives after that instant is discarded as late,
which the listener hears as a loss (RFC 3611's discard rate). Two kinds of
buffer are modelled, both on one stream's packets in send order:

* ``FixedBuffer(nominal)``: the playout delay is the first received packet's
  network delay plus ``nominal`` for the whole call, so exactly the packets
  whose delay exceeds the first one's by more than ``nominal`` are late. The
  buffer is taken as deep as needed: an early packet just waits longer.
* ``AdaptiveBuffer(smoothing, variation_factor, talkspurt)``: Algorithm 1 of
  Ramjee, Kurose, Towsley and Schulzrinne (IEEE INFOCOM 1994), which tracks
  the mean network delay and its variation with exponential averages over
  every received packet,

      d_i = a d_{i-1} + (1 - a) n_i,    v_i = a v_{i-1} + (1 - a) |d_i - n_i|,

  starting from the first packet (d = its delay, v = 0), and sets the
  playout delay d_i + k v_i at the first packet of each talkspurt, kept for
  the talkspurt's other packets. The simulated streams carry no silences, so
  talkspurts are taken as consecutive ``talkspurt``-long spans of send time
  from the stream's first packet.

Network delays and talkspurt boundaries are taken in whole nanoseconds (the
resolution of a receiver's clock), so that the rounding noise of
floating-point times is never mistaken for delay variation (a stream of
constant delay has none) nor moves a packet sent on a boundary.
The averages are first-order IIR filters, evaluated as ``scipy.signal.lfilter``
would, bit for bit, by ``vsim.metrics.first_order``.
"""

from typing import NamedTuple

import numpy as np

from vsim.metrics.first_order import first_order_filter

NS = 1e9


class FixedBuffer(NamedTuple):
    """A jitter buffer of constant playout delay: the first packet's delay + ``nominal`` (s)."""

    nominal: float


class AdaptiveBuffer(NamedTuple):
    """Ramjee et al.'s Algorithm 1, re-set once per ``talkspurt`` (s) of send time."""

    smoothing: float
    variation_factor: float
    talkspurt: float


class Playout(NamedTuple):
    """Per packet of one stream (send order): what the jitter buffer did with it.

    ``network_delay`` and ``playout_delay`` are in seconds from the send time
    (NaN for a packet lost in the network); ``playout_delay`` of a late packet
    is the deadline it missed.
    """

    lost: np.ndarray
    late: np.ndarray
    network_delay: np.ndarray
    playout_delay: np.ndarray

    @property
    def played(self):
        """Packets received in time for their playout."""
        return ~self.lost & ~self.late

    @property
    def buffer_delay(self):
        """Seconds each packet waits in the buffer (NaN unless played)."""
        return np.where(self.played, self.playout_delay - self.network_delay, np.nan)


def playout(send_times, recv_times, buffer):
    """What ``buffer`` (``FixedBuffer`` or ``AdaptiveBuffer``) does with one stream's packets.

    ``send_times`` must be non-decreasing; ``recv_times`` holds NaN for a
    packet lost in the network. Raises ValueError on arrays of different
    lengths, not one-dimensional, or out of send order, and on an unknown
    buffer.
    """
    send = np.asarray(send_times, dtype=float)
    recv = np.asarray(recv_times, dtype=float)
    if send.ndim != 1 or send.shape != recv.shape:
        raise ValueError(f"send_times and recv_times must be 1-D of one length, got shapes "
                         f"{send.shape} and {recv.shape}")
    if np.any(np.diff(send) < 0):
        raise ValueError("send_times must be in send order (non-decreasing)")
    lost = np.isnan(recv)
    received = np.flatnonzero(~lost)
    delay_ns = np.rint((recv[received] - send[received]) * NS)
    if isinstance(buffer, FixedBuffer):
        deadline_ns = _fixed_deadlines(delay_ns, buffer)
    elif isinstance(buffer, AdaptiveBuffer):
        deadline_ns = _adaptive_deadlines(send, received, delay_ns, buffer)
    else:
        raise ValueError(f"expected a FixedBuffer or AdaptiveBuffer, got {buffer!r}")
    late = np.zeros(send.size, dtype=bool)
    late[received] = delay_ns > deadline_ns
    network_delay = np.full(send.size, np.nan)
    network_delay[received] = delay_ns / NS
    playout_delay = np.full(send.size, np.nan)
    playout_delay[received] = deadline_ns / NS
    return Playout(lost, late, network_delay, playout_delay)


def _fixed_deadlines(delay_ns, buffer):
    """Every received packet's playout delay (ns): the first one's delay + the nominal."""
    if not delay_ns.size:
        return delay_ns
    return np.full(delay_ns.size, delay_ns[0] + np.rint(buffer.nominal * NS))


def _adaptive_deadlines(send, received, delay_ns, buffer):
    """Every received packet's playout delay (ns), set at the first packet of its talkspurt.

    ``send`` holds every packet's send time, ``received`` the indices of those
    received (with network delays ``delay_ns``); talkspurts count from the
    stream's first packet. The estimates run on the delays less the first
    packet's, which keeps them exact integers-as-floats while the delay does
    not change.
    """
    if not delay_ns.size:
        return delay_ns
    a = buffer.smoothing
    offset = delay_ns - delay_ns[0]
    mean = first_order_filter(offset, 1 - a, -a)
    variation = first_order_filter(np.abs(mean - offset), 1 - a, -a)
    allowance = mean + buffer.variation_factor * variation
    talkspurt = np.rint((send[received] - send[0]) * NS) // np.rint(buffer.talkspurt * NS)
    starts = np.flatnonzero(np.concatenate(([True], talkspurt[1:] != talkspurt[:-1])))
    lengths = np.diff(np.append(starts, talkspurt.size))
    return delay_ns[0] + np.repeat(allowance[starts], lengths)
