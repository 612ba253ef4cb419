"""What the host asks of a traffic source: ``TrafficSource``, and one protocol per kind.

Every source says how the uplink carries it (``elastic``, ``discrete``) and
its packet size (``ip_bytes``). Which of the three kinds it is follows from
the first two, and each kind offers what its VM model reads:

- a flood (neither elastic nor discrete: a fluid that keeps offering, a UDP
  flood) is a ``Flood``: its rates (``rate_changes``), its long-run rate
  (``mean_pps``) and how its packets arrive (``arrivals``);
- a stream (elastic: follows the rate the uplink scheduler leaves it, TCP)
  is a ``Stream``: what it offers on a link (``demand_pps``) and the
  goodput of a packet rate (``goodput_bps``); it may also offer
  ``counted_bytes`` (the bytes a metering scheduler counts per frame when
  the guest sends segments of several frames; without it, each frame's own);
- transactions (discrete: packets through ``transmit`` one by one,
  request/response) are ``Transactions``: how many are in flight
  (``outstanding``), the wait after each response (``think_time``) and the
  response's size (``response_ip_bytes``);
- a replay (discrete, nothing answering it: recorded packets sent again) is
  a ``Replay``: the trace it replays (``trace``), which the layer reading
  files hands its packets (``recorded``), and their send times and sizes
  (``send_times``).

``Flood``, ``Stream`` and ``Replay`` can be told apart with ``isinstance`` (by the members
present, as a protocol is). A new source is a class of one kind built from its parameters by keyword
(plus ``source`` and ``where``, the file and key to name in an
``InputError``, and ``rng`` if it draws), registered in
``vsim.net.sources.SOURCES``; mypy checks each entry against
``TrafficSource``.
"""

from typing import Callable, Optional, Protocol, Sequence, Tuple, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike

from vsim.net.fluid.arrivals import WakeupBatches


class TrafficSource(Protocol):
    """What the host reads of any source (see the module's docstring)."""

    @property
    def elastic(self) -> bool:
        """Whether it follows the rate it is allocated (TCP)."""

    @property
    def discrete(self) -> bool:
        """Whether its packets go through the scheduler's ``transmit`` one by one."""

    @property
    def ip_bytes(self) -> float:
        """Its packets' IP size, bytes."""


@runtime_checkable
class Flood(TrafficSource, Protocol):
    """A fluid of packets at rates of its own."""

    @property
    def arrivals(self) -> str:
        """How its packets arrive while it sends: "paced", "poisson" or "batched"."""

    @property
    def batches(self) -> Optional[WakeupBatches]:
        """With "batched" arrivals, the sender's wake-ups that write them; else None."""

    def rate_changes(self, until: float) -> Tuple[np.ndarray, np.ndarray]:
        """(times, pps): the rate ``pps[i]`` holds from ``times[i]`` to ``times[i+1]``, up to
        ``until``."""

    def mean_pps(self) -> float:
        """Long-run packet rate while it runs."""


@runtime_checkable
class Stream(TrafficSource, Protocol):
    """An elastic flow taking what the uplink leaves it."""

    def demand_pps(self, rate_bps: float) -> float:
        """Packets/s it offers on a link of ``rate_bps``."""

    def goodput_bps(self, pps: ArrayLike) -> ArrayLike:
        """Application data rate of ``pps`` packets/s."""


class Transactions(TrafficSource, Protocol):
    """Request/response chains: each request waits for the previous response."""

    @property
    def outstanding(self) -> int:
        """Transactions in flight at once (chains)."""

    @property
    def think_time(self) -> float:
        """Seconds a chain waits after a response before its next request."""

    @property
    def response_ip_bytes(self) -> float:
        """The response packet's IP size, bytes."""


@runtime_checkable
class Replay(TrafficSource, Protocol):
    """Recorded packets sent again at their recorded times, open loop."""

    @property
    def trace(self) -> str:
        """The path of the trace it replays, as the scenario gives it."""

    @property
    def packets(self) -> int:
        """Packets it keeps from the trace (0 until ``recorded``)."""

    def recorded(self, send_s: ArrayLike, size_bytes: ArrayLike, streams: Sequence[str],
                 classes: Sequence[str], path: str) -> "Replay":
        """Keep the packets of the trace read from ``path`` (its columns) that it replays."""

    def send_times(self, start: float) -> Tuple[np.ndarray, np.ndarray]:
        """(times, IP bytes) of its packets for traffic starting at ``start``."""


SourceFactory = Callable[..., TrafficSource]
"""A source class, called with its parameters by keyword and ``source``, ``where`` (and
``rng``)."""
