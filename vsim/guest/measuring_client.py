"""The measuring client: receives the measuring conference and timestamps it.

It records, per measured packet, the stream, the RTP send time (the tick's
nominal 20 ms boundary, which is what the RTP timestamp encodes) and the
arrival time at the client (NaN when the packet was lost). Its own receive
path adds a constant ``latency``: a constant moves every arrival equally and
so never changes jitter.
"""

import numpy as np


class MeasuringClient:
    """Per-packet record of the measured streams; a few hundred packets per second."""

    def __init__(self, latency):
        self.latency = latency
        self._send = {}
        self.ticks = []
        self.streams = []
        self.send_times = []
        self.recv_times = []

    def sent(self, tick, send_time, count):
        self._send[tick] = (send_time, count)

    def lost(self, tick, first_lost, count):
        """Streams ``first_lost``.. of ``tick`` never left the host."""
        send_time, _ = self._send.pop(tick)
        if first_lost:
            self._send[tick] = (send_time, first_lost)
        for stream in range(first_lost, count):
            self._record(tick, stream, send_time, np.nan)

    def departed(self, tick, first_departure, spacing, accepted, count):
        send_time, _ = self._send.pop(tick)
        for stream in range(count):
            arrival = (first_departure + stream * spacing + self.latency
                       if stream < accepted else np.nan)
            self._record(tick, stream, send_time, arrival)

    def _record(self, tick, stream, send_time, arrival):
        self.ticks.append(tick)
        self.streams.append(stream)
        self.send_times.append(send_time)
        self.recv_times.append(arrival)

    def arrays(self):
        """(stream ids, send times, receive times) sorted by stream then send time."""
        streams = np.asarray(self.streams, dtype=np.int64)
        send = np.asarray(self.send_times, dtype=float)
        recv = np.asarray(self.recv_times, dtype=float)
        order = np.lexsort((send, streams))
        return streams[order], send[order], recv[order]

    @property
    def in_flight(self):
        """Measured packets handed to the NIC path but not yet delivered or lost."""
        return sum(count for _, count in self._send.values())
