"""The run queue Linux's fair class keeps on a KVM host, shared by its two variants
(``linux_eevdf.Eevdf``, ``linux_cfs.Cfs``): cgroup weights turned into task loads,
virtual runtime, the lag a dequeued task keeps, and the CPU-count scaling of the tunables.

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
  period length, each limited cgroup's at a phase of its own (as the
  machine phases limits: ``Machine.add_group``); quota is accounted over the whole host
  rather than handed to CPUs in 5 ms slices; and a task is charged the time it
  occupies a CPU whatever its hyper-threading speed (as Linux charges).

The tick is Linux's: every CPU's at ``k / HZ`` (``tick_on_grid``; the machine's
quantum is 1 / HZ), on one clock for all CPUs as the kernel's default
``skew_tick=0`` has it (kernel/time/tick-sched.c offsets each CPU's tick only
with ``skew_tick=1``), so a used-up slice ends at the first tick at or after
its end, or at a wake-up that brings the running task up to date, whenever the
task started. A CPU with nobody waiting has no tick event, and one with
tasks waiting only the first tick that can end its slice (``slice_end``).
"""

import math
from typing import Dict, Final, List, Optional, Tuple

try:
    from mypy_extensions import mypyc_attr
except ImportError:  # only the mypyc build reads the decorator
    def mypyc_attr(*_args, **_kwargs):  # type: ignore[misc,no-redef]
        return lambda cls: cls

from vsim.cpu.policies.calls import PolicyCalls
from vsim.cpu.world import RUN, Group, World

NICE_0_LOAD: Final = 1024.0
CGROUP_WEIGHT_DEFAULT: Final = 100.0
CGROUP_WEIGHT_RANGE = (1.0, 10000.0)
TUNABLE_SCALINGS = ("none", "log", "linear")
TIE: Final = 1e-12  # virtual times this close are equal (the kernel's are integer nanoseconds)


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


class _Cgroup:
    """A cgroup's queued tasks: how many, the nominal load each is queued with (its
    weight's load split over them) and the load water-filling gives each."""

    __slots__ = ("group", "count", "nominal", "load")

    def __init__(self, group: Group) -> None:
        self.group = group
        self.count = 0
        self.nominal = 0.0
        self.load = 0.0


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

    __slots__ = ("world", "cgroup", "owner", "weight", "vruntime", "mark", "deadline",
                 "deadline_at", "renewed_at", "lag", "queued")

    def __init__(self, world: World, cgroup: _Cgroup, owner: object) -> None:
        self.world = world
        self.cgroup = cgroup
        self.owner = owner  # the policy whose entity it is (world.fair is its cache)
        self.weight = NICE_0_LOAD
        self.vruntime = 0.0
        self.mark = 0.0
        self.deadline = 0.0
        self.deadline_at = -math.inf
        self.renewed_at = -math.inf
        self.lag = 0.0
        self.queued = False


