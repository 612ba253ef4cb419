"""Uplink schedulers, one module each, looked up by name.

A scheduler takes frames (``transmit``) and bulk flows (``set_flows``) and
answers departures and flow rates; ``vsim.net.uplink.protocol.Scheduler`` is
what the host's uplink asks of one, and ``vsim.net.uplink.base`` describes how
``UplinkScheduler`` provides it. A new scheduler is one module with a
subclass of ``UplinkScheduler`` overriding ``queue_index`` and
``service_rates``, plus an entry in ``SCHEDULERS``, which mypy checks against
the protocol.
"""

from typing import Any, Dict

from vsim.net.uplink.fifo import FifoScheduler
from vsim.net.uplink.htb import HtbScheduler
from vsim.net.uplink.multiqueue import MultiQueueScheduler
from vsim.net.uplink.netioc import NetiocScheduler
from vsim.net.uplink.protocol import Scheduler, SchedulerFactory
from vsim.net.uplink.tbf import TbfScheduler
from vsim.net.uplink.tc_fifo import BfifoScheduler, PfifoScheduler

SCHEDULERS: Dict[str, SchedulerFactory] = {
    "fifo": FifoScheduler,
    "multiqueue": MultiQueueScheduler,
    "netioc": NetiocScheduler,
    "pfifo": PfifoScheduler,
    "bfifo": BfifoScheduler,
    "tbf": TbfScheduler,
    "htb": HtbScheduler,
}


def make_uplink_scheduler(name: str, rate_bps: float, limit: Any, unit: str = "packets",
                          **params: Any) -> Scheduler:
    """Instantiate the uplink scheduler registered under ``name``."""
    try:
        cls = SCHEDULERS[name]
    except KeyError:
        raise ValueError(
            f"unknown uplink scheduler {name!r}; expected one of {sorted(SCHEDULERS)}") from None
    return cls(rate_bps, limit, unit, **params)
