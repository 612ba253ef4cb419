"""What a guest component offers an engine (``vsim.engines``): the protocols it runs them by.

The built host (``vsim.build.host.Host``) holds the components; an engine
asks each whether the closed form can play it, then starts it:

- ``EngineComponent``: ``supports_closed_form()``, whether the closed-form
  engine (``vsim.engines.closed_form``: no world ever waits for a CPU)
  covers it. Only a media server says True (the closed form plays its ticks'
  recursions); a component that cannot say so keeps the run on the event
  engine. The host's uplink and its steal offer it too.
- ``Workload``: a component that runs by itself once ``start()`` has
  scheduled its first events at time 0 (a media server's worker ticks and
  guest background bursts, a CPU-bound VM's bursts); the event engine starts
  them before the run, the closed form never calls it.
- ``TrafficWorkload``: a VM sending bulk traffic; ``start(duration,
  rate_bps)`` schedules its flow's rate changes for a run of ``duration`` on
  an uplink of ``rate_bps`` and returns their times.
- ``TransactionWorkload``: request/response chains; ``start(duration,
  warmup, barriers)`` lays them out, with ``barriers`` the times bulk flows
  change (it sends its requests in batches between them).
- ``ReplayWorkload``: replayed packets; ``start(duration, warmup)`` lays
  them out and schedules their first batch.
- ``CallWorkload``: a SIP server with its client; ``start(duration)`` lays
  the client's calls out over the run.
- ``UserWorkload``: an application with its closed-loop users (a web
  application); ``start(duration)`` declares its frames to the uplink and
  starts its users, which then run by themselves.

A new kind of guest is a class offering one of these, built by the host and
listed among the components the engine runs (``Simulation._choose_engine``).
"""

from typing import Protocol

import numpy as np


class EngineComponent(Protocol):
    """Anything the engine's choice asks."""

    def supports_closed_form(self) -> bool:
        """Whether the closed-form engine plays this component as the event engine would."""


class Workload(EngineComponent, Protocol):
    """A component started once, at time 0, that then runs by itself."""

    def start(self) -> None:
        """Schedule the first events."""


class TrafficWorkload(EngineComponent, Protocol):
    """A VM whose bulk flow's rate changes over the run."""

    def start(self, duration: float, rate_bps: float) -> np.ndarray:
        """Schedule the flow's rate changes over ``duration`` on a ``rate_bps`` uplink; their
        times."""


class TransactionWorkload(EngineComponent, Protocol):
    """Request/response chains sending their requests in batches."""

    def start(self, duration: float, warmup: float, barriers: np.ndarray) -> None:
        """Lay the chains out over ``duration`` (measured after ``warmup``) and schedule the
        first requests; ``barriers`` are the times the bulk flows change."""


class ReplayWorkload(EngineComponent, Protocol):
    """Recorded packets sent at their recorded times, in batches."""

    def start(self, duration: float, warmup: float) -> None:
        """Lay the packets out over ``duration`` (measured after ``warmup``) and schedule the
        first batch."""


class CallWorkload(EngineComponent, Protocol):
    """A server answering a client's calls, which start at the client's rate."""

    def start(self, duration: float) -> None:
        """Schedule the calls that start over ``duration``."""


class UserWorkload(EngineComponent, Protocol):
    """An application answering closed-loop users, who start after a first think time."""

    def start(self, duration: float) -> None:
        """Declare the application's frames and start its users for a run of ``duration``."""
