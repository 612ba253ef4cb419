"""The network probe's senders, run inside the sender's namespace: ``python -m vsim.probe.send voice|flood``.

``voice``: ``streams`` RTP streams, one packet each per ``period``; with
pattern ``tick`` all streams send back to back at each tick (a media server
that mixes every call in one timer tick), with ``spread`` stream i sends
i * period / streams after the tick. ``flood``: UDP datagrams of ``size``
bytes at ``rate_pps``, paced against absolute deadlines (a late sender
catches up at once, so the mean rate holds) with plain ``sendto`` calls:
each datagram's own deadline, or with ``wakeup`` a wake-up every ``wakeup``
seconds that writes every datagram due by then back to back (a bulk sender
on a pacing timer, as iperf3's).
A sender that cannot keep the pace stops at the end of its schedule with
what it has not sent left out, so that it never outlasts the probe.

Both start at the same CLOCK_MONOTONIC instant ``start_ns`` (one clock for
every namespace), stop after ``duration``, and save a log of what they sent
(stream, seq, RTP timestamp, CLOCK_REALTIME send time in ns) as a NumPy
array, since a lost packet is known only from the sender's side.
"""

import argparse
import socket
import time

import numpy as np

from vsim.probe import rtp
from vsim.probe.limits import FLOOD_SOURCE_PORT, VOICE_SOURCE_PORT_BASE
from vsim.probe.clock import NS, now_ns, sleep_until_ns



def realtime_ns():
    """Wall-clock time in ns: the clock packet captures stamp packets with."""
    return time.clock_gettime_ns(time.CLOCK_REALTIME)


def voice_offsets_ns(streams, period_ns, pattern):
    """When each stream sends within a period, ns after the tick: all at 0 (tick) or evenly apart (spread)."""
    return [0 if pattern == "tick" else index * period_ns // streams for index in range(streams)]


def send_voice(destination, port_base, streams, period_s, pattern, start_ns, duration_s):
    """Send the voice streams; a log array with one row (stream, seq, rtp_timestamp, send_ns) per packet."""
    period_ns = int(round(period_s * NS))
    ticks = int(duration_s / period_s)
    step = rtp.CLOCK_HZ * period_ns // NS
    offsets = voice_offsets_ns(streams, period_ns, pattern)
    sockets = []
    for index in range(streams):
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.bind(("", VOICE_SOURCE_PORT_BASE + index))
        sock.connect((destination, port_base + index))
        sockets.append(sock)
    log = np.zeros((ticks * streams, 4), dtype=np.int64)
    row = 0
    end_ns = start_ns + ticks * period_ns
    for tick in range(ticks):
        due = start_ns + tick * period_ns
        if now_ns() >= end_ns:  # so far behind that this tick would begin after the schedule's end
            break
        for index, sock in enumerate(sockets):
            sleep_until_ns(due + offsets[index])
            sent = realtime_ns()
            sock.send(rtp.voice_packet(rtp.SSRC_BASE + index, tick, tick * step, sent))
            log[row] = (index, tick, tick * step, sent)
            row += 1
    return log[:row]


def send_flood(destination, port, size, rate_pps, start_ns, duration_s, wakeup_s=0.0):
    """Send the flood; a log array with one row (-1, seq, 0, send_ns) per datagram sent."""
    total = int(rate_pps * duration_s)
    end_ns = start_ns + int(duration_s * NS)
    gap_ns = NS / rate_pps
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("", FLOOD_SOURCE_PORT))
    sock.connect((destination, port))
    buffer = bytearray(size)
    log = np.zeros((total, 4), dtype=np.int64)
    log[:, 0] = -1
    seq = 0
    sleep_until_ns(start_ns)
    while seq < total and (now := now_ns()) < end_ns:
        due = min(total, int((now - start_ns) / gap_ns) + 1)  # datagrams due by now
        while seq < due and now_ns() < end_ns:
            sent = realtime_ns()
            sock.send(rtp.flood_packet(buffer, seq, sent))
            log[seq, 1] = seq
            log[seq, 3] = sent
            seq += 1
        if seq < total and wakeup_s > 0:
            wakeup_ns = int(round(wakeup_s * NS))
            sleep_until_ns(start_ns + ((now_ns() - start_ns) // wakeup_ns + 1) * wakeup_ns)
        elif seq < total:
            sleep_until_ns(start_ns + int(seq * gap_ns))
    return log[:seq]


def main(argv=None):
    """Command line of the sender process a probe starts."""
    parser = argparse.ArgumentParser(prog="python -m vsim.probe.send")
    parser.add_argument("kind", choices=("voice", "flood"))
    parser.add_argument("--destination", required=True)
    parser.add_argument("--port", type=int, required=True, help="voice: first port; flood: its port")
    parser.add_argument("--streams", type=int, default=1)
    parser.add_argument("--period", type=float, default=0.02)
    parser.add_argument("--pattern", choices=("tick", "spread"), default="tick")
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument("--rate-pps", type=float, default=0.0)
    parser.add_argument("--wakeup", type=float, default=0.0)
    parser.add_argument("--start-ns", type=int, required=True)
    parser.add_argument("--duration", type=float, required=True)
    parser.add_argument("--log", required=True)
    args = parser.parse_args(argv)
    if args.kind == "voice":
        log = send_voice(args.destination, args.port, args.streams, args.period, args.pattern,
                         args.start_ns, args.duration)
    else:
        log = send_flood(args.destination, args.port, args.size, args.rate_pps, args.start_ns, args.duration,
                         args.wakeup)
    np.save(args.log, log)


if __name__ == "__main__":
    main()
