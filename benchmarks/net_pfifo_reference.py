"""validation/net_pfifo replayed packet by packet: the trace's own send times through tbf + pfifo.

Every packet of the trace (voice and flood, with the send times the probe
recorded) goes through a per-packet token bucket at 2 Mbit/s charging
``skb_len`` (5000 B bucket, full at the start) whose child pfifo holds at
most 50 packets, the one waiting for tokens included, as sch_tbf.c peeks
the child's head and takes it only when its tokens are there. Prints each
class's loss and the voice's mean transit, simulated and measured: the
reference the fluid + packet uplink is judged against in
``validation/net_pfifo/README.md``.

    .venv/bin/python benchmarks/net_pfifo_reference.py [validation/net_pfifo/packets.csv]
"""

import csv
import sys
from collections import deque

import numpy as np

RATE_BPS, BURST, LIMIT = 2e6, 5000, 50


def read_trace(path):
    """(send times, frame bytes, arrivals with NaN for the lost, is voice) in send order."""
    with open(path) as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    send = np.array([float(r["send_s"]) for r in rows])
    size = np.array([int(r["size_bytes"]) for r in rows])
    arrival = np.array([float(r["arrival_s"]) if r["arrival_s"] else np.nan for r in rows])
    voice = np.array([r["class"] == "voice" for r in rows])
    order = np.argsort(send, kind="stable")
    return send[order], size[order], arrival[order], voice[order]


def tbf_pfifo(times, sizes, rate_bps=RATE_BPS, burst=BURST, limit=LIMIT):
    """Release time of each packet (NaN if the pfifo was full), one loop step per packet."""
    released = np.full(len(times), np.nan)
    in_qdisc = deque()
    tokens, tokens_at, last = float(burst), 0.0, 0.0
    for i, (arrival, length) in enumerate(zip(times.tolist(), sizes.tolist())):
        while in_qdisc and in_qdisc[0] <= arrival:
            in_qdisc.popleft()
        if len(in_qdisc) >= limit:
            continue
        start = max(arrival, last)
        tokens = min(burst, tokens + (start - tokens_at) * rate_bps / 8)
        release = start if tokens >= length else start + (length - tokens) * 8 / rate_bps
        tokens, tokens_at, last = max(0.0, tokens - length), release, release
        released[i] = release
        in_qdisc.append(release)
    return released


def main(argv):
    path = argv[1] if len(argv) > 1 else "validation/net_pfifo/packets.csv"
    send, size, arrival, voice = read_trace(path)
    released = tbf_pfifo(send, size)
    for name, mine in (("voice", voice), ("flood", ~voice)):
        print(f"{name}: loss simulated {np.isnan(released[mine]).mean():.4f} "
              f"measured {np.isnan(arrival[mine]).mean():.4f}")
    print(f"voice transit mean: simulated {np.nanmean(released[voice] - send[voice]) * 1e3:.1f} ms "
          f"measured {np.nanmean(arrival[voice] - send[voice]) * 1e3:.1f} ms")
    same = (np.isnan(released) == np.isnan(arrival)).mean()
    print(f"packets with the same fate (kept or dropped) in both: {same:.3f}")


if __name__ == "__main__":
    main(sys.argv)
