"""The per-packet arithmetic of a burst through ``FluidPacketQueue``, as plain float loops.

A burst is a few tens of packets (a tick's voice frames). Done with numpy
array expressions, each of its steps costs a call of fixed overhead however
short the array, and a burst through the open or the pinned regime takes some
forty of them; these loops do the same arithmetic element by element, in the
same order of operations, so they give the same floats. They are compiled with
mypyc with the rest of the hot path (``vsim/native.py``); the random draws,
``np.arange`` and the sums of the queue's state stay in ``vsim.net.fluid.queue``,
where numpy defines them.
"""

import math
from bisect import bisect_right
from typing import List, Optional, Tuple


def suffix_sums(values: List[float]) -> List[float]:
    """``s[j] = values[j] + ... + values[-1]`` summed from the end, and ``s[len] = 0``: what
    numpy's ``cumsum(values[::-1])[::-1]`` gives, with a 0 appended."""
    n = len(values)
    out = [0.0] * (n + 1)
    if n:
        total = values[n - 1]
        out[n - 1] = total
        for j in range(n - 2, -1, -1):
            total = total + values[j]
            out[j] = total
    return out


def open_burst(times: List[float], work: List[float], units: List[float], start: int, stop: int,
               t0: float, v0: float, net: float, rate: float, rests: Optional[List[float]],
               dep: List[float], dwork: List[float], dunits: List[float], units_per_work: float,
               limit: float, excludes_in_service: bool, fluid_packet: float, tolerance: float
               ) -> Tuple[int, List[float], float]:
    """Packets ``start:stop`` while the fluid does not hold the queue full (the open regime of
    ``FluidPacketQueue``): Lindley's recursion over the burst, each packet's occupancy on
    arrival against ``limit`` (already widened by the tolerance; ``tolerance`` widens the
    test of whether the packet in service has begun). Returns how many packets
    are accepted before the first that does not fit, their departures, and the last accepted
    packet's time to leave (0 if none)."""
    old_units = suffix_sums(dunits)
    old_work = suffix_sums(dwork)
    ratio = net / rate
    departures: List[float] = []
    cum_u = [0.0]
    cum_w = [0.0]
    total = 0.0
    running = -math.inf
    previous = t0
    after_last = 0.0
    for i in range(stop - start):
        t = times[start + i]
        w = work[start + i]
        u = units[start + i]
        service = w / rate
        step = service + (t - previous) * ratio
        previous = t
        total = step if i == 0 else total + step
        floor = service + rests[start + i] - total if rests is not None else service - total
        running = floor if i == 0 else max(running, floor)
        after = total + (v0 if v0 >= running else running)
        before = after - service
        departure = t + after
        k_old = bisect_right(dep, t)
        first_left = bisect_right(departures, t, 0, i)
        new_units = cum_u[i] - cum_u[first_left]
        new_work = cum_w[i] - cum_w[first_left]
        fluid_work = before * rate - old_work[k_old] - new_work
        if not fluid_work > 0.0:
            fluid_work = 0.0
        fluid_units = fluid_work * units_per_work if units_per_work else 0.0
        occupied = fluid_units + old_units[k_old] + new_units
        if excludes_in_service:
            occupied = occupied - _in_service(t, k_old, first_left, i, dep, dwork, dunits, departures,
                                              work, units, start, rate, fluid_packet, fluid_units, tolerance)
        if occupied + u > limit:
            break
        departures.append(departure)
        cum_u.append(cum_u[i] + u)
        cum_w.append(cum_w[i] + w)
        after_last = after
    return len(departures), departures, after_last


