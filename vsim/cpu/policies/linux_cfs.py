"""Linux's fair class as CFS (``variant = "cfs"``), after kernel/sched/fair.c of Linux 6.1: the
queued task with the lowest vruntime runs next; a waking task is placed at
``max(vruntime, min_vruntime - latency / 2)`` (``place_entity`` with
GENTLE_FAIR_SLEEPERS), ``min_vruntime`` being the monotone minimum of the
queued vruntimes; it preempts a running task whose vruntime is ahead by more
than ``wakeup_granularity`` converted to its own virtual time
(``wakeup_preempt_entity``); at a tick the running task yields when it has
run longer than its slice, ``period * w / W`` with ``period = max(latency,
nr_running * min_granularity)`` and at least ``min_granularity``
(``sched_slice`` with BASE_SLICE), or when it has run at least
``min_granularity`` and leads the next task's vruntime by more than the slice
(``check_preempt_tick``), checked at the scheduler tick of every CPU, at
``k / HZ`` (HZ = 1 / the machine's quantum). Latency and both granularities are scaled like the
EEVDF slice.
"""

import math
from typing import List, Optional

from vsim.cpu.policies.fair_queue import NICE_0_LOAD, FairQueue, _Entity, mypyc_attr
from vsim.cpu.world import RUN, World


@mypyc_attr(allow_interpreted_subclasses=True)
class Cfs(FairQueue):
    """The Completely Fair Scheduler, as in Linux 6.1: lowest vruntime first."""

    uses_average = False

    def __init__(self, latency: float = 0.006, min_granularity: float = 0.00075,
                 wakeup_granularity: float = 0.001, gentle_fair_sleepers: bool = True,
                 tunable_scaling: str = "log") -> None:
        super().__init__(tunable_scaling)
        for name, value in (("latency", latency), ("min_granularity", min_granularity),
                            ("wakeup_granularity", wakeup_granularity)):
            if not value > 0:
                raise ValueError(f"expected {name} > 0 s, got {value}")
        self.latency = float(latency)
        self.min_granularity = float(min_granularity)
        self.wakeup_granularity = float(wakeup_granularity)
        self.gentle_fair_sleepers = bool(gentle_fair_sleepers)
        self.min_vruntime = 0.0

    def _update_min_vruntime(self, now: float) -> float:
        """``vruntime`` written out: the lowest queued vruntime, a running task's counted to now."""
        lowest = math.inf
        for e in self.order:
            v = e.vruntime
            world = e.world
            if world.state == RUN:
                mark, start = e.mark, world.run_start
                v = v + (now - (mark if mark >= start else start)) * NICE_0_LOAD / e.weight
            if v < lowest:
                lowest = v
        if lowest < math.inf:
            self.min_vruntime = max(self.min_vruntime, lowest)
        return self.min_vruntime

    def place(self, machine, e: _Entity, average: float, total: float, now: float) -> None:
        credit = self.latency * self.factor(machine)
        if self.gentle_fair_sleepers:
            credit /= 2
        e.vruntime = max(e.vruntime, self._update_min_vruntime(now) - credit)

    def reweight(self, e: _Entity, weight: float, average: float, now: float) -> None:
        e.weight = weight

    def pick(self, machine, ready: List[World], lcpu: int) -> Optional[World]:
        best: Optional[World] = None
        best_v = math.inf
        for world in ready:
            if world.throttled:
                continue
            allowed = world.affinity
            if allowed is not None and lcpu not in allowed:
                continue
            v = self.entity(world).vruntime
            if v < best_v:
                best, best_v = world, v
        return best

    def preempt_victim(self, machine, world: World) -> Optional[int]:
        now = machine.now()
        waker = self.entity(world)
        if not waker.queued:
            return None
        threshold = (waker.vruntime + self.wakeup_granularity * self.factor(machine)
                     * NICE_0_LOAD / waker.weight)
        victim: Optional[_Entity] = None
        for e in self.running_rivals(machine, world):
            v = self.vruntime(e, now)
            if v > threshold:
                victim, threshold = e, v
        return None if victim is None else victim.world.lcpu

    def sched_slice(self, machine, e: _Entity) -> float:
        """``period * w / W`` per CPU, at least the minimum granularity."""
        factor = self.factor(machine)
        latency, granularity = self.latency * factor, self.min_granularity * factor
        cpus = len(machine.lcpu_world)
        per_cpu = max(1.0, len(self.queued) / cpus)
        period = latency if per_cpu <= latency / granularity else per_cpu * granularity
        load = sum(q.weight for q in self.order) / cpus
        return max(period * e.weight / load, granularity)

    def slice_end(self, machine, world: World) -> float:
        """After the minimum granularity: ``check_preempt_tick`` keeps a task that ran less,
        whatever its slice (which is at least that long)."""
        return world.t_state + self.min_granularity * self.factor(machine)

    def preempts_at_quantum(self, machine, best: World, current: World) -> bool:
        """``check_preempt_tick``: the running task yields after its slice, or after the
        minimum granularity when it leads the best waiting task by more than its slice."""
        now = machine.now()
        e = self.entity(current)
        if not e.queued:
            return True
        v = self.vruntime(e, now)
        lead = v - self.entity(best).vruntime
        ideal = self.sched_slice(machine, e)
        ran = now - current.t_state
        if ran > ideal:
            return lead > 0
        if ran < self.min_granularity * self.factor(machine):
            return False
        return lead > ideal
