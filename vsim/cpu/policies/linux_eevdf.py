"""Linux's fair class as EEVDF (``variant = "eevdf"``), after kernel/sched/fair.c of Linux 6.6:

- V is the load-weighted average virtual runtime of the queued tasks
  (``avg_vruntime``), the running ones included; a task is *eligible* when
  its vruntime is at most V (lag = V - vruntime >= 0);
- the eligible task with the earliest virtual deadline runs next, the
  deadline being ``vruntime + slice * NICE_0_LOAD / weight``
  (``update_deadline``); the slice is ``sysctl_sched_base_slice`` (0.75 ms)
  times ``1 + ilog2(min(ncpus, 8))`` (``get_update_sysctl_factor``, the
  default SCHED_TUNABLESCALING_LOG), 3 ms on 8 CPUs or more;
- a running task keeps its CPU until its vruntime passes its deadline, which
  is checked at every scheduler tick (``update_curr`` from ``task_tick_fair``;
  the ticks of every CPU at ``k / HZ``, HZ = 1 / the machine's quantum) and
  whenever a wake-up brings it up to date; the deadline is then renewed and,
  at the tick, the pick made again (``resched_curr``: with HRTICK off, the
  default, nothing ends a slice between ticks);
- a dequeued task (asleep or throttled) keeps its lag, clamped to the virtual
  time of ``max(2 * slice, tick)`` (``update_entity_lag``), and is placed on
  waking at ``V - lag * (W + w) / W`` (``place_entity`` with PLACE_LAG; with
  ``place_lag = False``, at V);
- a waking task preempts a running one when it is eligible and its deadline
  is earlier than the running task's, unless the running task is still
  eligible and has not been given a new slice since it was picked
  (RUN_TO_PARITY, ``pick_eevdf``; ``run_to_parity = False`` turns it off);
- a task whose weight changes keeps its lag and the distance of its
  deadline from V, both scaled by old/new weight (``reweight_eevdf``, 6.7's
  correction of 6.6's reweight).
"""

from typing import List, Optional

from vsim.cpu.policies.fair_queue import NICE_0_LOAD, TIE, FairQueue, _Entity, mypyc_attr
from vsim.cpu.world import World


