"""Traffic sources, one module each, looked up by name.

A source says what it offers the uplink: ``elastic`` (follows the rate it is
allocated: TCP), ``discrete`` (its packets go through ``transmit`` one by
one: request/response, a replayed trace) or neither (a fluid that keeps
offering: a UDP flood); ``ip_bytes``, its packet size; and its rates
(``rate_changes`` for a flood, ``demand_pps`` for a stream, ``outstanding``
chains for transactions, ``send_times`` for a replay); a flood also says how
its packets arrive (``arrivals``: "paced" or "poisson").
``vsim.net.sources.protocol`` lists what each kind offers. A new source is
one module plus an entry in ``SOURCES``, which mypy checks against
``TrafficSource``.
"""

import inspect
from typing import Any, Dict, Mapping, Optional

import numpy as np

from vsim.core.errors import InputError, did_you_mean
from vsim.net.sources.nfs_read import NfsRead
from vsim.net.sources.packets_replay import PacketsReplay
from vsim.net.sources.protocol import SourceFactory, TrafficSource
from vsim.net.sources.sipp_uac import SippUac
from vsim.net.sources.tcp_rr import TcpRequestResponse
from vsim.net.sources.tcp_stream import TcpStream
from vsim.net.sources.udp_flood import UdpFlood
from vsim.net.sources.web_users import WebUsers

SOURCES: Dict[str, SourceFactory] = {
    "udp_flood": UdpFlood,
    "tcp_stream": TcpStream,
    "nfs_read": NfsRead,
    "tcp_rr": TcpRequestResponse,
    "packets_replay": PacketsReplay,
    "sipp_uac": SippUac,
    "web_users": WebUsers,
}


def make_source(name: str, params: Mapping[str, Any], source: str = "<input>",
                where: str = "traffic", rng: Optional[np.random.Generator] = None) -> TrafficSource:
    """The source registered under ``name`` built from the ``params`` mapping.

    An unknown name or parameter is an ``InputError`` naming ``source`` and
    ``where`` (the scenario key of this source). ``rng`` is the source's own
    random stream, for the sources that draw (random on/off periods).
    """
    try:
        cls = SOURCES[name]
    except KeyError:
        raise InputError(source, f"{where}.kind",
                         did_you_mean(str(name), sorted(SOURCES))
                         or f"one of {', '.join(sorted(SOURCES))}, got {name!r}") from None
    signature = inspect.signature(cls).parameters
    accepted = [p for p in signature if p not in ("source", "where", "rng")]
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        hint = did_you_mean(unknown[0], accepted)
        raise InputError(source, f"{where}.{unknown[0]}",
                         f"a parameter of {name}: one of {', '.join(accepted)}"
                         + (f"; {hint}" if hint else ""))
    missing = [p for p in accepted if signature[p].default is inspect.Parameter.empty
               and p not in params]
    if missing:
        raise InputError(source, f"{where}.{missing[0]}",
                         f"expected {' and '.join(missing)}, which {name} requires")
    if "rng" in signature:
        return cls(**params, rng=rng, source=source, where=where)
    return cls(**params, source=source, where=where)
