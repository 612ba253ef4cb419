"""What the host's uplink asks of an uplink scheduler: ``Scheduler``.

``vsim.net.shared_uplink.SharedUplink`` (ports, flows and counters), the
transmit path's completion interrupts and the request/response chains drive
a scheduler through these members only; mypy checks every entry of
``vsim.net.uplink.SCHEDULERS`` against them (``setup.cfg``'s ``[mypy]``).

A new scheduler rarely writes them itself: it subclasses
``vsim.net.uplink.base.UplinkScheduler``, which implements all of them from
two hooks, each with a default:

- ``queue_index(classes, ports)``: the queue of each frame or flow (default:
  all in queue 0), with ``n_queues`` set on the class (default 1);
- ``service_rates(demand)``: the fraction of the link each queue is served at
  while backlogged, given the queues' offered work (default: the whole link).

and, where it needs them, these optional overrides: ``run_length`` (frames of
a burst that leave back to back beside other backlogged ports; default: the
whole burst), ``queue_limits`` (each queue's limit at the current rates;
default: the queues' own), ``work``/``units`` (a frame's link time and its
size in the limit's unit), ``non_preemptive`` (a frame may wait for another
queue's frame on the wire; default False), or ``transmit`` itself for a
scheduler sending frames its own way (``frame_lanes`` then answers None, and
frames go one burst at a time).
"""

import math
from typing import TYPE_CHECKING, Any, Callable, Optional, Protocol

import numpy as np
from numpy.typing import ArrayLike

from vsim.net.fluid.arrivals import WakeupBatches
from vsim.net.fluid.flows import Flows
from vsim.net.txpath.cost import PathCost

if TYPE_CHECKING:
    from vsim.net.uplink.frame_lanes import FrameLanes


class Scheduler(Protocol):
    """An uplink scheduler, as the host's uplink drives it (see the module's docstring)."""

    @property
    def rate_bps(self) -> float:
        """The link's rate, bits/s."""

    @property
    def latency(self) -> float:
        """Seconds added to every departure (the NIC and wire beyond the queue)."""

    @property
    def cost(self) -> PathCost:
        """The transmit stage's per-frame cost (``vsim.net.txpath.cost``)."""

    @property
    def t(self) -> float:
        """The time of the last frame handed or flow change: nothing earlier may follow."""

    @property
    def flow_rates(self) -> np.ndarray:
        """Packets/s each bulk flow of the last ``set_flows`` gets through."""

    @property
    def flow_queues(self) -> np.ndarray:
        """The queue of each bulk flow of the last ``set_flows``."""

    def transmit(self, times: ArrayLike, ip_bytes: ArrayLike, classes: ArrayLike,
                 ports: ArrayLike) -> np.ndarray:
        """Departures plus ``latency`` of a burst of frames (NaN where dropped): ``times``
        sorted and not before ``t``, ``classes`` and ``ports`` integer codes."""

    def set_flows(self, t: float, flows: Flows) -> None:
        """From ``t`` until the next call, the bulk flows are ``flows``."""

    def rigid_acceptance(self, t: float) -> np.ndarray:
        """Per queue, the share of the rigid (not elastic) fluid offered since the last call
        that the queue took in, every queue brought to ``t`` first (1 where none was offered):
        what a flood's packets got through, its backlog drained after it fell silent included."""

    def declare_arrivals(self, port: int, traffic_class: int, arrivals: str,
                         batches: Optional[WakeupBatches] = None) -> None:
        """The packets of the flood from ``port`` in ``traffic_class`` arrive ``arrivals``
        ("paced", "poisson", or "batched" on the wake-ups ``batches``)."""

    def queue_index(self, classes: np.ndarray, ports: np.ndarray) -> np.ndarray:
        """The queue of each frame or flow of ``classes`` from ``ports`` (integer arrays)."""

    def work(self, ip_bytes: Any) -> Any:
        """Link time of frames of ``ip_bytes`` (an array for an array)."""

    def units(self, ip_bytes: Any) -> Any:
        """Frames' size in the queue limit's unit (an array for an array)."""

    def run_length(self, burst: float, competitors: int) -> float:
        """Frames of a port's ``burst`` that leave back to back while ``competitors`` other
        ports are backlogged."""

    def frame_lanes(self, queues: Any, frames: int, units: float, work: Optional[float] = None,
                    spacing: Optional[float] = None, until: float = math.inf
                    ) -> Optional["FrameLanes"]:
        """Lanes sending lone frames of ``queues`` as ``transmit`` would, or None where it
        cannot (``UplinkScheduler.frame_lanes``)."""


SchedulerFactory = Callable[..., Scheduler]
"""A scheduler class: called with ``(rate_bps, limit, unit, rng=..., cost=..., latency=...,
**params)`` (``make_uplink_scheduler``)."""
