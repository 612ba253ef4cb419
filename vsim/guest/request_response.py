"""Request/response clients (netperf TCP_RR) in VMs: closed loops through the host's uplink.

Each VM runs ``outstanding`` chains of transactions. A chain hands its
request to the host's uplink scheduler as a discrete frame on the VM's port
(so it waits behind whatever the bulk flows and other frames left in its
queue, and under NetIOC is charged to the port's leaf and waits for its
dispatch); when the request has left the uplink and crossed the switch, the
peer turns it around, the response crosses back, passes the VM's stack,
and after ``think_time`` the next request goes out. So a transaction's round
trip is

    host path + uplink (dispatch, queue, request's wire time) + switch latency
    + peer turnaround + switch latency + response's wire time,

the fixed parts being parameters of the NIC model (``peer_turnaround``,
``host_path_latency``, ``latency``, ``rate_bps``), and a chain's rate is one
transaction per round trip plus think time. A dropped request is sent again
after TCP's minimum retransmission timeout.

One object drives every chain of the scenario, so their frames reach the
uplink in time order. Events come at stretches of transactions, never per
packet:

- no other frame source on the uplink and the queues the requests use in
  their open regime, a bulk flow's fluid flowing in below their rate if any
  (``UplinkScheduler.frame_lanes``): every chain's requests up
  to ``STRETCH`` ahead, merged in time order (a heap of the chains' next
  requests), each sent as a lone frame through the scheduler's per-frame
  path, its departure setting its chain's next request; the closed loops
  are exact, each request meeting the ones before it. Where a frame's
  delay depends only on its queue (no completion gate, nothing drawn), the
  run of requests finding their queues empty is laid out at once first;
- no per-frame path (a queue the fluid fills, a scheduler sending frames
  its own way) and no other frame source: the requests due within the
  shortest possible round trip (nothing sent now can cause another before),
  as one burst through the scheduler;
- media servers' frames on the same uplink: the requests are sent late,
  whenever the uplink is about to take a media burst, a bulk flow's change
  or a reading of its counters (``SharedUplink.settle``), and at least every
  ``STRETCH``: every request due before then, in time order, each as a
  lone frame through the scheduler's per-frame path (or, without one, the
  requests due within the shortest round trip of the earliest as one burst,
  again and again). The media frames to come cannot be known ahead, but
  none of them can change a request already due, so the uplink takes every
  frame in the order of its time, as if each request had been sent at once.

Stretches end at every change of the bulk flows, at the warm-up's end and at
the run's end.

Each VM declares its request rate to the uplink (NetIOC allocates by it; a
FIFO leaves a flood what the declared frames do not take): its unloaded
rate when it starts, then, checked every ``DECLARE_WINDOW``, the rate it
sent at when that parts from the declared one by more than
``DECLARE_SLACK`` (chains losing requests to a full queue).
"""

import heapq
import math
from typing import Tuple

import numpy as np

from vsim.core.environment import scheduler_for
from vsim.net.frames import serialization_time
from vsim.net.shared_uplink import SharedUplink
from vsim.net.sources.protocol import Transactions

RTO_MIN = 0.2
"""Seconds before a lost request is sent again: Linux's minimum retransmission timeout
(TCP_RTO_MIN, 200 ms)."""

STRETCH = 20e-3
"""Seconds of transactions resolved per event where the requests go frame by frame."""

BIN = 1e-7
"""Width of the latency histograms' fine bins (s)."""

BINS = 100_000
"""Fine bins of each histogram: up to 10 ms."""

COARSE_BIN = 1e-4
"""Width of the coarse bins past the fine ones (s): a request lost and sent again after
``RTO_MIN`` makes a round trip of hundreds of milliseconds."""

COARSE_BINS = 100_000
"""Coarse bins: from 10 ms up to 10 s; longer values land in the last bin."""

US = 1e6

DECLARE_WINDOW = 0.1
"""Seconds over which a VM's requests sent are counted to check its declared rate."""

DECLARE_SLACK = 0.25
"""Share of its declared rate by which a VM's sent rate must part from it to be declared
again: queueing and NetIOC's dispatch slow closed loops by some per cent (15 % in
netioc-vsphere6's Fig 6) without their demand on the uplink changing its allocation;
retransmission timeouts cut it to a small part."""


