"""Linux's fair scheduling class on a KVM host: EEVDF (6.6 and later) or CFS (up to 6.5),
with cgroup v2 ``cpu.weight`` and ``cpu.max``.

Every world is a task (a vCPU thread, a vhost thread) and every group a cgroup
whose ``shares`` are its ``cpu.weight`` (1-10000, default 100; a cgroup v1
``cpu.shares`` of 1024 is weight 100). The kernel turns a weight into a load
of ``weight * 1024 / 100`` (``cpu_weight_write_u64``, kernel/sched/core.c) and
splits it over the cgroup's runnable tasks; a task's virtual runtime advances
by ``delta_exec * NICE_0_LOAD / weight`` (``calc_delta_fair``, kernel/sched/fair.c).
``cpu.max`` is the group's ``limit`` (CPUs) over the machine's ``period``: the
machine throttles a group that used ``limit * period`` in a period until the
next one, as CFS bandwidth control does, and tells this policy through its
``on_block`` and ``on_unthrottle`` hooks, so a throttled cgroup leaves the
run queue (keeping its lag) and is placed again when its quota is refilled.

To model a host: ``Machine(env, topology, make_policy("linux_fair",
variant="eevdf"), quantum=tick, period=cpu_max_period)`` and one
``Group(name, shares=cpu_weight, limit=quota / period)`` per cgroup with a
``World`` per thread; a scheduler model file gives the same through
``SchedulerModel.policy_params()`` (``models/schedulers/linux_eevdf.toml``).

EEVDF, after kernel/sched/fair.c of Linux 6.6:

- V is the load-weighted average virtual runtime of the queued tasks
  (``avg_vruntime``), the running ones included; a task is *eligible* when
  its vruntime is at most V (lag = V - vruntime >= 0);
- the eligible task with the earliest virtual deadline runs next, the
  deadline being ``vruntime + slice * NICE_0_LOAD / weight``
  (``update_deadline``); the slice is ``sysctl_sched_base_slice`` (0.75 ms)
  times ``1 + ilog2(min(ncpus, 8))`` (``get_update_sysctl_factor``, the
  default SCHED_TUNABLESCALING_LOG), 3 ms on 8 CPUs or more;
- a running task keeps its CPU until its vruntime passes its deadline, which
  is checked at every scheduler tick (the machine's quantum); the deadline is
  then renewed and the pick made again;
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

CFS (``variant = "cfs"``), after kernel/sched/fair.c of Linux 6.1: the
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
(``check_preempt_tick``). Latency and both granularities are scaled like the
EEVDF slice.

Simplifications, all because the machine runs one ready queue for the whole
host rather than Linux's per-CPU run queues with load balancing:

- The hierarchy is flattened: each runnable task of a cgroup is queued with
  an equal part of the cgroup's load (what the per-CPU group entities and
  their tasks amount to when the balancer spreads the load), instead of a
  group entity per CPU with its own vruntime, deadline and lag, and the part
  follows the number of runnable tasks at once, not their PELT load average:
  a task is reweighted whenever a task of its cgroup wakes or sleeps (which,
  as any reweight does in Linux, moves its deadline and ends RUN_TO_PARITY's
  protection of its slice).
- One queue served by N CPUs cannot give a task more than one CPU, so the
  loads are water-filled first: a task whose load would entitle it to more
  than a whole CPU is queued with the load that entitles it to exactly one,
  as Linux's balancer ends up giving such a task a CPU of its own. With no
  more runnable tasks than CPUs every task gets a CPU and all are queued with
  the same load, so no virtual-time skew builds up while nobody waits.
- A CPU that frees up when every waiting task is ineligible (the eligible
  ones all running elsewhere) takes the waiting task with the lowest
  vruntime, the one closest to eligible, which keeps the host
  work-conserving as Linux's idle balancing does.
- A waking task is compared with the running tasks only, not with tasks
  already waiting, which on Linux would sit in the run queue of that CPU.
- No PREEMPT_SHORT, DELAY_DEQUEUE or custom slices (6.12), no buddies, no
  SCHED_IDLE, no ``cpu.max.burst``; every cgroup has the host's one cpu.max
  period, in step; quota is accounted over the whole host
  rather than handed to CPUs in 5 ms slices; the tick runs from each task's
  start rather than on a global clock, and a task is charged the time it
  occupies a CPU whatever its hyper-threading speed (as Linux charges).
"""

