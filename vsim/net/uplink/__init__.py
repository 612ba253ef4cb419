"""Uplink schedulers, one module each, looked up by name.

A scheduler takes frames (``transmit``) and bulk flows (``set_flows``) and
answers departures and flow rates; ``vsim.net.uplink.base`` describes the
interface. A new scheduler is one module with a subclass of
``UplinkScheduler`` overriding ``queue_index`` and ``service_rates``, plus an
entry in ``SCHEDULERS``.
"""

from vsim.net.uplink.fifo import FifoScheduler
from vsim.net.uplink.multiqueue import MultiQueueScheduler
from vsim.net.uplink.netioc import NetiocScheduler

SCHEDULERS = {
    "fifo": FifoScheduler,
    "multiqueue": MultiQueueScheduler,
    "netioc": NetiocScheduler,
}


def make_uplink_scheduler(name, rate_bps, limit, unit="packets", **params):
    """Instantiate the uplink scheduler registered under ``name``."""
    try:
        cls = SCHEDULERS[name]
    except KeyError:
        raise ValueError(
            f"unknown uplink scheduler {name!r}; expected one of {sorted(SCHEDULERS)}") from None
    return cls(rate_bps, limit, unit, **params)
