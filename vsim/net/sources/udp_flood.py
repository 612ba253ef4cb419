"""A UDP flood: a fluid of fixed-size packets at a constant or on/off rate.

Seed 000's four flood VMs send about 390 K packets/s at 880 Mb/s; a source
quoting a bit rate at the frame level (as packet generators do) converts
with ``pps_for_bitrate``. On/off floods alternate ``on`` seconds at ``pps``
and ``off`` seconds silent, with fixed durations or, with ``random_periods``,
exponential ones of those means (a two-state Markov-modulated source), drawn
from the generator the scenario names for this source. The rate is
piecewise constant, so the uplink sees a handful of changes, not packets.

While it sends, a flood's packets are evenly paced (``arrivals = "paced"``,
one every ``1/pps`` seconds, as a sender sleeping to absolute deadlines
makes them: ``vsim probe net``'s flood) or, if the source says so,
independent (``"poisson"``: many senders' packets merged), or written in
batches on the sender's timer wake-ups (``"batched"``): it wakes every
``wakeup`` seconds, late by a log-normal of median ``wakeup_median`` and
shape ``wakeup_sigma``, and writes every packet due by then back to back,
``write_spacing`` apart (its send call's cost), a share ``stall_share`` of the
wake-ups later still by an exponential of mean ``stall_mean`` (the sender
kept off a CPU), as a bulk sender on a pacing
timer does (iperf3's ``--pacing-timer``, 1 ms by default; ``vsim probe net
--flood-wakeup``). A queue that draws the flood's packets one by one follows
them (``vsim.net.fluid.arrivals``). A batched sender's socket may hold at most
``send_buffer`` of its packets unsent (its send buffer over each packet's
truesize: 212992 / 2304 = 92.4 for a 1000 B datagram on Linux 6.18,
``validation/socket_buffer``): a write finding that many still queued blocks
until fewer than half are left.
"""

import math

import numpy as np

from vsim.core.errors import InputError
from vsim.core.units import BITS_PER_BYTE
from vsim.net.fluid.arrivals import ARRIVALS, WakeupBatches
from vsim.net.frames import IPV4_HEADER, UDP_HEADER, frame_bytes, wire_bytes
from vsim.net.sources.validate import ip_packet, non_negative, packet_rate, positive

LEVELS = {"ip": lambda ip: ip, "frame": frame_bytes, "wire": wire_bytes}


def pps_for_bitrate(bitrate_bps, ip_bytes, level="frame"):
    """Packets/s of ``ip_bytes`` packets making ``bitrate_bps`` counted at ``level``
    ("ip", "frame" = MAC header to FCS, "wire" = with preamble and gap)."""
    return bitrate_bps / (BITS_PER_BYTE * LEVELS[level](ip_bytes))


