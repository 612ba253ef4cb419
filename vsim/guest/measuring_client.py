"""The receiver of a monitored conference: timestamps every packet of its streams.

The measuring client of the study receives the measuring conference; the
same recorder stands for the load client that receives a VM's last load
conference, so that every VM's jitter can be reported (see
``vsim.guest.media_server``). It records, per packet, the stream, the RTP
send time (the tick's nominal 20 ms boundary, which is what the RTP
timestamp encodes) and the arrival time at the client (NaN when the packet
was lost). Its own receive path adds a constant ``latency``: a constant moves
every arrival equally and so never changes jitter. A client that also
generates load may stall now and then (``receive_stalls``): a packet that
arrives during a stall is read when it ends.

A tick's packets leave a FIFO uplink evenly spaced, so the recorder keeps
one row per tick (or per lost part of a tick) and expands the rows into
packets with numpy only when the arrays are asked for; an uplink scheduler
answers each frame's departure, kept as it is (``departed_frames``).

A tick's monitored streams may come in several posts (a worker that emits
each stream when it is done): each post's streams are numbered on from the
tick's earlier posts, and its departures are matched with it in order, since
one worker's posts leave its vNIC in the order they were posted.
"""

import math
from collections import deque
from typing import Any, Deque, Dict, Final, List, Tuple

import numpy as np

from vsim.net.frame_recorder import FrameRecorder

_NO_DEPARTURE: Final = math.nan

KEEP_TICKS: Final = 64
"""Ticks whose numbering is kept after they were posted: far more than a post waits in a vNIC."""


