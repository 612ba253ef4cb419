"""VMs replaying recorded packets (``packets_replay``) on the host's uplink, open loop.

Each VM's source gives its packets' send times and sizes
(``PacketsReplay.send_times``: a trace's, the first at the traffic's start
plus the source's ``offset``); those that fall before the traffic stops
(``active_until``, and the run's end) are the VM's. Every VM's packets are
merged in time order (ties by VM) and each goes to the uplink scheduler as a
discrete frame on the VM's port, at its recorded instant: it waits behind
what the bulk flows and other frames left in its queue, and nothing it meets
moves the next packet (nothing answers a replayed packet).

The frames are handed late, in batches, as request/response chains beside
media servers are (``vsim.guest.request_response``): the replay registers
with the uplink as a lagging source, so before a media burst, a bulk flow's
change or a reading of the counters it sends every packet due before then,
and at least every ``STRETCH`` it sends what is due; the scheduler still takes
every frame in time order. Events come per stretch, never per packet. Each
VM declares its mean packet rate over its active time to the uplink while it
sends (NetIOC allocates by it; a FIFO leaves a flood what it does not take).

A VM's CPU is not modelled (a replay stands for traffic whose sender is not
the question). Over the measuring window each group reports its packets
offered and delivered per second, its loss and its packets' uplink delay.
"""

from typing import Tuple

import numpy as np

from vsim.core.environment import scheduler_for
from vsim.net.sources.protocol import Replay

STRETCH = 20e-3
"""Seconds of packets sent per event when nothing else makes the uplink take frames."""

DELAY_BIN = 1e-6
"""Width of the uplink-delay histograms' bins (s)."""

DELAY_BINS = 100_000
"""Bins of each histogram: delays up to 0.1 s; longer ones land in the last bin."""

US = 1e6