import math
from typing import Dict, List, Optional, Tuple

from vsim.cpu.world import RUN, World

NICE_0_LOAD = 1024.0
CGROUP_WEIGHT_DEFAULT = 100.0
CGROUP_WEIGHT_RANGE = (1.0, 10000.0)
TUNABLE_SCALINGS = ("none", "log", "linear")
TIE = 1e-12  # virtual times this close are equal (the kernel's are integer nanoseconds)


def cgroup_load(weight: float) -> float:
    """The load of a cgroup of ``cpu.weight`` ``weight``: weight * 1024 / 100."""
    return weight * NICE_0_LOAD / CGROUP_WEIGHT_DEFAULT


def tunable_factor(cpus: int, scaling: str) -> int:
    """The factor scaling the slice, latency and granularities on ``cpus`` CPUs
    (``get_update_sysctl_factor``: at most 8 CPUs count)."""
    counted = min(cpus, 8)
    if scaling == "none":
        return 1
    if scaling == "linear":
        return counted
    if scaling == "log":
        return 1 + counted.bit_length() - 1  # 1 + ilog2(counted)
    raise ValueError(f"expected tunable_scaling one of {', '.join(TUNABLE_SCALINGS)}, got {scaling!r}")


def fair_rates(loads: List[float], cpus: int) -> Tuple[List[float], float]:
    """CPUs each of ``loads`` gets when ``cpus`` CPUs are shared by load, none taking more
    than one, and the load per CPU of the tasks held to their share (inf: nobody is)."""
    n = len(loads)
    if n <= cpus:
        return [1.0] * n, math.inf
    order = sorted(range(n), key=lambda i: -loads[i])
    rates = [0.0] * n
    left_cpus, left_load = float(cpus), sum(loads)
    k = 0
    while k < n and loads[order[k]] * left_cpus >= left_load:
        rates[order[k]] = 1.0
        left_cpus -= 1.0
        left_load -= loads[order[k]]
        k += 1
    for i in order[k:]:
        rates[i] = loads[i] * left_cpus / left_load
    return rates, left_load / left_cpus


class _Entity:
    """A task's place in the fair queue.

    ``vruntime`` counts the task's execution up to ``mark``; a running task
    has run since ``max(mark, world.run_start)`` at ``weight``. ``lag`` is the
    lag kept while dequeued, in load-seconds (virtual lag times weight), so it
    survives a change of weight. ``deadline_at`` is when the deadline was last
    set (a new slice or a reweight), to tell whether it changed during the
    current run; ``renewed_at`` is when the last slice ran out, to tell whether
    that happened since the last tick.
    """

    __slots__ = ("world", "weight", "vruntime", "mark", "deadline", "deadline_at", "renewed_at",
                 "lag", "queued")

    def __init__(self, world: World) -> None:
        self.world = world
        self.weight = NICE_0_LOAD
        self.vruntime = 0.0
        self.mark = 0.0
        self.deadline = 0.0
        self.deadline_at = -math.inf
        self.renewed_at = -math.inf
        self.lag = 0.0
        self.queued = False


