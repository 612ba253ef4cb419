"""How long a run is: its duration, warm-up and replications, resolved once for every command.

A scenario's ``[run]`` table says how long to simulate, how much to discard
as warm-up and how many replications to make; the command line may ask for
other values (``--duration``, ``--replications``, ``--quick``). ``RunPlan``
holds what the command line asks, and ``RunPlan.resolve`` turns it and the
``[run]`` table into a ``RunLength``: the numbers ``vsim run``, ``sweep``,
``reproduce`` and ``validate`` (and ``simulate``) all use, together with the
key or option each came from, so an error can blame the right one.

The warm-up is the ``[run]`` table's, at most half the run, so a shorter
``--duration`` still measures something. A ``shorten_only`` plan
(``--quick``) caps the duration and the warm-up instead of setting them: it
never runs a config longer, nor warms it up longer, than the config asks.

The shortest run worth simulating measures at least one of its media
servers' packet intervals after the warm-up. A shorter run
(``--duration 1e-9``) would finish at once and print every jitter as n/a
with no word on why, so it is refused up front, naming the length that would
measure something. Scenarios without media servers measure rates and CPU
over any window and have no such floor.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vsim.core.errors import InputError

if TYPE_CHECKING:  # the schema (and NumPy with it) is not loaded for --help
    from vsim.config.schema_sections import RunSection


def default_warmup(run: RunSection, duration: float) -> float:
    """The warm-up a ``[run]`` table asks for, at most half of ``duration``."""
    return min(run.warmup, duration / 2)


@dataclass(frozen=True)
class RunLength:
    """A resolved run length: what to simulate, and where the duration and warm-up came from.

    ``duration_key`` names the option or ``[run]`` key that set ``duration``, to
    blame when the run is too short; ``warmup_setting`` is the warm-up asked
    for before it is cut to half the run, and ``warmup_key`` where it came
    from."""

    duration: float
    warmup: float
    replications: int
    duration_key: str
    warmup_setting: float
    warmup_key: str

    def check(self, source: Any, loaded: Any) -> None:
        """Refuse this length for ``loaded`` (read from ``source``) when its window after the
        warm-up holds no packet interval of the media servers, blaming ``duration_key``."""
        if not has_media_servers(loaded.scenario):
            return
        interval = loaded.models["codec"].values.packet_interval
        if self.duration - self.warmup >= interval:
            return
        shortest = shortest_duration(interval, self.warmup_setting)
        raise InputError(source, self.duration_key, f"expected a run of at least {shortest:g} s, so that "
                         f"the {self.duration - self.warmup:g} s measured after the {self.warmup:g} s "
                         f"warm-up ({self.warmup_key} {self.warmup_setting:g} s, at most half the run) "
                         f"hold one {interval:g} s packet interval of the media servers; "
                         f"got {self.duration:g} s")


@dataclass(frozen=True)
class RunPlan:
    """What the command line asks of a run's length; None keeps the config's own value.

    A plan's ``duration`` sets every run's length, longer or shorter than the config's, and
    the warm-up then follows the config's own, at most half of the run, so something is
    measured. A ``shorten_only`` plan (``--quick``) caps both instead: it never runs a config
    longer, nor warms it up longer, than the config itself asks. ``option`` is the
    command-line option that asked for the duration and warm-up, named when they are at
    fault."""

    duration: float | None = None
    warmup: float | None = None
    replications: int | None = None
    shorten_only: bool = False
    option: str = "--duration"

    def resolve(self, run: RunSection) -> RunLength:
        """The ``RunLength`` of a config's ``[run]`` table under this plan."""
        duration, duration_key = run.duration, "run.duration"
        if self.duration is not None and not (self.shorten_only and self.duration >= run.duration):
            duration, duration_key = self.duration, self.option
        warmup_setting, warmup_key = run.warmup, "run.warmup"
        if self.warmup is not None and self.warmup < run.warmup:
            warmup_setting, warmup_key = self.warmup, self.option
        warmup = min(default_warmup(run, duration), warmup_setting)
        replications = run.replications if self.replications is None else self.replications
        return RunLength(duration, warmup, replications, duration_key, warmup_setting, warmup_key)


QUICK = RunPlan(duration=20.0, warmup=2.0, replications=3, shorten_only=True, option="--quick")


def has_media_servers(scenario: Any) -> bool:
    """Whether ``scenario`` runs any media-server VM (``[vm]`` instances or a media-server group)."""
    return scenario.vm.instances > 0 or any(group.workload == "media_server" for group in scenario.group)


def shortest_duration(interval: float, warmup_setting: float) -> float:
    """The shortest run whose window after warm-up (``warmup_setting``, at most half the run)
    holds one ``interval``."""
    return 2 * interval if interval <= warmup_setting else warmup_setting + interval