class ReplayedTraffic:
    """Every replaying VM on ``uplink`` (a ``SharedUplink``)."""

    def __init__(self, env, uplink):
        self.env = env
        self.call_later = scheduler_for(env)
        self.uplink = uplink
        self.vms = []
        self.groups = []

    @staticmethod
    def supports_closed_form() -> bool:
        """Frames through a scheduler need the event engine."""
        return False

    def add_vm(self, name: str, group: str, port: int, flow: int, traffic_class: int,
               source: Replay, active: Tuple[float, float]) -> None:
        """A VM of ``group`` replaying ``source``'s packets on ``port`` (declared as discrete
        ``flow`` of ``traffic_class``) from ``active[0]`` to ``active[1]`` of the run."""
        self.vms.append({"name": name, "group": group, "port": port, "flow": flow,
                         "class": traffic_class, "source": source, "active": active})
        if group not in self.groups:
            self.groups.append(group)

    def start(self, duration: float, warmup: float) -> None:
        """Lay out every VM's packets for a run of ``duration`` (measured after ``warmup``),
        declare the VMs' rates and schedule the first batch."""
        self.duration, self.warmup = duration, warmup
        times, sizes, owners = [], [], []
        for index, vm in enumerate(self.vms):
            first, last = (fraction * duration for fraction in vm["active"])
            sent, ip_bytes = vm["source"].send_times(first)
            keep = sent < last
            times.append(sent[keep])
            sizes.append(ip_bytes[keep])
            owners.append(np.full(int(keep.sum()), index, dtype=np.int64))
            vm["window"] = (max(first, warmup), last)
            self.call_later(first - self.env.now, self._declare,
                            (vm["flow"], int(keep.sum()) / (last - first)))
            if last < duration:
                self.call_later(last - self.env.now, self._declare, (vm["flow"], 0.0))
        all_times = np.concatenate(times) if times else np.empty(0)
        all_owners = np.concatenate(owners) if owners else np.empty(0, dtype=np.int64)
        order = np.lexsort((all_owners, all_times))
        self.times = all_times[order]
        self.ip_bytes = (np.concatenate(sizes) if sizes else np.empty(0))[order]
        self.vm_of = all_owners[order]
        self.ports = np.array([vm["port"] for vm in self.vms], dtype=np.int64)[self.vm_of]
        self.classes = np.array([vm["class"] for vm in self.vms], dtype=np.int64)[self.vm_of]
        self.group_of = np.array([self.groups.index(vm["group"]) for vm in self.vms],
                                 dtype=np.int64)
        self.next = 0
        count = len(self.vms)
        self.vm_offered = np.zeros(count, dtype=np.int64)
        self.vm_delivered = np.zeros(count, dtype=np.int64)
        self.vm_delays = np.zeros(count)
        self.delay_hist = np.zeros((len(self.groups), DELAY_BINS), dtype=np.int64)
        self.departures = np.full(self.times.size, np.nan)
        self.uplink.add_lagging_source(self)
        self._schedule()

    def _declare(self, flow_rate):
        """Declare a VM's packet rate to the uplink."""
        flow, pps = flow_rate
        self.uplink.set_rate(self.env.now, flow, pps)

    def _schedule(self):
        """The next batch, if the run reaches it: a ``STRETCH`` after the earliest packet due
        (the run's last ones are sent when its counters are read)."""
        if self.next >= self.times.size:
            return
        t = max(float(self.times[self.next]), self.env.now) + STRETCH
        if t < self.duration:
            self.call_later(t - self.env.now, self._step, None)

    def _step(self, _):
        self.catch_up(self.env.now)
        self._schedule()

    def catch_up(self, t):
        """Send every packet due before ``t`` (the uplink is about to take something at
        ``t``), in time order."""
        end = int(np.searchsorted(self.times, t, side="left"))
        if end <= self.next:
            return
        batch = slice(self.next, end)
        self.next = end
        times = self.times[batch]
        departures = self.uplink.transmit_frames(times, self.ip_bytes[batch],
                                                 self.classes[batch], self.ports[batch])
        self.departures[batch] = departures
        self._account(self.vm_of[batch], times, departures)

    def _account(self, vms, times, departures):
        """Count the packets sent in the measuring window, per VM, and their uplink delays,
        per group."""
        count = len(self.vms)
        measured = (times >= self.warmup) & (times < self.duration)
        got = measured & (departures == departures)  # not NaN: not dropped
        delays = departures[got] - times[got]
        self.vm_offered += np.bincount(vms[measured], minlength=count)
        self.vm_delivered += np.bincount(vms[got], minlength=count)
        self.vm_delays += np.bincount(vms[got], weights=delays, minlength=count)
        bins = np.minimum((delays / DELAY_BIN).astype(np.int64), DELAY_BINS - 1)
        np.add.at(self.delay_hist, (self.group_of[vms[got]], bins), 1)

    def sent(self):
        """(times, departures) of every packet handed to the uplink so far, in time order;
        a dropped packet's departure is NaN."""
        return self.times[:self.next].copy(), self.departures[:self.next].copy()

    def summary(self):
        """Per group: packets offered and delivered per second over the measuring window,
        their loss and uplink delay; per VM its own."""
        out = {}
        for g, name in enumerate(self.groups):
            mine = [i for i, vm in enumerate(self.vms) if vm["group"] == name]
            per_vm = []
            for i in mine:
                first, last = self.vms[i]["window"]
                span = last - first
                per_vm.append({
                    "vm": self.vms[i]["name"],
                    "packets": int(self.vm_offered[i]),
                    "offered_pps": int(self.vm_offered[i]) / span if span > 0 else None,
                    "delivered_pps": int(self.vm_delivered[i]) / span if span > 0 else None,
                })
            offered, delivered = int(self.vm_offered[mine].sum()), int(self.vm_delivered[mine].sum())
            rates = [(entry["offered_pps"], entry["delivered_pps"]) for entry in per_vm
                     if entry["offered_pps"] is not None]
            out[name] = {
                "packets": offered,
                "offered_pps": sum(rate for rate, _ in rates) if rates else None,
                "delivered_pps": sum(rate for _, rate in rates) if rates else None,
                "loss_fraction": 1 - delivered / offered if offered else None,
                "uplink_delay_mean_us": (float(self.vm_delays[mine].sum()) / delivered * US
                                         if delivered else None),
                "uplink_delay_p99_us": _p99_us(self.delay_hist[g]),
                "per_vm": per_vm,
                "definition": "replayed packets (packets_replay) sent in the measuring window: "
                              "offered and delivered per second of the group's active time, the "
                              "share dropped at the uplink, and the uplink delay from handing a "
                              "packet over to its departure plus the NIC's latency",
            }
        return out


def _p99_us(histogram):
    """The 99th percentile of a delay histogram in µs (the upper edge of its bin), None when
    empty."""
    total = int(histogram.sum())
    if not total:
        return None
    k = int(np.searchsorted(np.cumsum(histogram), 0.99 * total))
    return (k + 1) * DELAY_BIN * US
