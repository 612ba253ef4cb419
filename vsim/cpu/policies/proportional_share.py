"""Proportional-share scheduling in the manner of the ESX/ESXi CPU scheduler.

Each world accrues *virtual time*: the CPU time it used divided by its
entitlement (its group's shares split over the group's worlds, normalised to
1000 shares, so virtual time is "seconds at normal shares"). The eligible
ready world with the lowest virtual time runs next; worlds of a group still
owed its reservation in the current period come first, and so do the helper
worlds serving that group (``Group.serves``). A waking world's
virtual time is pulled up to ``wake_credit`` below the virtual clock, the
lowest virtual time among the worlds that are running or ready (never moving
back), so a long sleeper cannot hoard credit but a sleeper is still served
ahead of the worlds that kept running; it preempts the running world with the
highest virtual time if that one is ahead by more than ``wake_granularity``.
"""

import math
from typing import TYPE_CHECKING, List, Optional, Tuple

from vsim.cpu.world import Group, World

if TYPE_CHECKING:
    from vsim.cpu.machine import Machine

REFERENCE_SHARES = 1000.0


class ProportionalShare:
    """Lowest virtual time first, reservations before shares, limits as throttling."""

    def __init__(self, wake_credit: float = 0.001, wake_granularity: float = 0.001) -> None:
        self.wake_credit = float(wake_credit)
        self.wake_granularity = float(wake_granularity)
        self.vclock = 0.0
        self._witness: Optional[World] = None  # a running world last found at or below the clock

    def charge(self, machine: "Machine", world: World, occupancy: float) -> None:
        world.vtime += occupancy * REFERENCE_SHARES / world.share

    def _current_vtime(self, world: World, now: float) -> float:
        return world.vtime + (now - world.run_start) * REFERENCE_SHARES / world.share

    def _owed(self, machine: "Machine", group: Group, now: float) -> bool:
        """Whether ``group`` (or the VM it serves) has not had its reservation this period."""
        if group.serves is not None:
            group = group.serves
        return (group.reservation > 0
                and machine.group_period_used(group, now) < group.reservation * machine.period)

    def on_wake(self, machine: "Machine", world: World) -> None:
        floor = self._virtual_clock(machine) - self.wake_credit
        if world.vtime < floor:
            world.vtime = floor

    def _virtual_clock(self, machine: "Machine") -> float:
        """The lowest virtual time of the runnable worlds, kept monotone.

        The clock only moves forward, so the first runnable world found at or
        below it settles the answer: the clock stays. The running world that
        settled it last time is asked first, as it usually still does.
        """
        clock = self.vclock
        now = machine.env._now
        witness = self._witness
        if (witness is not None and witness.lcpu is not None
                and self._current_vtime(witness, now) <= clock):
            return clock
        lowest = math.inf
        for ready in machine.ready:
            vtime = ready.vtime
            if vtime < lowest:
                if vtime <= clock:
                    return clock
                lowest = vtime
        for running in machine.lcpu_world:
            # a running world's virtual time only grows from its charged value
            if running is not None and running.vtime < lowest:
                vtime = self._current_vtime(running, now)
                if vtime < lowest:
                    if vtime <= clock:
                        self._witness = running
                        return clock
                    lowest = vtime
        if lowest < math.inf:
            self.vclock = lowest
        return self.vclock

    def pick(self, machine: "Machine", ready: List[World], lcpu: int) -> Optional[World]:
        if not machine.reservations:
            return self._pick_by_vtime(ready, lcpu)
        now = machine.env._now
        best: Optional[World] = None
        best_key: Optional[Tuple[int, float]] = None
        for world in ready:
            if world.throttled or (world.affinity is not None and lcpu not in world.affinity):
                continue
            key = (0 if self._owed(machine, world.group, now) else 1, world.vtime)
            if best_key is None or key < best_key:
                best, best_key = world, key
        return best

    @staticmethod
    def _pick_by_vtime(ready: List[World], lcpu: int) -> Optional[World]:
        """The common case without reservations: the lowest virtual time."""
        best: Optional[World] = None
        for world in ready:
            if world.throttled or (world.affinity is not None and lcpu not in world.affinity):
                continue
            if best is None or world.vtime < best.vtime:
                best = world
        return best

    def preempt_victim(self, machine: "Machine", world: World) -> Optional[int]:
        if not machine.reservations:
            return self._victim_by_vtime(machine, world)
        now = machine.env._now
        owed = self._owed(machine, world.group, now)
        victim: Optional[int] = None
        victim_key: Optional[Tuple[int, float]] = None
        allowed = world.affinity
        for lcpu, running in enumerate(machine.lcpu_world):
            if (running is None or running.group is world.group
                    or (allowed is not None and lcpu not in allowed)):
                continue
            key = (0 if self._owed(machine, running.group, now) else 1,
                   self._current_vtime(running, now))
            if victim_key is None or key > victim_key:
                victim, victim_key = lcpu, key
        if victim is None or victim_key is None:
            return None
        if owed and victim_key[0] == 1:
            return victim
        if (0 if owed else 1) == victim_key[0] and victim_key[1] - world.vtime > self.wake_granularity:
            return victim
        return None

    def _victim_by_vtime(self, machine: "Machine", world: World) -> Optional[int]:
        """The CPU of the running world furthest ahead in virtual time, if ahead enough."""
        now = machine.env._now
        group = world.group
        allowed = world.affinity
        victim: Optional[World] = None
        threshold = world.vtime + self.wake_granularity
        for running in machine.lcpu_world:
            if running is None or running.group is group:
                continue
            vtime = self._current_vtime(running, now)
            if vtime > threshold and (allowed is None or running.lcpu in allowed):
                victim, threshold = running, vtime
        return None if victim is None else victim.lcpu

    def preempts_at_period(self, machine: "Machine", best: World, current: World) -> bool:
        """At a period boundary only a reservation justifies cutting a slice short."""
        now = machine.env._now
        return self._owed(machine, best.group, now) and not self._owed(machine, current.group, now)

    def preempts_at_quantum(self, machine: "Machine", best: World, current: World) -> bool:
        now = machine.env._now
        best_key = (0 if self._owed(machine, best.group, now) else 1, best.vtime)
        current_key = (0 if self._owed(machine, current.group, now) else 1,
                       self._current_vtime(current, now))
        return best_key < current_key