def _in_service(t: float, k_old: int, first_left: int, i: int, dep: List[float], dwork: List[float],
                dunits: List[float], departures: List[float], work: List[float], units: List[float],
                start: int, rate: float, fluid_packet: float, fluid_units: float,
                tolerance: float) -> float:
    """Units of what is in service when packet ``i`` arrives at ``t``: the oldest packet in the
    system once its service has begun, else a fluid packet if fluid is queued."""
    m = len(dep)
    has_old = k_old < m
    has_new = not has_old and first_left < i
    if has_old:
        head_dep, head_work, head_units = dep[k_old], dwork[k_old], dunits[k_old]
    elif has_new:
        head_dep = departures[first_left]
        head_work, head_units = work[start + first_left], units[start + first_left]
    else:
        head_dep = head_work = head_units = 0.0
    if (has_old or has_new) and head_dep - head_work / rate <= t * (1 + tolerance):
        return head_units
    return fluid_packet if fluid_packet < fluid_units else fluid_units


def merge_events(opened: List[float], arrivals: List[float], fluid_pps: float, cap: float
                 ) -> Tuple[List[int], List[float]]:
    """A pinned run's events in time order: the places opened (``opened``) and the packets'
    arrivals, both sorted, merged stably with a departure first at equal times (numpy's
    stable ``argsort`` of their concatenation). Returns the order (an index into the
    concatenation) and, per event, the mean number of fluid packets arriving since the event
    before (``fluid_pps`` times the gap, at most ``cap``)."""
    order: List[int] = []
    means: List[float] = []
    a, b = 0, 0
    na, nb = len(opened), len(arrivals)
    last = 0.0
    while a < na or b < nb:
        if b >= nb or (a < na and opened[a] <= arrivals[b]):
            at = opened[a]
            order.append(a)
            a += 1
        else:
            at = arrivals[b]
            order.append(na + b)
            b += 1
        gap = at if len(order) == 1 else at - last
        last = at
        mean = fluid_pps * gap
        means.append(mean if mean < cap else cap)
    return order, means


def pinned_walk(order: List[int], taken: List[int], n_opened: int, free0: float, need: List[float],
                room: float) -> List[float]:
    """The walk of free places over a pinned run's events: before each event the fluid's
    packets take ``taken`` places, then a departure opens one or a packet takes its ``need``,
    the count reflected at 0. Returns, per packet of the run, the free places it found once
    the fluid had taken its share (at most ``room``)."""
    before = [0.0] * len(need)
    cumulative = 0.0
    lowest = math.inf
    for k in range(len(order)):
        event = order[k]
        for half in range(2):
            if half == 0:
                step = -float(taken[k])
            elif event < n_opened:
                step = 1.0
            else:
                step = -need[event - n_opened]
            cumulative = step if k == 0 and half == 0 else cumulative + step
            total = free0 + cumulative
            lowest = total if total < lowest else lowest
            after = total - (lowest if lowest < 0.0 else 0.0)
            if half == 0 and event >= n_opened:
                found = after
                before[event - n_opened] = found if found < room else room
    return before


def fifo_departures(times: List[float], work: List[float], start: int, before: List[float],
                    need: List[float], cap: float, per_packet: float, rate: float,
                    before_run: float, tolerance: float) -> Tuple[List[float], List[int]]:
    """Departures of a pinned run's packets (NaN for those that find no place) and the indices
    of those kept: each waits for the full queue less the places it found, and leaves at least
    its service after the packet before it (``before_run``: the last already in the system).
    A packet fits when its places found are at least its ``need`` less the ``tolerance``."""
    departures: List[float] = []
    kept: List[int] = []
    spacing = 0.0
    running = -math.inf
    for j in range(len(before)):
        found = before[j]
        if not found >= need[j] * (1 - tolerance):
            departures.append(math.nan)
            continue
        w = work[start + j]
        ahead = cap - found * per_packet
        if not ahead > 0.0:
            ahead = 0.0
        departure = times[start + j] + (ahead + w) / rate
        service = w / rate
        spacing = service if not kept else spacing + service
        late = departure - spacing
        late = late if late > before_run else before_run
        running = late if not kept else (running if running >= late else late)
        departures.append(spacing + running)
        kept.append(j)
    return departures, kept
