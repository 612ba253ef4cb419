"""The measured send times of both senders through a drop-tail FIFO: python fifo_check.py TRACE.

TRACE is a full ``vsim probe net`` packets trace of this set (both classes' rows, as
``data/pilot_load1.2_wake0.001.csv``). Its packets enter, at their recorded send times, one
FIFO of ``--limit`` packets served at ``--rate`` bit/s by the bytes htb charges (the frame less
its FCS, the trace's ``size_bytes``), a packet finding the queue full dropped: the kernel's
htb class and pfifo reduced to their rate and limit. Printed: the voice and flood loss
measured and through that queue; then the voice loss with each tick's voice packets moved onto
the first one's instant (the burst handed over at once), and with the flood evenly paced over
its recorded span (its own write pattern removed). What decides the loss is which sender's
packets arrive when: the queue itself is reproduced by its rate and limit alone.
"""

import argparse
from collections import deque

import numpy as np

from vsim.traces.vsim_trace import read_trace


def replay_fifo(send_s, size_bytes, is_flood, rate_bps, limit):
    """Packets at ``send_s`` through a drop-tail FIFO of ``limit`` packets (beside the one in
    service) served at ``rate_bps``: which it drops, and after each arrival how many flood
    packets wait in it (admitted, service not begun: what the flood's socket still holds,
    ``validation/socket_buffer``)."""
    lost = np.zeros(send_s.size, dtype=bool)
    waiting = np.zeros(send_s.size, dtype=int)
    departures, starts = deque(), deque()  # every packet in the system; the flood's service starts
    for i in np.argsort(send_s, kind="stable"):
        now = send_s[i]
        while departures and departures[0] <= now:
            departures.popleft()
        while starts and starts[0] <= now:
            starts.popleft()
        if len(departures) > limit:
            lost[i] = True
        else:
            start = max(now, departures[-1] if departures else now)
            departures.append(start + size_bytes[i] * 8.0 / rate_bps)
            if is_flood[i]:
                starts.append(start)
        waiting[i] = len(starts)
    return lost, waiting


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trace")
    parser.add_argument("--rate", type=float, default=2e7, help="the class's rate, bit/s")
    parser.add_argument("--limit", type=int, default=100, help="the pfifo's limit, packets")
    args = parser.parse_args(argv)
    trace = read_trace(args.trace)
    klass = np.asarray(trace.columns["class"])
    send_s = np.asarray(trace.columns["send_s"], dtype=float)
    arrival_s = np.asarray(trace.columns["arrival_s"], dtype=float)
    size = np.asarray(trace.columns["size_bytes"], dtype=float)
    voice, flood = klass == "voice", klass == "flood"
    period = float(trace.meta["period_s"])

    def voice_loss(times):
        return float(replay_fifo(times, size, flood, args.rate, args.limit)[0][voice].mean())

    as_sent = replay_fifo(send_s, size, flood, args.rate, args.limit)[0]
    print(f"measured:        voice {np.isnan(arrival_s[voice]).mean():.4f}  flood {np.isnan(arrival_s[flood]).mean():.4f}")
    print(f"FIFO, as sent:   voice {as_sent[voice].mean():.4f}  flood {as_sent[flood].mean():.4f}")
    collapsed = send_s.copy()
    tick = np.floor(send_s / period)
    for t in np.unique(tick[voice]):
        same = voice & (tick == t)
        collapsed[same] = send_s[same].min()
    print(f"FIFO, each tick's voice at one instant: voice {voice_loss(collapsed):.4f}")
    paced = send_s.copy()
    paced[flood] = np.linspace(send_s[flood].min(), send_s[flood].max(), int(flood.sum()))
    print(f"FIFO, the flood evenly paced:           voice {voice_loss(paced):.4f}")


if __name__ == "__main__":
    main()
