"""Recorded packets sent again at their recorded instants: a ``packets`` trace replayed.

A ``packets`` trace (vsim's own format, ``vsim.traces.vsim_trace``, as
``vsim run --trace`` and ``vsim probe net`` write it) holds each packet's
send time and frame size. This source sends the packets of the streams it
keeps (all, or one ``stream``, or one ``traffic_class``) at those times,
shifted so that the earliest kept packet goes out ``offset`` seconds after the
traffic's start (its ``active_from``), each with its recorded size: the
Ethernet frame (header to FCS) the trace gives, less that header and FCS, is
its IP packet. The packets are discrete (each goes through the uplink
scheduler on its own, ``vsim.guest.replayed_traffic``) and nothing answers
them, so the replay is open loop: what the uplink does to a packet never
moves the next.

The source is built from its parameters first (the trace's path, relative to
the scenario file, and the filters), and the trace's packets are handed to
``recorded`` by the layer that reads files (``vsim.build.replayed_trace``):
traffic sources only model traffic.
"""

import numpy as np

from vsim.core.errors import InputError
from vsim.net.frames import ETH_HEADER, FCS, IPV4_HEADER, UDP_HEADER
from vsim.net.sources.validate import IP_MAX, non_negative, text


class PacketsReplay:
    """The packets of the ``packets`` trace at ``trace`` (of one ``stream`` or ``traffic_class``
    if given), sent at their recorded times, the first ``offset`` s after the traffic starts."""

    elastic = False
    discrete = True

    def __init__(self, trace, stream=None, traffic_class=None, offset=0.0, source="<input>",
                 where="traffic"):
        self.trace = text(trace, "trace", source, where)
        self.stream = None if stream is None else text(stream, "stream", source, where)
        self.traffic_class = (None if traffic_class is None
                              else text(traffic_class, "traffic_class", source, where))
        self.offset = non_negative(offset, "offset", source, where)
        self._named = (source, where)  # the file and key its errors name
        self._send = np.empty(0)
        self._ip_bytes = np.empty(0)

    def recorded(self, send_s, size_bytes, streams, classes, path):
        """Keep the trace's packets that pass the filters (the trace's columns ``send_s``,
        ``size_bytes``, ``stream`` and ``class``, read from ``path``): their send times from
        the earliest, in time order (ties in the trace's order), and IP sizes. An
        ``InputError`` names the filter that keeps nothing, or the first frame too small or too
        large for an IP packet."""
        source, where = self._named
        keep = np.ones(len(send_s), dtype=bool)
        for name, wanted, column in (("stream", self.stream, streams),
                                     ("traffic_class", self.traffic_class, classes)):
            if wanted is not None:
                values = np.asarray(column, dtype=object)
                known = sorted(set(values[keep].tolist()))  # among the packets kept so far
                keep &= values == wanted
                if not keep.any():
                    raise InputError(source, f"{where}.{name}",
                                     f"a {name.replace('_', ' ')} of {path} among the packets kept "
                                     f"({', '.join(known[:5])}{', ...' if len(known) > 5 else ''}), "
                                     f"got {wanted!r}")
        if not keep.any():
            raise InputError(source, f"{where}.trace", f"a packets trace with packets; {path} has none")
        send = np.asarray(send_s, dtype=float)[keep]
        ip_bytes = np.asarray(size_bytes, dtype=float)[keep] - (ETH_HEADER + FCS)
        bad = np.flatnonzero((ip_bytes < IPV4_HEADER + UDP_HEADER) | (ip_bytes > IP_MAX))
        if bad.size:
            size = int(np.asarray(size_bytes)[keep][bad[0]])
            raise InputError(source, f"{where}.trace",
                             f"frames of {ETH_HEADER + FCS + IPV4_HEADER + UDP_HEADER} to "
                             f"{ETH_HEADER + FCS + IP_MAX} bytes (an IP packet with its Ethernet "
                             f"header and FCS) in {path}, got {size}")
        order = np.argsort(send, kind="stable")
        self._send = send[order] - send[order[0]]
        self._ip_bytes = ip_bytes[order]
        return self

    @property
    def packets(self) -> int:
        """Packets kept from the trace."""
        return int(self._send.size)

    @property
    def ip_bytes(self) -> float:
        """The kept packets' mean IP size, bytes (what a flow of them declares)."""
        return float(self._ip_bytes.mean()) if self._ip_bytes.size else float(IPV4_HEADER + UDP_HEADER)

    def send_times(self, start):
        """(times, IP bytes) of the kept packets for traffic starting at ``start``: the
        earliest at ``start + offset``, the others as recorded after it."""
        return start + self.offset + self._send, self._ip_bytes.copy()
