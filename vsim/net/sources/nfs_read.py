"""NFS-like storage reads (Iometer's sequential reads over NFS) as an elastic TCP fluid.

Seed 001's Experiment 1 drives NFS traffic with Iometer: sequential reads of
32 KB blocks by 4 worker threads. Each worker keeps one read outstanding: a
small READ call goes to the storage host, which answers with the block in one
RPC reply (RFC 1813 READ3resok: the block behind ``REPLY_HEADER`` bytes of RPC
and NFS header), sent as TCP segments. The reads' data therefore cross the
network from the storage host, so the source sits on the uplink of the host
that serves them (or, as the study plots it, stands for the NFS class's
traffic on the host it shares). At most ``workers`` replies are in flight, so
the reads offer no more than ``workers`` blocks per round trip ``rtt`` (the
call's way there, the storage host's turnaround and the reply's way back,
without queueing), and at most the line: a window-limited TCP stream
(``vsim.net.sources.tcp_stream``) whose window is the workers' replies. Its
goodput counts the blocks' data only. Being window-limited it keeps what it
has in flight beyond the path's bandwidth-delay product queued at its
bottleneck (``in_flight_packets``), as every window-limited TCP sender does.
"""

from vsim.net.sources.tcp_stream import TcpStream
from vsim.net.sources.validate import positive, whole

RPC_RECORD_MARK = 4
"""Record-marking header of an RPC message over TCP (RFC 5531, section 11)."""

RPC_REPLY_HEADER = 24
"""An accepted RPC reply's header: xid, message type, reply status, a null verifier (flavour
and length) and the accept status (RFC 5531, section 9)."""

READ3RESOK_HEADER = 100
"""NFSv3 READ reply before its data: status, post-op attributes (a flag and the 84-byte
fattr3), count, eof and the data's length (RFC 1813, sections 2.6 and 3.3.6)."""

REPLY_HEADER = RPC_RECORD_MARK + RPC_REPLY_HEADER + READ3RESOK_HEADER
"""Bytes of a READ reply that are not the block's data: 128."""

MAX_WORKERS = 1024
"""Most outstanding reads: each is a block in flight (Iometer's outstanding I/Os per worker
are counted as workers here)."""


class NfsRead(TcpStream):
    """``workers`` sequential readers of ``block_bytes`` blocks over a round trip of ``rtt`` s."""

    def __init__(self, rtt, block_bytes=32768, workers=4, mtu=1500, timestamps=True,
                 source="<input>", where="traffic"):
        self.block_bytes = whole(block_bytes, "block_bytes", source, where)
        self.workers = whole(workers, "workers", source, where, 1, MAX_WORKERS)
        rtt = positive(rtt, "rtt", source, where)
        super().__init__(mtu=mtu, timestamps=timestamps,
                         window_bytes=self.workers * (self.block_bytes + REPLY_HEADER), rtt=rtt,
                         source=source, where=where)

    @property
    def data_fraction(self):
        """Share of the reply stream's TCP payload that is the blocks' data."""
        return self.block_bytes / (self.block_bytes + REPLY_HEADER)

    def goodput_bps(self, pps):
        """Data rate of the blocks read at ``pps`` segments/s (RPC and NFS headers left out)."""
        return super().goodput_bps(pps) * self.data_fraction