class RequestResponseTraffic:
    """Every request/response chain on ``uplink`` (a ``SharedUplink``); ``nic`` is the NIC
    model's values; ``exclusive`` says no other frames (media servers') share the uplink."""

    def __init__(self, env, uplink: SharedUplink, nic, exclusive):
        self.env = env
        self.call_later = scheduler_for(env)
        self.uplink = uplink
        self.nic = nic
        self.exclusive = exclusive
        self.vms: list[dict] = []
        self.groups: list[str] = []

    @staticmethod
    def supports_closed_form() -> bool:
        """Frames through a scheduler need the event engine."""
        return False

    def add_vm(self, name: str, group: str, port: int, flow: int, traffic_class: int,
               source: Transactions, active: Tuple[float, float], rng: np.random.Generator) -> None:
        """A VM of ``group`` sending ``source``'s transactions (a ``TcpRequestResponse``) on
        ``port`` (declared as discrete ``flow``) from ``active[0]`` to ``active[1]`` of the run;
        ``rng`` draws its chains' starting phases."""
        self.vms.append({"name": name, "group": group, "port": port, "flow": flow,
                         "class": traffic_class, "source": source, "active": active, "rng": rng})
        if group not in self.groups:
            self.groups.append(group)

    # ------------------------------------------------------------ set-up
    def rest_of_loop(self, source):
        """Seconds of a round trip outside the uplink's scheduler and the request's departure:
        the switch both ways, the peer, the response's wire time, the VM's path, then think time."""
        nic = self.nic
        response_wire = float(serialization_time(source.response_ip_bytes, nic.rate_bps))
        return (nic.latency + nic.peer_turnaround + response_wire + nic.host_path_latency
                + source.think_time)

    def lone_round_trip(self, source):
        """Round trip of a transaction meeting nothing at the uplink (no think time)."""
        uplink = self.uplink
        return (float(uplink.frame_work(source.ip_bytes)) + uplink.latency
                + self.rest_of_loop(source) - source.think_time)

    def start(self, duration: float, warmup: float, barriers: np.ndarray) -> None:
        """Lay out the chains and schedule the first requests for a run of ``duration``;
        ``barriers`` are the times the bulk flows change."""
        self.duration, self.warmup = duration, warmup
        chain_vm, starts, stops, rests, ips = [], [], [], [], []
        edges = [warmup, duration]
        for index, vm in enumerate(self.vms):
            source = vm["source"]
            first, last = (fraction * duration for fraction in vm["active"])
            lone = self.lone_round_trip(source)
            cycle = lone + source.think_time
            phases = vm["rng"].uniform(0.0, cycle, source.outstanding)
            vm["window"] = (max(first, warmup), min(last, duration))
            for phase in phases.tolist():
                chain_vm.append(index)
                starts.append(first + phase)
                stops.append(last)
                rests.append(self.rest_of_loop(source))
                ips.append(source.ip_bytes)
            self.call_later(first - self.env.now, self._declare, (vm["flow"], source.outstanding / cycle))
            if last < duration:
                self.call_later(last - self.env.now, self._declare, (vm["flow"], 0.0))
            edges += [first, last]
        self.chain_vm = np.array(chain_vm, dtype=np.int64)
        names = self.groups
        self.chain_group = np.array([names.index(self.vms[i]["group"]) for i in chain_vm],
                                    dtype=np.int64)
        count = len(self.vms)
        self.vm_transactions = np.zeros(count, dtype=np.int64)
        self.vm_round_trips = np.zeros(count)
        self.vm_requests = np.zeros(count, dtype=np.int64)
        self.vm_sent = np.zeros(count, dtype=np.int64)
        self.window = (0.0, self.vm_sent.copy())
        self.vm_delays = np.zeros(count)
        self.vm_retransmissions = np.zeros(count, dtype=np.int64)
        self.round_trip_hist = np.zeros((len(names), BINS + COARSE_BINS), dtype=np.int64)
        self.delay_hist = np.zeros((len(names), BINS + COARSE_BINS), dtype=np.int64)
        self.ports = np.array([self.vms[i]["port"] for i in chain_vm], dtype=np.int64)
        self.classes = np.array([self.vms[i]["class"] for i in chain_vm], dtype=np.int64)
        self.ip_bytes = np.array(ips, dtype=float)
        self.rest = np.array(rests, dtype=float)
        self.think = np.array([self.vms[i]["source"].think_time for i in chain_vm], dtype=float)
        self.stop = np.array(stops, dtype=float)
        self.next_request = np.where(np.array(starts) < self.stop, starts, math.inf)
        self.txn_start = self.next_request.copy()
        chains = len(chain_vm)
        self.chain_begun = np.zeros(chains, dtype=np.int64)
        self.chain_completed = np.zeros(chains, dtype=np.int64)
        self.chain_back = np.full(chains, -math.inf)
        uplink = self.uplink
        self.lookahead = float(self.rest.min()) + uplink.latency if self.rest.size else math.inf
        self.queue = uplink.frame_queues(self.classes, self.ports)
        self.work = uplink.frame_work(self.ip_bytes)
        self.units = uplink.frame_units(self.ip_bytes)
        self.spacing = (float((self.work + uplink.latency + self.rest).min()) if self.rest.size
                        else math.inf)
        """Least time between two requests of a chain: the request's link time and the uplink's
        latency at least, then the rest of the loop."""
        self.barriers = np.unique(np.concatenate((np.asarray(barriers, dtype=float), edges)))
        if not self.exclusive:
            self.uplink.add_lagging_source(self)
        self._schedule()

    def _declare(self, flow_rate):
        """Declare a VM's request rate to the uplink (share-based schedulers allocate by it, a
        FIFO leaves a flood what the declared frames do not take)."""
        flow, pps = flow_rate
        self.uplink.set_rate(self.env.now, flow, pps)

    def _follow_sent_rates(self, now):
        """Every ``DECLARE_WINDOW``, declare again the rate of a sending VM whose requests sent
        over the window (resent ones included) part from its declared rate by more than
        ``DECLARE_SLACK`` of it: chains whose requests are lost wait out retransmission
        timeouts and send a small part of their unloaded rate, which the uplink must not keep
        reserving for them."""
        start, sent_then = self.window
        if now - start < DECLARE_WINDOW:
            return
        rates = (self.vm_sent - sent_then) / (now - start)
        self.window = (now, self.vm_sent.copy())
        flows = [vm["flow"] for vm in self.vms]
        declared = np.array([self.uplink.frames_rate(flow) for flow in flows])
        for vm in np.flatnonzero((declared > 0)
                                 & (np.abs(rates - declared) > DECLARE_SLACK * declared)):
            self._declare((flows[vm], float(rates[vm])))

    def _schedule(self):
        """The next step, if the run reaches it: at the earliest pending request, or where the
        requests are sent late, a ``STRETCH`` after it (the run's last ones are sent when its
        counters are read)."""
        if not self.next_request.size:
            return
        t = float(self.next_request.min())
        if not self.exclusive:
            t = max(t, self.env.now) + STRETCH
        if t < self.duration:
            self.call_later(t - self.env.now, self._step, None)

    # ------------------------------------------------------------ run
    def _next_barrier(self, now):
        k = int(np.searchsorted(self.barriers, now, side="right"))
        return float(self.barriers[k]) if k < self.barriers.size else math.inf

    def _step(self, _):
        now = self.env.now
        if not self.exclusive:
            self.catch_up(now)
            self._follow_sent_rates(now)
        else:
            self._follow_sent_rates(now)
            end = min(now + STRETCH, self._next_barrier(now))
            lanes = self._lanes(end)
            if lanes is not None:
                self._resolve(lanes, end)
            else:
                self._commit(np.flatnonzero(self.next_request < min(end, now + self.lookahead)))
        self._schedule()

    def _lanes(self, until):
        """The uplink's per-frame path for every chain's requests sent up to ``until``, None where
        it has none now."""
        return self.uplink.frame_lanes(self.queue, self.chain_vm.size, float(self.units.max()),
                                       float(self.work.max()), self.spacing, until)

    def catch_up(self, t):
        """Send every request due before ``t`` (the uplink is about to take something at ``t``),
        in time order, each request's departure setting its chain's next."""
        if not self.next_request.size or not float(self.next_request.min()) < t:
            return
        lanes = self._lanes(t)
        if lanes is not None:
            self._resolve(lanes, t)
            return
        while True:
            earliest = float(self.next_request.min())
            if not earliest < t:
                return
            self._commit(np.flatnonzero(self.next_request < min(t, earliest + self.lookahead)))

    def _commit(self, chains):
        """Send the next request of each of ``chains`` (all certain) on the real uplink."""
        if not chains.size:
            return
        times = self.next_request[chains]
        order = np.lexsort((chains, times))
        chains, times = chains[order], times[order]
        departures = self.uplink.transmit_frames(times, self.ip_bytes[chains], self.classes[chains],
                                                 self.ports[chains])
        self._record(chains, times, departures)

    def _resolve(self, lanes, end):
        """Every request before ``end`` through ``lanes`` (a ``FrameLanes``), in time order (ties
        by chain), each as a lone frame whose departure sets its chain's next request: first
        the run of them finding their queues empty, where the lanes can say so at once, then
        one by one."""
        sent = []
        if lanes.predictable:
            sent.append(self._quiet(lanes, end))
        sent.append(self._one_by_one(lanes, end))
        chains, times, departures = (np.concatenate(column) for column in zip(*sent))
        self.uplink.close_lanes(lanes, times, self.queue[chains], self.ip_bytes[chains],
                                departures)

    def _quiet(self, lanes, end):
        """The requests before ``end`` that find their queues empty, in a row from the first:
        each chain's laid out as if every one of its requests found its queue empty (the same
        sums as ``_one_by_one``), all merged in time order and taken up to the first that
        would find its queue busy; (chains, times, departures)."""
        pending = np.flatnonzero(self.next_request < end)
        sojourn = lanes.lone_sojourn(self.queue, self.work)
        latency = lanes.latency
        rest, think = self.rest.tolist(), self.think.tolist()
        chain_parts: list[np.ndarray] = []
        time_parts: list[list[float]] = []
        for c, t, last in zip(pending.tolist(), self.next_request[pending].tolist(),
                              np.minimum(self.stop[pending], end).tolist()):
            a, r, h = float(sojourn[c]), rest[c], think[c]
            mine = []
            while t < last:
                mine.append(t)
                t = t + (t + a + latency - t) + r - h + h
            chain_parts.append(np.full(len(mine), c, dtype=np.int64))
            time_parts.append(mine)
        chains = np.concatenate(chain_parts) if chain_parts else np.empty(0, dtype=np.int64)
        times = np.concatenate(time_parts) if time_parts else np.empty(0)
        order = np.lexsort((chains, times))
        chains, times = chains[order], times[order]
        taken = lanes.take_quiet(times, self.queue[chains], self.work[chains])
        chains, times = chains[:taken], times[:taken]
        departures = times + sojourn[chains] + latency
        if taken:
            self._record(chains, times, departures)
        return chains, times, departures

    def _one_by_one(self, lanes, end):
        """The requests before ``end``, chain after chain in time order (ties by chain), each
        through ``lanes``; (chains, times, departures)."""
        pending = np.flatnonzero(self.next_request < end)
        heap = list(zip(self.next_request[pending].tolist(), pending.tolist()))
        heapq.heapify(heap)
        queue, work = self.queue.tolist(), self.work.tolist()
        rest, think, stop = self.rest.tolist(), self.think.tolist(), self.stop.tolist()
        send, replace, pop = lanes.send, heapq.heapreplace, heapq.heappop
        sent = []
        while heap:
            t, c = heap[0]
            departure = send(t, queue[c], work[c])
            sent.append((c, t, departure))
            if departure == departure:  # sent; the same sums as _record's
                nxt = t + (departure - t) + rest[c] - think[c] + think[c]
            else:
                nxt = t + RTO_MIN
            if nxt < end and nxt < stop[c]:
                replace(heap, (nxt, c))
            else:
                pop(heap)
        if not sent:
            return np.empty(0, dtype=np.int64), np.empty(0), np.empty(0)
        chains, times, departures = (np.array(column) for column in zip(*sent))
        self._record(chains, times, departures)
        return chains, times, departures

    def _record(self, chains, times, departures):
        """Account the requests sent (each chain's in time order) and move every chain on."""
        sent = departures == departures  # not NaN
        delays = departures - times
        by_chain = np.lexsort((times, chains))
        c, t, d, ok = chains[by_chain], times[by_chain], delays[by_chain], sent[by_chain]
        first_of_chain = np.append(True, c[1:] != c[:-1])
        last_of_chain = np.append(c[1:] != c[:-1], True)
        starts = np.where(first_of_chain, self.txn_start[c], t)
        back = t + d + self.rest[c] - self.think[c]
        self._account(c, t, d, ok, back - starts, back)
        ends = last_of_chain
        tail = c[ends]
        nxt = np.where(ok[ends], back[ends] + self.think[tail], t[ends] + RTO_MIN)
        self.txn_start[tail] = np.where(ok[ends], nxt, starts[ends])
        self.next_request[tail] = np.where(nxt < self.stop[tail], nxt, math.inf)
        self.vm_sent += np.bincount(self.chain_vm[c], minlength=self.vm_sent.size)
        chains_count = self.chain_begun.size
        self.chain_begun += np.bincount(c[t == starts], minlength=chains_count)
        self.chain_completed += np.bincount(c[ok & (back < self.duration)], minlength=chains_count)
        self.chain_back[tail] = np.where(ok[ends], back[ends], math.inf)

    def _account(self, chains, times, delays, sent, round_trips, back):
        """Add completed transactions (response back in the window) and uplink delays (requests
        sent in the window) to their VM and group."""
        count = len(self.vms)
        vm_of = self.chain_vm[chains]
        group_of = self.chain_group[chains]
        done = sent & (back >= self.warmup) & (back < self.duration)
        in_window = (times >= self.warmup) & (times < self.duration)
        measured = sent & in_window
        waited = delays - self.uplink.latency
        self.vm_transactions += np.bincount(vm_of[done], minlength=count)
        self.vm_round_trips += np.bincount(vm_of[done], weights=round_trips[done], minlength=count)
        self.vm_requests += np.bincount(vm_of[measured], minlength=count)
        self.vm_delays += np.bincount(vm_of[measured], weights=waited[measured], minlength=count)
        self.vm_retransmissions += np.bincount(vm_of[~sent & in_window], minlength=count)
        _add(self.round_trip_hist, group_of[done], round_trips[done])
        _add(self.delay_hist, group_of[measured], waited[measured])

    # ------------------------------------------------------------ results
    def summary(self):
        """Per group: transactions/s, one-way latency (round trip / 2, as netperf reports it)
        and the requests' uplink delay, over the measuring window; per VM its own."""
        out = {}
        for g, name in enumerate(self.groups):
            mine = [i for i, vm in enumerate(self.vms) if vm["group"] == name]
            per_vm = []
            for i in mine:
                first, last = self.vms[i]["window"]
                n, requests = int(self.vm_transactions[i]), int(self.vm_requests[i])
                per_vm.append({
                    "vm": self.vms[i]["name"],
                    "transactions_per_s": n / (last - first) if last > first else None,
                    "one_way_latency_mean_us": float(self.vm_round_trips[i]) / n / 2 * US if n else None,
                    "uplink_delay_mean_us": (float(self.vm_delays[i]) / requests * US
                                             if requests else None),
                    "retransmissions": int(self.vm_retransmissions[i]),
                })
            total = int(self.vm_transactions[mine].sum())
            requests = int(self.vm_requests[mine].sum())
            rates = [entry["transactions_per_s"] for entry in per_vm
                     if entry["transactions_per_s"] is not None]
            out[name] = {
                "transactions_per_s": sum(rates) if rates else None,
                "transactions_per_s_per_vm": sum(rates) / len(rates) if rates else None,
                "one_way_latency_mean_us": (float(self.vm_round_trips[mine].sum()) / total / 2 * US
                                            if total else None),
                "one_way_latency_p99_us": _p99(self.round_trip_hist[g], US / 2),
                "uplink_delay_mean_us": (float(self.vm_delays[mine].sum()) / requests * US
                                         if requests else None),
                "uplink_delay_p99_us": _p99(self.delay_hist[g], US),
                "retransmissions": int(self.vm_retransmissions[mine].sum()),
                "per_vm": per_vm,
                "definition": "netperf TCP_RR: transactions completed in the measuring window per "
                              "second; one-way latency = round trip / 2; uplink delay = a request's "
                              "time from its hand-over to the uplink until it has left (NetIOC's "
                              "dispatch wait, queue and wire time), requests sent in the window; "
                              "retransmissions = requests sent in the window that were lost and "
                              "sent again after TCP's retransmission timeout",
            }
        return out


def _add(histograms, rows, values):
    """Count ``values`` (s) into the bins of ``histograms``' ``rows``: ``BIN`` wide up to
    ``BINS`` of them, then ``COARSE_BIN`` wide."""
    if values.size:
        fine = (values / BIN).astype(np.int64)
        coarse = BINS + ((values - BINS * BIN) / COARSE_BIN).astype(np.int64)
        bins = np.where(fine < BINS, fine, np.minimum(coarse, BINS + COARSE_BINS - 1))
        np.add.at(histograms, (rows, bins), 1)


def _p99(histogram, scale):
    """The 99th percentile of a histogram times ``scale``, None when empty: the upper edge of
    its bin, at most a bin above the values' own and never below it (so never below their
    mean when they all share one bin)."""
    total = int(histogram.sum())
    if not total:
        return None
    k = int(np.searchsorted(np.cumsum(histogram), 0.99 * total))
    if k < BINS:
        return (k + 1) * BIN * scale
    return (BINS * BIN + (k - BINS + 1) * COARSE_BIN) * scale
