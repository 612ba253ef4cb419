"""Proportional-share scheduling in the manner of the ESX/ESXi CPU scheduler.

Each world accrues *virtual time*: the CPU time it used divided by its
entitlement (its group's shares split over the group's worlds, normalised to
1000 shares, so virtual time is "seconds at normal shares"). The eligible
ready world with the lowest virtual time runs next. A waking world's virtual
time is pulled up to ``wake_credit`` below the virtual clock, the lowest
virtual time among the worlds that are running or ready (never moving back),
so a long sleeper cannot hoard credit but a sleeper is still served ahead of
the worlds that kept running; it preempts the running world with the highest
virtual time if that one is ahead by more than ``wake_granularity`` seconds of
the waker's CPU time (converted into virtual time at the waker's own shares,
as Linux CFS converts its wakeup granularity at the waker's weight, so a heavy
waker preempts more readily).

Reservations enter the entitlement, as in ESXi, where a VM's entitlement is
the larger of its reservation and what its shares give it: the host's
logical CPUs are shared out by shares, each group taking at least its
reservation and at most its limit and its world count (water-filling), and a
group whose reservation exceeds its share is scheduled as if it held the
shares that would entitle it to the reservation. Its virtual time then grows
more slowly, so it is served ahead of others in proportion, every moment
rather than in bursts. The entitlement assumes every group wants CPU, so a
reservation weighs a little more than it needs when some groups are idle.
"""

import math
from typing import Dict, Final, List, Optional, Sequence, TYPE_CHECKING

from vsim.cpu.policies.calls import PolicyCalls
from vsim.cpu.world import Group, World

if TYPE_CHECKING:
    from vsim.cpu.machine import Machine

REFERENCE_SHARES: Final = 1000.0


def share_price(groups: List[Group], capacity: float) -> float:
    """CPUs per share when ``capacity`` CPUs are shared out over ``groups`` by shares,
    each group taking at least its reservation (up to its demand) and at most its limit,
    world count and demand.

    Infinite when the groups cannot use the whole capacity (no group is held back).
    """
    def allotted(price: float) -> float:
        return sum(min(g.limit, len(g.worlds), g.demand, max(g.reservation, price * g.shares))
                   for g in groups)

    if allotted(math.inf) <= capacity:
        return math.inf
    low, high = 0.0, 1.0
    while allotted(high) < capacity:
        high *= 2.0
    for _ in range(100):
        middle = (low + high) / 2.0
        if allotted(middle) < capacity:
            low = middle
        else:
            high = middle
    return high


class ProportionalShare(PolicyCalls):
    """Lowest virtual time first; reservations as shares; limits as throttling (by the machine)."""

    tick_every_cpu = False  # a stopped world arms its own CPU's quantum check only
    preempts_when_released = True  # a world released by a new period may preempt, as a waker
    run_queue_hooks = False  # no run queue of its own: on_block and on_unthrottle are not called
    tick_on_grid = False  # a world's quantum runs from the start of its slice

    def __init__(self, wake_credit: float = 0.001, wake_granularity: float = 0.001) -> None:
        self.wake_credit = float(wake_credit)
        self.wake_granularity = float(wake_granularity)
        self.vclock = 0.0
        self._witness: Optional[World] = None  # a running world last found at or below the clock

    def entitle(self, machine: "Machine") -> None:
        """Set every world's share of its group's shares, a reservation larger than the
        group's share of the host counted as the shares that would give it."""
        price = share_price(machine.groups, float(len(machine.lcpu_world)))
        for group in machine.groups:
            shares = group.shares
            if group.reservation > 0 and price < math.inf:
                shares = max(shares, group.reservation / price)
            group.spread_shares(shares)

    def host_shares(self, machine: "Machine", groups: Sequence[Group]) -> Dict[str, float]:
        """CPUs each of ``groups`` is entitled to by its shares (``SharesOutHost``): the host
        shared out by ``share_price`` over all the machine's groups, each group's shares at
        that price, at most its limit and world count (its reservation left aside)."""
        price = share_price(machine.groups, float(len(machine.lcpu_world)))
        return {group.name: min(group.limit, float(len(group.worlds)), price * group.shares)
                for group in groups}

    def charge(self, machine: "Machine", world: World, occupancy: float) -> None:
        world.vtime += occupancy * REFERENCE_SHARES / world.share

    def on_block(self, machine: "Machine", world: World) -> None:
        """Nothing: the ready worlds are the machine's, and a sleeper keeps its virtual time."""

    def on_unthrottle(self, machine: "Machine", world: World) -> None:
        """Nothing: a released world's virtual time stands as it was."""

    def _current_vtime(self, world: World, now: float) -> float:
        return world.vtime + (now - world.run_start) * REFERENCE_SHARES / world.share

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
        now = machine.now()
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
        """The eligible ready world with the lowest virtual time."""
        best: Optional[World] = None
        for world in ready:
            if world.throttled or (world.affinity is not None and lcpu not in world.affinity):
                continue
            if best is None or world.vtime < best.vtime:
                best = world
        return best

    def preempt_victim(self, machine: "Machine", world: World) -> Optional[int]:
        """The CPU of the running world furthest ahead in virtual time, if ahead enough."""
        now = machine.now()
        group = world.group
        allowed = world.affinity
        victim: Optional[World] = None
        threshold = world.vtime + self.wake_granularity * REFERENCE_SHARES / world.share
        for running in machine.lcpu_world:
            if running is None or running.group is group:
                continue
            vtime = self._current_vtime(running, now)
            if vtime > threshold and (allowed is None or running.lcpu in allowed):
                victim, threshold = running, vtime
        return None if victim is None else victim.lcpu

    def slice_end(self, machine: "Machine", world: World) -> float:
        """A quantum after the world's slice began."""
        return world.slice_start + machine.quantum

    def preempts_at_quantum(self, machine: "Machine", best: World, current: World) -> bool:
        return best.vtime < self._current_vtime(current, machine.now())