class FairQueue:
    """What EEVDF and CFS share: the queued tasks, their loads, vruntimes and weighted average.

    Subclasses place a waking task, reweight a queued one, pick, and decide
    preemption.
    """

    tick_every_cpu = True  # the machine checks every busy CPU at each tick while tasks wait

    def __init__(self, tunable_scaling: str = "log") -> None:
        tunable_factor(1, tunable_scaling)  # reject an unknown scaling now
        self.tunable_scaling = tunable_scaling
        self.entities: Dict[World, _Entity] = {}
        self.queued: Dict[World, _Entity] = {}  # in queueing order, for determinism
        self.last_average = 0.0
        self._factor = 0
        # V and W stay put at one instant until a task joins, leaves or is reweighted
        # (charging a run only writes down what the average already counted)
        self._changes = 0
        self._average_key: Tuple[float, int] = (-math.inf, -1)
        self._average_total = 0.0

    # ------------------------------------------------------------- helpers
    def factor(self, machine) -> int:
        if not self._factor:
            self._factor = tunable_factor(len(machine.lcpu_world), self.tunable_scaling)
        return self._factor

    def entity(self, world: World) -> _Entity:
        e = self.entities.get(world)
        if e is None:
            low, high = CGROUP_WEIGHT_RANGE
            if not low <= world.group.shares <= high:
                raise ValueError(f"expected the cpu.weight of {world.group.name} within "
                                 f"{low:g}..{high:g}, got {world.group.shares:g}")
            e = self.entities[world] = _Entity(world)
        return e

    @staticmethod
    def vruntime(e: _Entity, now: float) -> float:
        """The task's vruntime now, counting the run not yet charged."""
        world = e.world
        if world.state == RUN and e.queued:
            return e.vruntime + (now - max(e.mark, world.run_start)) * NICE_0_LOAD / e.weight
        return e.vruntime

    def bring_up_to_date(self, e: _Entity, now: float) -> None:
        e.vruntime = self.vruntime(e, now)
        e.mark = now

    def average(self, now: float) -> Tuple[float, float]:
        """(V, W): the load-weighted average vruntime of the queued tasks and their load.

        The hottest loop of the policy, so ``vruntime`` is written out: a running
        task's load times its vruntime grows by NICE_0_LOAD per second of run.
        """
        key = (now, self._changes)
        if key == self._average_key:
            return self.last_average, self._average_total
        total = weighted = 0.0
        for e in self.queued.values():
            weight = e.weight
            total += weight
            weighted += weight * e.vruntime
            world = e.world
            if world.state == RUN:
                start = world.run_start
                weighted += (now - (e.mark if e.mark > start else start)) * NICE_0_LOAD
        if total > 0:
            self.last_average = weighted / total
        self._average_key, self._average_total = key, total
        return self.last_average, total

    def eligible(self, e: _Entity, average: float, now: float) -> bool:
        return self.vruntime(e, now) <= average + TIE

    @staticmethod
    def pickable(world: World, lcpu: int) -> bool:
        return not world.throttled and (world.affinity is None or lcpu in world.affinity)

    def running_rivals(self, machine, world: World) -> List[_Entity]:
        """The queued entities running on logical CPUs ``world`` may use: the candidates a waking
        ``world`` may preempt."""
        allowed = world.affinity
        rivals = []
        for running in machine.lcpu_world:
            if running is None or (allowed is not None and running.lcpu not in allowed):
                continue
            e = self.entity(running)
            if e.queued:
                rivals.append(e)
        return rivals

    # --------------------------------------------------------------- loads
    def _loads(self, machine, joining: Optional[_Entity]) -> Dict[World, float]:
        """The load each queued task (and ``joining``) is queued with: its cgroup's load
        split over the cgroup's queued tasks, water-filled over the host's CPUs."""
        members = list(self.queued.values()) + ([joining] if joining is not None else [])
        if len(members) <= len(machine.lcpu_world):  # a CPU each: all queued alike
            return {e.world: NICE_0_LOAD for e in members}
        counts: Dict[object, int] = {}
        for e in members:
            counts[e.world.group] = counts.get(e.world.group, 0) + 1
        nominal = [cgroup_load(e.world.group.shares) / counts[e.world.group] for e in members]
        rates, per_cpu = fair_rates(nominal, len(machine.lcpu_world))
        return {e.world: rate * per_cpu for e, rate in zip(members, rates)}

    def _requeue_loads(self, machine, now: float, joining: Optional[_Entity] = None) -> float:
        """Give every queued task its load after a task joins or leaves; the joiner's load."""
        loads = self._loads(machine, joining)
        changed = [e for e in self.queued.values() if loads[e.world] != e.weight]
        if changed:
            average, _ = self.average(now)
            for e in changed:
                self.bring_up_to_date(e, now)
                self.reweight(e, loads[e.world], average, now)
            self._changes += 1
        return loads[joining.world] if joining is not None else 0.0

    # ------------------------------------------------------ queue changes
    def enqueue(self, machine, world: World) -> None:
        e = self.entity(world)
        if e.queued:
            return
        now = machine.env._now
        weight = self._requeue_loads(machine, now, joining=e)
        average, total = self.average(now)
        e.weight = weight
        e.mark = now
        self.place(machine, e, average, total, now)
        e.queued = True
        self.queued[world] = e
        self._changes += 1

    def dequeue(self, machine, world: World) -> None:
        e = self.entity(world)
        if not e.queued:
            return
        now = machine.env._now
        average, _ = self.average(now)
        self.bring_up_to_date(e, now)
        self.keep_lag(machine, e, average)
        e.queued = False
        del self.queued[world]
        self._changes += 1
        self._requeue_loads(machine, now)

    # ------------------------------------------------ the machine's calls
    def entitle(self, machine) -> None:
        """Reservations: Linux has none to give."""
        raise ValueError("a CPU reservation has no equivalent in Linux's fair scheduling class")

    def on_wake(self, machine, world: World) -> None:
        if not world.throttled:  # a throttled cgroup's task is queued when its quota returns
            self.enqueue(machine, world)

    def on_block(self, machine, world: World) -> None:
        self.dequeue(machine, world)

    def on_unthrottle(self, machine, world: World) -> None:
        self.enqueue(machine, world)

    def charge(self, machine, world: World, occupancy: float) -> None:
        """Book the ``occupancy`` that ends now (the machine has already moved the run's
        start to now), less what a reweight booked already."""
        e = self.entity(world)
        if e.queued:
            now = machine.env._now
            e.vruntime += (now - max(e.mark, now - occupancy)) * NICE_0_LOAD / e.weight
            e.mark = now
            self.after_update(machine, e, now)

    # ------------------------------------------------ variant behaviour
    def place(self, machine, e: _Entity, average: float, total: float, now: float) -> None:
        raise NotImplementedError

    def reweight(self, e: _Entity, weight: float, average: float, now: float) -> None:
        raise NotImplementedError

    def keep_lag(self, machine, e: _Entity, average: float) -> None:
        """What a dequeued task remembers; CFS keeps its vruntime as it is."""

    def after_update(self, machine, e: _Entity, now: float) -> bool:
        """Called when a queued task's vruntime is brought up to date; whether its slice ended."""
        return False


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
        now = machine.env._now
        average, _ = self.average(now)
        best: Optional[_Entity] = None
        best_eligible, best_v = False, 0.0
        for world in ready:
            if not self.pickable(world, lcpu):
                continue
            e = self.entity(world)
            v = e.vruntime
            eligible = v <= average + TIE
            if self._better(e, eligible, v, best, best_eligible, best_v):
                best, best_eligible, best_v = e, eligible, v
        return None if best is None else best.world

    def _protected(self, running: _Entity, eligible: bool) -> bool:
        """RUN_TO_PARITY: a running task still eligible and on the slice it was picked with."""
        return self.run_to_parity and eligible and running.deadline_at <= running.world.t_state

    def preempt_victim(self, machine, world: World) -> Optional[int]:
        now = machine.env._now
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

    def preempts_at_quantum(self, machine, best: World, current: World) -> bool:
        """At a tick: once the running task's slice has run out (now, or since the last
        tick, when an update between ticks renewed its deadline) it is rescheduled, and
        yields if EEVDF then prefers the best waiting task."""
        now = machine.env._now
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