@mypyc_attr(allow_interpreted_subclasses=True)
class Eevdf(FairQueue):
    """Earliest eligible virtual deadline first, as in Linux 6.6."""

    def __init__(self, base_slice: float = 0.00075, place_lag: bool = True,
                 run_to_parity: bool = True, tunable_scaling: str = "log") -> None:
        super().__init__(tunable_scaling)
        if not base_slice > 0:
            raise ValueError(f"expected a base slice > 0 s, got {base_slice}")
        self.base_slice = float(base_slice)
        self.place_lag = bool(place_lag)
        self.run_to_parity = bool(run_to_parity)

    def slice(self, machine) -> float:
        """The base slice on this machine: sysctl_sched_base_slice scaled by the CPU count."""
        return self.base_slice * self.factor(machine)

    def vslice(self, machine, e: _Entity) -> float:
        return self.slice(machine) * NICE_0_LOAD / e.weight

    def place(self, machine, e: _Entity, average: float, total: float, now: float) -> None:
        vlag = 0.0
        if self.place_lag and total > 0:
            vlag = e.lag / e.weight * (total + e.weight) / total
        e.vruntime = average - vlag
        self.set_deadline(machine, e, now)

    def set_deadline(self, machine, e: _Entity, now: float) -> None:
        e.deadline = e.vruntime + self.vslice(machine, e)
        e.deadline_at = now

    def keep_lag(self, machine, e: _Entity, average: float) -> None:
        limit = max(2 * self.slice(machine), machine.quantum) * NICE_0_LOAD / e.weight
        vlag = min(max(average - e.vruntime, -limit), limit)
        e.lag = vlag * e.weight

    def reweight(self, e: _Entity, weight: float, average: float, now: float) -> None:
        ratio = e.weight / weight
        e.vruntime = average - (average - e.vruntime) * ratio
        e.deadline = average + (e.deadline - average) * ratio
        e.deadline_at = now
        e.weight = weight

    def after_update(self, machine, e: _Entity, now: float) -> bool:
        if e.vruntime < e.deadline:
            return False
        self.set_deadline(machine, e, now)
        e.renewed_at = now
        return True

    def _better(self, a: _Entity, a_eligible: bool, a_v: float,
                b: Optional[_Entity], b_eligible: bool, b_v: float) -> bool:
        """Whether EEVDF prefers ``a`` to ``b``: eligible before ineligible, then the
        earlier deadline among eligible tasks, the lower vruntime among ineligible ones."""
        if b is None:
            return True
        if a_eligible != b_eligible:
            return a_eligible
        return a.deadline < b.deadline if a_eligible else a_v < b_v

    def pick(self, machine, ready: List[World], lcpu: int) -> Optional[World]:
        """``_better`` written out over the ready worlds, in their order."""
        now = machine.now()
        average, _ = self.average(now)
        limit = average + TIE
        best: Optional[_Entity] = None
        best_eligible, best_v, best_deadline = False, 0.0, 0.0
        for world in ready:
            if world.throttled:
                continue
            allowed = world.affinity
            if allowed is not None and lcpu not in allowed:
                continue
            e = self.entity(world)
            v = e.vruntime
            if v <= limit:  # eligible: the earliest deadline, before any ineligible task
                if best is None or not best_eligible or e.deadline < best_deadline:
                    best, best_eligible, best_v, best_deadline = e, True, v, e.deadline
            elif best is None or (not best_eligible and v < best_v):
                best, best_eligible, best_v = e, False, v
        return None if best is None else best.world

    def _protected(self, running: _Entity, eligible: bool) -> bool:
        """RUN_TO_PARITY: a running task still eligible and on the slice it was picked with."""
        return self.run_to_parity and eligible and running.deadline_at <= running.world.t_state

    def preempt_victim(self, machine, world: World) -> Optional[int]:
        now = machine.now()
        waker = self.entity(world)
        if not waker.queued:
            return None
        average, _ = self.average(now)
        if not self.eligible(waker, average, now):
            return None
        victim: Optional[_Entity] = None
        victim_eligible = True
        for e in self.running_rivals(machine, world):
            self.bring_up_to_date(e, now)
            self.after_update(machine, e, now)
            eligible = e.vruntime <= average + TIE
            if self._protected(e, eligible) or (eligible and e.deadline < waker.deadline - TIE):
                continue  # pick_eevdf keeps the running task only if strictly before the waker
            # the least deserving victim: an ineligible one, else the latest deadline
            if (victim is None or (victim_eligible and not eligible)
                    or (victim_eligible == eligible and e.deadline > victim.deadline)):
                victim, victim_eligible = e, eligible
        return None if victim is None else victim.world.lcpu

    def slice_end(self, machine, world: World) -> float:
        """When the running task's vruntime reaches its deadline (a reweight scales both
        about V, so the time left is the same at either weight), or when its slice ran out
        if an update since the last tick renewed it: the first tick from then resched it."""
        e = self.entity(world)
        if not e.queued:
            return world.slice_start
        if e.renewed_at > world.slice_start:
            return e.renewed_at
        now = machine.now()
        return now + (e.deadline - self.vruntime(e, now)) * e.weight / NICE_0_LOAD

    def preempts_at_quantum(self, machine, best: World, current: World) -> bool:
        """At a tick: once the running task's slice has run out (now, or since the last
        tick, when an update between ticks renewed its deadline) it is rescheduled, and
        yields if EEVDF then prefers the best waiting task."""
        now = machine.now()
        e = self.entity(current)
        if not e.queued:
            return True
        self.bring_up_to_date(e, now)
        self.after_update(machine, e, now)
        if not e.renewed_at > current.slice_start:
            return False
        average, _ = self.average(now)
        b = self.entity(best)
        best_eligible, current_eligible = self.eligible(b, average, now), self.eligible(e, average, now)
        if best_eligible and current_eligible:  # pick_eevdf keeps curr only if strictly before
            return b.deadline <= e.deadline + TIE
        return self._better(b, best_eligible, b.vruntime, e, current_eligible, e.vruntime)
