"""A VM whose network load is a bulk traffic source: a UDP flood, a TCP stream.

The source comes from the registry ``vsim.net.sources`` by name. Its traffic
is a flow on the host's ``SharedUplink``; the VM's only events are the
flow's rate changes (a flood starting, pausing, stopping), never packets.
The traffic runs from ``active_from`` to ``active_until`` of the run (as
fractions, so a shortened run keeps the scenario's shape). A flood's rate is
its own (``rate_changes``); an elastic stream offers what its window and the
line allow (``demand_pps``) and takes what the uplink scheduler leaves it.
With ``cpu`` (a ``vsim.guest.sender_cpu.SenderCpu``) the VM's sender threads
and its transmit world use CPU while it sends, and the flow offers no more
than that CPU keeps up with (the sender's ``allowance``).
"""

import math

import numpy as np

from vsim.core.environment import scheduler_for
from vsim.net.sources import make_source
from vsim.net.sources.protocol import Flood, Stream


class TrafficVm:
    """One VM sending ``kind`` traffic with ``params`` on flow ``flow`` of ``uplink``."""

    def __init__(self, env, uplink, flow, kind, params, *, active_from, active_until, rng,
                 cpu=None, source="<input>", where="traffic"):
        self.env = env
        self.call_later = scheduler_for(env)
        self.uplink = uplink
        self.flow = flow
        self.kind = kind
        self.params = dict(params)
        self.active = (active_from, active_until)
        self.rng = rng
        self.cpu = cpu
        self.where = (source, where)
        self.source = make_source(kind, self.params, source, where, rng)
        self._wanted = 0.0  # pps the source's schedule asks for now
        if cpu is not None:
            cpu.on_allowance = self._offer

    @staticmethod
    def supports_closed_form() -> bool:
        """A bulk flow changes the uplink's queues: the closed form does not cover it."""
        return False

    def rate_schedule(self, duration, rate_bps):
        """(times, pps) of the flow over a run of ``duration`` on a ``rate_bps`` uplink."""
        start, stop = (fraction * duration for fraction in self.active)
        if isinstance(self.source, Flood):
            timed = make_source(self.kind, {**self.params, "start": start, "stop": stop},
                                *self.where, self.rng)
            assert isinstance(timed, Flood)  # the same source, from the run's start to its stop
            return timed.rate_changes(duration)
        assert isinstance(self.source, Stream)  # a traffic VM sends a flood or a stream
        times = np.array([0.0, start, stop])
        rates = np.array([0.0, self.source.demand_pps(rate_bps), 0.0])
        keep = np.append(np.diff(times) > 0, True)  # of changes at one instant, the last holds
        return times[keep], rates[keep]

    def start(self, duration: float, rate_bps: float) -> np.ndarray:
        """Schedule the flow's rate changes for a run of ``duration``; returns their times."""
        times, rates = self.rate_schedule(duration, rate_bps)
        for when, pps in zip(times.tolist(), rates.tolist()):
            self.call_later(when - self.env.now, self._set, pps)
        return times

    def _set(self, pps):
        self._wanted = pps
        self._offer()
        if self.cpu is not None:
            self.cpu.wake()

    def _offer(self, _allowance=None):
        """Offer the schedule's rate, or what the sender's CPU keeps up with when that is less;
        also the sender's ``on_allowance``."""
        allowance = math.inf if self.cpu is None else self.cpu.allowance
        self.uplink.set_rate(self.env.now, self.flow, min(self._wanted, allowance))
