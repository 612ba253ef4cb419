"""A per-packet drop-tail FIFO queue: the reference the fluid + packet model is checked against.

Every packet, flood packets included, is its own arrival: the flood is a
Poisson stream of discrete packets, the voice packets come in their bursts,
and one plain Python loop serves them in arrival order, one service time
each, dropping a packet that finds ``limit`` packets in the system. Nothing is
vectorised or approximated; it is slow on purpose (one loop iteration per
packet), and it is what ``vsim.net.fluid.queue.FluidPacketQueue`` stands in
for at a fraction of the cost.
"""

import math
from collections import deque

import numpy as np


def poisson_flood(rng, rate_pps, start, stop):
    """Arrival times of a Poisson flood of ``rate_pps`` packets/s in ``[start, stop)``."""
    count = rng.poisson(rate_pps * (stop - start))
    return np.sort(rng.uniform(start, stop, count))


def drop_tail_fifo(times, service, limit):
    """Departure of each packet (NaN if dropped) from a FIFO of ``limit`` places.

    ``times`` sorted arrival times, ``service`` each packet's service time;
    ``limit`` counts the packets in the system, the one in service included.
    """
    departures = [math.nan] * len(times)
    in_system = deque()
    last = -math.inf
    for i, (arrival, work) in enumerate(zip(times.tolist(), service.tolist())):
        while in_system and in_system[0] <= arrival:
            in_system.popleft()
        if len(in_system) >= limit:
            continue
        last = (arrival if arrival > last else last) + work
        in_system.append(last)
        departures[i] = last
    return np.array(departures)


def voice_with_flood(rng, *, flood_pps, voice_times, service, limit, duration):
    """Voice packets' departures through a drop-tail FIFO shared with a Poisson flood.

    Every packet takes ``service`` seconds. Returns (voice departures, flood
    packets offered, flood packets dropped).
    """
    flood = poisson_flood(rng, flood_pps, 0.0, duration)
    times = np.concatenate((voice_times, flood))
    is_voice = np.concatenate((np.ones(voice_times.size, bool), np.zeros(flood.size, bool)))
    order = np.argsort(times, kind="stable")
    departures = drop_tail_fifo(times[order], np.full(times.size, service), limit)
    result = np.empty(times.size)
    result[order] = departures
    return result[is_voice], flood.size, int(np.isnan(result[~is_voice]).sum())