class UdpFlood:
    """``pps`` packets/s of ``ip_bytes`` from ``start`` to ``stop``; on/off if ``on`` and ``off``
    given; packets ``arrivals`` "paced" (evenly spaced), "poisson" or "batched" (written on
    wake-ups every ``wakeup`` s, ``wakeup_median``/``wakeup_sigma`` late, ``write_spacing`` apart,
    at most ``send_buffer`` unsent in its socket)."""

    elastic = False
    discrete = False

    def __init__(self, pps, ip_bytes, start=0.0, stop=math.inf, on=None, off=None,
                 random_periods=False, arrivals="paced", wakeup=None, wakeup_median=0.0,
                 wakeup_sigma=0.0, write_spacing=0.0, stall_share=0.0, stall_mean=0.0, wakeup_phase=None,
                 send_buffer=0.0, rng=None, source="<input>", where="traffic"):
        self.pps = packet_rate(pps, "pps", source, where)
        self.ip_bytes = ip_packet(ip_bytes, "ip_bytes", source, where, IPV4_HEADER + UDP_HEADER)
        self.start = non_negative(start, "start", source, where)
        self.stop = positive(stop, "stop", source, where, allow_inf=True)
        if self.stop <= self.start:
            raise InputError(source, f"{where}.stop", f"a time after start {self.start!r}, got {stop!r}")
        if (on is None) != (off is None):
            raise InputError(source, f"{where}.{'off' if off is None else 'on'}",
                             "both on and off durations, or neither")
        self.on = None if on is None else positive(on, "on", source, where)
        self.off = None if off is None else positive(off, "off", source, where)
        if random_periods and rng is None:
            raise ValueError("random on/off periods need a random generator")
        self.random_periods = bool(random_periods)
        if arrivals not in ARRIVALS:
            raise InputError(source, f"{where}.arrivals", f"one of {list(ARRIVALS)}, got {arrivals!r}")
        self.arrivals = arrivals
        self.batches = self._batches(wakeup, (wakeup_median, wakeup_sigma, write_spacing, stall_share, stall_mean,
                                              send_buffer), wakeup_phase, source, where)
        self.rng = rng

    def _batches(self, wakeup, rest, phase, source, where):
        """The sender's wake-up pattern for "batched" arrivals (which need ``wakeup``); None for
        the others, which take none of its parameters (``rest``: median, sigma, spacing, stall
        share and mean, send buffer, each 0 when not given)."""
        names = ("wakeup_median", "wakeup_sigma", "write_spacing", "stall_share", "stall_mean", "send_buffer")
        if self.arrivals != "batched":
            given = ([] if wakeup is None else ["wakeup"]) + [name for name, value in zip(names, rest) if value != 0.0] \
                + ([] if phase is None else ["wakeup_phase"])
            if given:
                raise InputError(source, f"{where}.{given[0]}",
                                 f'only with arrivals = "batched" (a sender writing on wake-ups), '
                                 f"not {self.arrivals!r}")
            return None
        if wakeup is None:
            raise InputError(source, f"{where}.wakeup",
                             'the sender\'s wake-up period in s, which arrivals = "batched" needs')
        median, sigma, spacing, share, mean, send_buffer = (non_negative(value, name, source, where)
                                                            for name, value in zip(names, rest))
        if share > 1:
            raise InputError(source, f"{where}.stall_share", f"a share of the wake-ups within [0, 1], got {share!r}")
        period = positive(wakeup, "wakeup", source, where)
        if phase is not None and not 0 <= non_negative(phase, "wakeup_phase", source, where) < period:
            raise InputError(source, f"{where}.wakeup_phase", f"a phase within [0, wakeup {period!r}), got {phase!r}")
        return WakeupBatches(period, median, sigma, spacing, share, mean, phase, send_buffer)

    def mean_pps(self):
        """Long-run packet rate while the flood is running."""
        if self.on is None or self.off is None:  # both or neither (``__init__``)
            return self.pps
        return self.pps * self.on / (self.on + self.off)

    def rate_changes(self, until):
        """(times, pps): the rate ``pps[i]`` holds from ``times[i]`` to ``times[i+1]``, up to ``until``."""
        end = min(self.stop, until)
        if end <= self.start:
            return np.array([0.0]), np.array([0.0])
        if self.on is None or self.off is None:
            edges = np.array([self.start, end])
        else:
            cycles = int(math.ceil((end - self.start) / (self.on + self.off))) + 1
            if self.random_periods:
                periods = np.empty(2 * cycles)
                periods[0::2] = self.rng.exponential(self.on, cycles)
                periods[1::2] = self.rng.exponential(self.off, cycles)
                while self.start + periods.sum() < end:
                    more = np.empty(2 * cycles)
                    more[0::2] = self.rng.exponential(self.on, cycles)
                    more[1::2] = self.rng.exponential(self.off, cycles)
                    periods = np.concatenate((periods, more))
            else:
                periods = np.tile([self.on, self.off], cycles)
            edges = self.start + np.concatenate(([0.0], np.cumsum(periods)))
            edges = np.concatenate((edges[edges < end], [end]))
        times = np.concatenate(([0.0], edges)) if self.start > 0 else edges
        rates = np.zeros(times.size)
        first = 1 if self.start > 0 else 0
        rates[first:-1:2] = self.pps
        return times, rates