class MeasuringClient(FrameRecorder):
    """Per-packet record of one conference's streams, kept as one row per tick."""

    def __init__(self, latency: float, stalls: Any = None) -> None:
        self.latency = latency
        self.stalls = stalls  # a ``ReceiveStalls``, or None for a client that never stalls
        # tick -> RTP send time: the last KEEP_TICKS ticks posted, and any to depart
        self._send: Dict[Any, float] = {}
        self._next: Dict[Any, int] = {}  # tick -> the number its next post's first stream gets
        self._ticks: Deque[Any] = deque()  # the ticks of ``_send``, oldest first
        # tick -> first stream numbers of its posts not yet departed, in order
        self._bases: Dict[Any, Deque[int]] = {}
        # Each row covers streams first_stream .. first_stream + streams - 1 of one tick;
        # stream k arrives at first_departure + k * spacing + latency if k < accepted. The
        # rows are kept as columns, which NumPy reads some three times faster than tuples.
        self._row_send: List[float] = []
        self._row_first: List[int] = []
        self._row_streams: List[int] = []
        self._row_departure: List[float] = []
        self._row_spacing: List[float] = []
        self._row_accepted: List[int] = []
        self._frames: List[Tuple[float, int, Any]] = []
        self._arrays: Any = None  # the last ``arrays()``, and the record's size it was made of
        self._arrays_of = (-1, -1)

    def sent(self, tick: Any, send_time: float, count: int) -> None:
        """``count`` monitored streams of ``tick`` (RTP time ``send_time``) were posted."""
        if tick not in self._send:
            self._send[tick] = send_time
            self._ticks.append(tick)
            while len(self._send) > KEEP_TICKS:  # ticks come in order: the oldest first
                old = self._ticks[0]
                if old in self._bases:  # still to depart (the closed form posts far ahead)
                    break
                self._ticks.popleft()
                del self._send[old]
                self._next.pop(old, None)
        base = self._next.get(tick, 0)
        self._next[tick] = base + count
        self._bases.setdefault(tick, deque()).append(base)

    def lost(self, tick: Any, first_lost: int, count: int) -> None:
        """Streams ``first_lost``.. of the post of ``tick`` just sent never left the host."""
        bases = self._bases[tick]
        base = bases[-1]
        if not first_lost:  # nothing of that post will depart
            bases.pop()
            if not bases:
                del self._bases[tick]
        self._row(self._send[tick], base + first_lost, count - first_lost, _NO_DEPARTURE, 0.0, 0)

    def _departing(self, tick: Any) -> Tuple[float, int]:
        """(send time, first stream number) of the oldest post of ``tick`` not yet departed."""
        bases = self._bases[tick]
        base = bases.popleft()
        if not bases:
            del self._bases[tick]
        return self._send[tick], base

    def departed(self, tick: Any, first_departure: float, spacing: float, accepted: int,
                 count: int) -> None:
        send_time, base = self._departing(tick)
        self._row(send_time, base, count, first_departure - base * spacing, spacing, accepted + base)

    def _row(self, send: float, first: int, streams: int, departure: float, spacing: float,
             accepted: int) -> None:
        self._row_send.append(send)
        self._row_first.append(first)
        self._row_streams.append(streams)
        self._row_departure.append(departure)
        self._row_spacing.append(spacing)
        self._row_accepted.append(accepted)

    def departed_frames(self, tick: Any, departures: Any) -> None:
        """The streams of the oldest post of ``tick`` left the uplink at ``departures`` (NaN:
        dropped there)."""
        send_time, base = self._departing(tick)
        self._frames.append((send_time, base, np.asarray(departures, dtype=float)))

    def recorded(self) -> int:
        """Packets recorded so far, arrived or lost."""
        return sum(self._row_streams) + sum(int(departures.size) for _, _, departures in self._frames)

    def arrays(self) -> Any:
        """(stream ids, send times, receive times) sorted by stream then send time, read-only.

        A run's summary asks for them in several sections; they are made once for each state
        of the record (which only grows)."""
        made_of = (len(self._row_send), len(self._frames))
        if self._arrays is None or made_of != self._arrays_of:
            arrays = self._made_arrays()
            for array in arrays:
                array.setflags(write=False)
            self._arrays, self._arrays_of = arrays, made_of
        return self._arrays

    def _made_arrays(self) -> Any:
        if self._frames:
            stream, send, recv = self._sorted(*self._frame_arrays(), *self._row_arrays())
        elif not self._row_send:
            return np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0)
        else:
            stream, send, recv = self._sorted(*self._row_arrays())
        if self.stalls is not None:
            recv = self.stalls.read_times(recv)
        return stream, send, recv

    def _frame_arrays(self):
        """(streams, send, receive) of the ticks recorded frame by frame."""
        counts = np.array([departures.size for _, _, departures in self._frames], dtype=np.int64)
        starts = np.cumsum(counts) - counts
        bases = np.repeat(np.array([base for _, base, _ in self._frames], dtype=np.int64), counts)
        stream = bases + np.arange(counts.sum()) - np.repeat(starts, counts)
        send = np.repeat([send_time for send_time, _, _ in self._frames], counts).astype(float)
        recv = np.concatenate([departures for _, _, departures in self._frames]) + self.latency
        return stream, send, recv

    @staticmethod
    def _sorted(stream, send, recv, *more):
        if more:
            stream, send, recv = (np.concatenate((a, b)) for a, b in zip((stream, send, recv), more))
        order = np.lexsort((send, stream))
        return stream[order], send[order], recv[order]

    def _row_arrays(self):
        """(streams, send, receive) of the ticks recorded as evenly spaced rows."""
        if not self._row_send:
            return np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0)
        streams = np.array(self._row_streams, dtype=np.int64)
        first_departure = np.array(self._row_departure, dtype=float)
        spacing = np.array(self._row_spacing, dtype=float)
        row = np.repeat(np.arange(streams.size), streams)
        row_start = np.cumsum(streams) - streams
        stream = (np.array(self._row_first, dtype=np.int64)[row] + np.arange(row.size)
                  - row_start[row])
        recv = first_departure[row] + stream * spacing[row] + self.latency
        recv[stream >= np.array(self._row_accepted, dtype=np.int64)[row]] = np.nan
        send = np.array(self._row_send, dtype=float)[row]
        return stream, send, recv