class Cfs(FairQueue):
    """The Completely Fair Scheduler, as in Linux 6.1: lowest vruntime first."""

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
        queued = [self.vruntime(e, now) for e in self.queued.values()]
        if queued:
            self.min_vruntime = max(self.min_vruntime, min(queued))
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
            if not self.pickable(world, lcpu):
                continue
            v = self.entity(world).vruntime
            if v < best_v:
                best, best_v = world, v
        return best

    def preempt_victim(self, machine, world: World) -> Optional[int]:
        now = machine.env._now
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
        load = sum(q.weight for q in self.queued.values()) / cpus
        return max(period * e.weight / load, granularity)

    def preempts_at_quantum(self, machine, best: World, current: World) -> bool:
        """``check_preempt_tick``: the running task yields after its slice, or after the
        minimum granularity when it leads the best waiting task by more than its slice."""
        now = machine.env._now
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


def linux_fair(variant: str = "eevdf", **params) -> FairQueue:
    """Linux's fair class: ``variant`` "eevdf" (6.6 and later) or "cfs" (up to 6.5)."""
    if variant == "eevdf":
        return Eevdf(**params)
    if variant == "cfs":
        return Cfs(**params)
    raise ValueError(f"expected variant 'eevdf' or 'cfs', got {variant!r}")