@mypyc_attr(allow_interpreted_subclasses=True)
class FairQueue(PolicyCalls):
    """What EEVDF and CFS share: the queued tasks, their loads, vruntimes and weighted average.

    Subclasses place a waking task, reweight a queued one, pick, and decide
    preemption.
    """

    uses_average = True  # CFS neither places nor reweights by the average: it skips the sum
    tick_every_cpu = True  # the machine checks every busy CPU at each tick while tasks wait
    tick_on_grid = True  # the scheduler tick: every CPU at k / HZ (the machine's quantum)
    # a cgroup whose quota is refilled preempts no running task: unthrottle_cfs_rq
    # (kernel/sched/fair.c) reschedules only an idle CPU, the rest wait for the tick
    preempts_when_released = False
    run_queue_hooks = True  # a sleeping or throttled task leaves the queue (on_block), keeping its lag

    def __init__(self, tunable_scaling: str = "log") -> None:
        tunable_factor(1, tunable_scaling)  # reject an unknown scaling now
        self.tunable_scaling = tunable_scaling
        self.entities: Dict[World, _Entity] = {}
        self.queued: Dict[World, _Entity] = {}  # in queueing order, for determinism
        self.order: List[_Entity] = []  # the queued entities, in queueing order
        self._cgroups: Dict[Group, _Cgroup] = {}
        self._active: Dict[Group, _Cgroup] = {}  # the cgroups with queued tasks
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
        """The world's place in this queue, made at its first look and kept on the world
        (``World.fair``), so a look is an attribute read rather than a dictionary's."""
        e = world.fair
        if isinstance(e, _Entity) and e.owner is self:
            return e
        e = self.entities.get(world)
        if e is None:
            low, high = CGROUP_WEIGHT_RANGE
            if not low <= world.group.shares <= high:
                raise ValueError(f"expected the cpu.weight of {world.group.name} within "
                                 f"{low:g}..{high:g}, got {world.group.shares:g}")
            group = world.group
            cgroup = self._cgroups.get(group)
            if cgroup is None:
                cgroup = self._cgroups[group] = _Cgroup(group)
            e = self.entities[world] = _Entity(world, cgroup, self)
            world.fair = e
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
        for e in self.order:
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
        """Give every queued task its load after a task joins or leaves; the joiner's load.

        The floating-point operations of ``_loads`` and ``fair_rates``, in the same
        order, but done per cgroup rather than per task: a cgroup's queued tasks
        share one nominal load and, with nobody held to a CPU (the usual case), one
        load, so there is no sort. ``enqueue`` and ``dequeue`` keep the cgroups'
        counts (the joiner already counted).
        """
        order = self.order
        cpus = len(machine.lcpu_world)
        if len(order) + (0 if joining is None else 1) <= cpus:  # a CPU each: all queued alike
            changed = [e for e in order if e.weight != NICE_0_LOAD]
            if changed:
                self._reweight_all(changed, [NICE_0_LOAD] * len(changed), now)
            return NICE_0_LOAD
        top = 0.0
        for cgroup in self._active.values():
            nominal = cgroup_load(cgroup.group.shares) / cgroup.count
            cgroup.nominal = nominal
            if nominal > top:
                top = nominal
        loads = [e.cgroup.nominal for e in order]
        if joining is not None:
            loads.append(joining.cgroup.nominal)
        left_cpus, left_load = float(cpus), sum(loads)
        if top * left_cpus >= left_load:  # someone is held to a CPU
            by_world = self._loads(machine, joining)
            changed = [e for e in order if by_world[e.world] != e.weight]
            if changed:
                self._reweight_all(changed, [by_world[e.world] for e in changed], now)
            return by_world[joining.world] if joining is not None else 0.0
        per_cpu = left_load / left_cpus
        for cgroup in self._active.values():
            cgroup.load = cgroup.nominal * left_cpus / left_load * per_cpu
        changed = [e for e in order if e.cgroup.load != e.weight]
        if changed:
            self._reweight_all(changed, [e.cgroup.load for e in changed], now)
        return joining.cgroup.load if joining is not None else 0.0

    def _reweight_all(self, changed: List[_Entity], loads: List[float], now: float) -> None:
        average = self.average(now)[0] if self.uses_average else 0.0
        for e, load in zip(changed, loads):
            self.bring_up_to_date(e, now)
            self.reweight(e, load, average, now)
        self._changes += 1

    # ------------------------------------------------------ queue changes
    def enqueue(self, machine, world: World) -> None:
        e = self.entity(world)
        if e.queued:
            return
        now = machine.now()
        cgroup = e.cgroup
        cgroup.count += 1
        if cgroup.count == 1:
            self._active[cgroup.group] = cgroup
        weight = self._requeue_loads(machine, now, joining=e)
        average, total = self.average(now) if self.uses_average else (0.0, 0.0)
        e.weight = weight
        e.mark = now
        self.place(machine, e, average, total, now)
        e.queued = True
        self.queued[world] = e
        self.order.append(e)
        self._changes += 1

    def dequeue(self, machine, world: World) -> None:
        e = self.entity(world)
        if not e.queued:
            return
        now = machine.now()
        average = self.average(now)[0] if self.uses_average else 0.0
        self.bring_up_to_date(e, now)
        self.keep_lag(machine, e, average)
        e.queued = False
        del self.queued[world]
        self.order.remove(e)
        cgroup = e.cgroup
        cgroup.count -= 1
        if not cgroup.count:
            del self._active[cgroup.group]
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
            now = machine.now()
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
