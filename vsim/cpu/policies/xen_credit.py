"""Xen's credit scheduler (credit1, xen/common/sched/credit.c, ``sched_credit.c`` in older
releases), as a vCPU scheduling policy.

Every group is a domain and every world one of its vCPUs. What the scheduler does:

- *Weights and caps.* A domain's weight (Xen's default 256) comes from its shares:
  ``weight = default_weight * shares / (1000 * vCPUs)``, so a VM at vsim's normal 1000 shares
  per vCPU has Xen's default weight whatever its vCPU count, and VMs keep the ratio of their
  shares. Its cap, in percent of one physical CPU (0: none), is its ``limit`` in CPUs times
  100; the policy takes the limit over from the machine (``TakesLimits``), which then never
  throttles the domain by a quota: the cap works through credits and parking, as in Xen. A
  limit of all its vCPUs or more is no cap, as everywhere in vsim (Xen itself would still
  park a vCPU more than a slice in debt at a cap of 100 x vCPUs).
- *Credits.* A running vCPU burns ``credits_per_ms`` credits per millisecond on a CPU (10:
  300 per 30 ms slice), booked at every tick and whenever it stops (``burn_credits``); with
  ``tick_debit`` a tick debits its whole 100 credits from the
  vCPU it finds running and nothing else is debited, the sampling of older releases, which
  a vCPU that always blocks between ticks never pays. Every accounting period
  (the machine's ``period``, 30 ms, a whole number of ticks) ``csched_acct`` hands out
  ``credits per period x CPUs`` over the *active* domains, each's share proportional to its
  weight times its active vCPUs, at most its active vCPUs' worth of one CPU each and at most
  its cap; what a domain held back by that peak leaves over goes to the domains after it in
  the active list (a domain that took less than its fair share moves to its head), and each
  domain's credit is split evenly over its active vCPUs. Then a vCPU with credit below 0 is
  OVER (its credit floored at minus a slice's worth; a capped domain's vCPU more than its
  share of the cap in debt is *parked*, held off the CPUs), one with credit 0 or more UNDER
  (a parked one unparked), and one holding more than a slice's worth leaves the active list
  with its credit halved. A vCPU joins the active list when a tick finds it running.
- *Priorities* BOOST > UNDER > OVER. A vCPU that wakes UNDER (and not parked) is BOOSTed; a
  tick that finds it running drops it to UNDER, so only a vCPU that blocks before a tick
  stays boosted. The waker takes an idle CPU (the machine's placement), else it preempts
  the vCPU on its own CPU (the CPU it last ran on, Xen's ``v->processor``) if that one has a
  strictly lower priority, else it waits in that CPU's run queue.
- *Run queues per CPU, sorted by priority, first in first out within one.* Every CPU
  reschedules when its running vCPU's slice (the machine's ``quantum``, 30 ms) ends: the
  running vCPU goes behind the queued vCPUs of its own priority and the head of the CPU's
  queue runs. If that head is OVER (or there is none), the CPU first looks at its peers in
  turn, from its neighbour up, and *steals* the first queued vCPU of a strictly higher
  priority it may run (``csched_load_balance``): an idle CPU takes any runnable vCPU, so no
  CPU idles while a vCPU it may run waits.
- No co-scheduling, no reservations (a scenario that sets one is refused).

Simplifications: credits are real numbers (Xen's are integers rounded up); one tick clock
for every CPU (Xen's CPUs tick on timers of their own); a tickled CPU takes its waker at
once; the rate limit of later releases (1 ms before a preemption, Xen 4.2) is not modelled;
a stealing CPU looks at every peer's queue, an idle peer's too (Xen looks at busy peers',
which is where queued vCPUs wait).
"""

import math
from typing import Any, Callable, Dict, Final, List, Optional, TYPE_CHECKING

from vsim.core.environment import scheduler_for
from vsim.cpu.policies.calls import PolicyCalls
from vsim.cpu.world import RUN, Group, World

if TYPE_CHECKING:
    from vsim.cpu.machine import Machine

PRI_BOOST: Final = 0
PRI_UNDER: Final = -1
PRI_OVER: Final = -2
PRI_IDLE: Final = -64
"""Xen's priorities (``CSCHED_PRI_TS_BOOST`` ... ``CSCHED_PRI_IDLE``): higher runs first."""

PRIORITY_NAMES = {PRI_BOOST: "BOOST", PRI_UNDER: "UNDER", PRI_OVER: "OVER"}

NORMAL_SHARES_PER_VCPU: Final = 1000.0
"""vsim's normal CPU shares per vCPU (``vsim.config.cpu_settings``): the shares that mean Xen's
default weight."""


class Vcpu:
    """The credit scheduler's record of one world: credit, priority and active-list state."""

    __slots__ = ("world", "domain", "credit", "pri", "active", "mark", "parked", "home",
                 "earned", "forgiven", "dropped")

    def __init__(self, world: World, domain: "Domain") -> None:
        self.world = world
        self.domain = domain
        self.credit = 0.0
        self.pri = PRI_UNDER
        self.active = False
        self.mark = 0.0  # credits are burnt up to here while it runs
        self.parked = False
        self.home: Optional[int] = None  # its CPU before it first ran
        # the ledger: credit = earned + forgiven - dropped - burnt, burnt = its CPU time x rate
        self.earned = 0.0  # handed out at accountings
        self.forgiven = 0.0  # debt the floor wrote off
        self.dropped = 0.0  # the half of a credit above a slice's worth, on leaving the active list


class Domain:
    """A group as a domain: its weight, its cap (percent, 0: none), its active vCPUs."""

    __slots__ = ("group", "weight", "cap", "active")

    def __init__(self, group: Group, weight: float, cap: float) -> None:
        self.group = group
        self.weight = weight
        self.cap = cap
        self.active: List[Vcpu] = []


class XenCredit(PolicyCalls):
    """Xen's credit scheduler: credits by weight and cap, BOOST/UNDER/OVER, per-CPU run queues
    with work stealing, caps by parking (see the module's docstring)."""

    tick_every_cpu = True  # every CPU reschedules when its running vCPU's slice ends
    preempts_when_released = True  # an unparked vCPU is placed as a waking one
    run_queue_hooks = False  # the run queues are read off the machine's ready worlds
    tick_on_grid = False  # a slice runs from when the vCPU was scheduled

    def __init__(self, tick: float = 0.01, credits_per_ms: float = 10.0,
                 default_weight: float = 256.0, tick_debit: bool = False) -> None:
        for name, value in (("tick", tick), ("credits_per_ms", credits_per_ms),
                            ("default_weight", default_weight)):
            if not value > 0:
                raise ValueError(f"expected {name} > 0, got {value}")
        self.by_time = not tick_debit
        self.tick = float(tick)
        self.credits_per_ms = float(credits_per_ms)
        self.credits_per_second = 1000.0 * self.credits_per_ms
        self.credits_per_tick = self.credits_per_second * self.tick
        self.default_weight = float(default_weight)
        self.vcpus: Dict[World, Vcpu] = {}
        self.domains: Dict[Group, Domain] = {}
        self.caps: Dict[Group, float] = {}
        self.active_domains: List[Domain] = []  # Xen's active_sdom list, in its order
        self.machine: Optional["Machine"] = None
        self._call_later: Optional[Callable[[float, Any, Any], None]] = None
        self.ticks = 0
        self.ticks_per_account = 1
        self.accountings = 0

    # ------------------------------------------------------------ records
    def domain(self, group: Group) -> Domain:
        """The domain of ``group``, made on first sight."""
        domain = self.domains.get(group)
        if domain is None:
            weight = (self.default_weight * group.shares
                      / (NORMAL_SHARES_PER_VCPU * max(1, len(group.worlds))))
            domain = Domain(group, weight, self.caps.get(group, 0.0))
            self.domains[group] = domain
        return domain

    def vcpu(self, world: World) -> Vcpu:
        """The record of ``world``, made on first sight."""
        vcpu = self.vcpus.get(world)
        if vcpu is None:
            vcpu = Vcpu(world, self.domain(world.group))
            self.vcpus[world] = vcpu
        return vcpu

    def priority(self, world: World) -> int:
        """``world``'s priority now (``PRI_BOOST``, ``PRI_UNDER`` or ``PRI_OVER``)."""
        return self.vcpu(world).pri

    def credit(self, world: World) -> float:
        """``world``'s credit now, a running world's burnt up to now."""
        vcpu = self.vcpu(world)
        if self.machine is not None:
            self._burn(vcpu, self.machine.now())
        return vcpu.credit

    def home(self, world: World) -> int:
        """The CPU whose run queue holds ``world`` when it waits: the one it last ran on."""
        if world.last_lcpu is not None:
            return world.last_lcpu
        home = self.vcpu(world).home
        return 0 if home is None else home

    # ------------------------------------------------------------- clocks
    def _start_clock(self, machine: "Machine") -> None:
        """Start the ticks (and the accounting every ``ticks_per_account`` of them) on the
        first call, on a clock from time 0."""
        self.machine = machine
        self._call_later = scheduler_for(machine.env)
        self.ticks_per_account = max(1, int(round(machine.period / self.tick)))
        now = machine.now()
        self.ticks = int(math.floor(now / self.tick + 1e-9))
        self._call_later((self.ticks + 1) * self.tick - now, self._on_tick, None)

    def _on_tick(self, _arg: Any) -> None:
        """``csched_tick`` on every CPU, then ``csched_acct`` every accounting period."""
        machine = self.machine
        assert machine is not None and self._call_later is not None
        now = machine.now()
        self.ticks += 1
        for world in machine.lcpu_world:
            if world is None:
                continue
            vcpu = self.vcpu(world)
            if vcpu.pri == PRI_BOOST:
                vcpu.pri = PRI_UNDER
            if self.by_time:
                self._burn(vcpu, now)
            else:  # a whole tick's credits to the vCPU the tick finds running
                vcpu.credit -= self.credits_per_tick
            if not vcpu.active:
                self._activate(vcpu)
        if self.ticks % self.ticks_per_account == 0:
            self._account(machine, now)
        self._call_later(max(0.0, (self.ticks + 1) * self.tick - now), self._on_tick, None)

    def _burn(self, vcpu: Vcpu, now: float) -> None:
        """Debit a running vCPU's credit for its time on a CPU since it was last debited."""
        world = vcpu.world
        if world.state != RUN or not self.by_time:
            return
        start = max(vcpu.mark, world.run_start)
        if now > start:
            vcpu.credit -= (now - start) * self.credits_per_second
            vcpu.mark = now

    def _activate(self, vcpu: Vcpu) -> None:
        """``__csched_vcpu_acct_start``: the vCPU (and its domain, at the head) joins the
        active list."""
        vcpu.active = True
        domain = vcpu.domain
        if not domain.active:
            self.active_domains.insert(0, domain)
        domain.active.insert(0, vcpu)

    def _deactivate(self, vcpu: Vcpu) -> None:
        vcpu.active = False
        domain = vcpu.domain
        domain.active.remove(vcpu)
        if not domain.active:
            self.active_domains.remove(domain)

    def _account(self, machine: "Machine", now: float) -> None:
        """``csched_acct``: credits to the active domains by weight, peak and cap; then every
        active vCPU's priority, parking and active-list state from its credit."""
        self.accountings += 1
        for world in machine.lcpu_world:
            if world is not None:
                self._burn(self.vcpu(world), now)
        domains = list(self.active_domains)
        weight_total = sum(d.weight * len(d.active) for d in domains)
        if weight_total <= 0:
            return
        per_cpu = self.credits_per_ms * machine.period * 1000.0  # credits of one CPU per period
        slice_credits = self.credits_per_ms * machine.quantum * 1000.0
        credit_total = per_cpu * len(machine.lcpu_world)
        weight_left = weight_total
        extra = False
        for domain in domains:
            count = len(domain.active)
            weight_left -= domain.weight * count
            peak = count * per_cpu
            cap_per_vcpu = math.inf
            if domain.cap > 0:
                cap = domain.cap * per_cpu / 100.0
                peak = min(peak, cap)
                cap_per_vcpu = cap / count
            fair = credit_total * domain.weight * count / weight_total
            if fair < peak:
                extra = True
            else:
                if weight_left > 1e-12:  # what it cannot take goes to the domains after it
                    credit_total += (fair - peak) * weight_total / weight_left
                if extra:  # to the head, so the domains that want more get it next time
                    self.active_domains.remove(domain)
                    self.active_domains.insert(0, domain)
                fair = peak
            each = fair / count
            for vcpu in list(domain.active):
                vcpu.credit += each
                vcpu.earned += each
                if vcpu.credit < 0:
                    vcpu.pri = PRI_OVER
                    if domain.cap > 0 and vcpu.credit < -cap_per_vcpu and not vcpu.parked:
                        vcpu.parked = True
                        machine.park(vcpu.world)
                    if vcpu.credit < -slice_credits:
                        vcpu.forgiven += -slice_credits - vcpu.credit
                        vcpu.credit = -slice_credits
                else:
                    vcpu.pri = PRI_UNDER
                    if vcpu.parked:
                        vcpu.parked = False
                        machine.unpark(vcpu.world)
                    if vcpu.credit > slice_credits:
                        self._deactivate(vcpu)
                        vcpu.dropped += vcpu.credit / 2.0
                        vcpu.credit /= 2.0

    # ------------------------------------------------------- the protocol
    def take_limit(self, machine: "Machine", group: Group) -> None:
        """A domain's cap: its limit in CPUs as percent of one CPU (``TakesLimits``)."""
        self.caps[group] = group.limit * 100.0
        domain = self.domains.get(group)
        if domain is not None:
            domain.cap = self.caps[group]

    def entitle(self, machine: "Machine") -> None:
        raise ValueError("Xen's credit scheduler has no CPU reservation (a domain has a weight "
                         "and a cap); expected reservation 0")

    def on_wake(self, machine: "Machine", world: World) -> None:
        """A waking UNDER vCPU, not parked, is BOOSTed (``csched_vcpu_wake``)."""
        if self.machine is None:
            self._start_clock(machine)
        vcpu = self.vcpu(world)
        if vcpu.pri == PRI_UNDER and not vcpu.parked:
            vcpu.pri = PRI_BOOST
        if world.last_lcpu is None and vcpu.home is None:
            vcpu.home = self._least_loaded(machine, world)

    def _least_loaded(self, machine: "Machine", world: World) -> int:
        """A first CPU for a vCPU that never ran: the one running and queueing the fewest,
        the lowest of them."""
        n = len(machine.lcpu_world)
        load = [0 if machine.lcpu_world[i] is None else 1 for i in range(n)]
        for queued in machine.ready:
            load[self.home(queued) % n] += 1
        allowed = [i for i in range(n) if world.affinity is None or i in world.affinity]
        return min(allowed or list(range(n)), key=lambda i: (load[i], i))

    def charge(self, machine: "Machine", world: World, occupancy: float) -> None:
        """Burn the credits of the occupancy not yet debited at a tick (not with ``tick_debit``)."""
        if not self.by_time:
            return
        vcpu = self.vcpu(world)
        now = machine.now()
        start = max(vcpu.mark, now - occupancy)
        if now > start:
            vcpu.credit -= (now - start) * self.credits_per_second
        vcpu.mark = now

    def on_block(self, machine: "Machine", world: World) -> None:
        """Nothing: not called (no ``run_queue_hooks``)."""

    def on_unthrottle(self, machine: "Machine", world: World) -> None:
        """Nothing: not called (no ``run_queue_hooks``)."""

    def pick(self, machine: "Machine", ready: List[World], lcpu: int) -> Optional[World]:
        """``csched_schedule`` on ``lcpu``: the head of its run queue, its running vCPU put
        behind the queued ones of its priority (None: that one runs on); if the head is OVER
        or there is none, the first strictly more urgent vCPU a peer queues."""
        current = machine.lcpu_world[lcpu]
        best: Optional[World] = None
        best_pri = PRI_IDLE
        found = False
        for world in ready:
            if world.throttled or (world.affinity is not None and lcpu not in world.affinity):
                continue
            if self.home(world) != lcpu:
                continue
            pri = self.vcpu(world).pri
            if not found or pri > best_pri:
                best, best_pri, found = world, pri, True
        if current is not None and not current.throttled:
            pri = self.vcpu(current).pri
            if not found or pri > best_pri:
                best, best_pri, found = None, pri, True
        if found and best_pri > PRI_OVER:
            return best
        n = len(machine.lcpu_world)
        for step in range(1, n):
            peer = (lcpu + step) % n
            stolen: Optional[World] = None
            stolen_pri = best_pri
            for world in ready:
                if world.throttled or (world.affinity is not None and lcpu not in world.affinity):
                    continue
                if self.home(world) != peer:
                    continue
                pri = self.vcpu(world).pri
                if pri > stolen_pri:
                    stolen, stolen_pri = world, pri
            if stolen is not None:
                return stolen
        return best

    def preempt_victim(self, machine: "Machine", world: World) -> Optional[int]:
        """The waker's own CPU, if the vCPU running there has a strictly lower priority
        (``__runq_tickle``); else it waits in that CPU's queue."""
        home = self.home(world)
        allowed = world.affinity
        if allowed is not None and home not in allowed:
            home = min(allowed)
        running = machine.lcpu_world[home]
        if running is None:
            return None
        if self.vcpu(world).pri > self.vcpu(running).pri:
            return home
        return None

    def slice_end(self, machine: "Machine", world: World) -> float:
        """The end of the running vCPU's current 30 ms slice (a slice follows a slice while
        nobody waits, as Xen's timer fires every slice)."""
        quantum = machine.quantum
        start = world.slice_start
        now = machine.now()
        slices = max(1.0, math.ceil((now - start) / quantum - 1e-9))
        return start + slices * quantum

    def preempts_at_quantum(self, machine: "Machine", best: World, current: World) -> bool:
        """Yes: ``pick`` already put the running vCPU behind the ones of its priority."""
        return True
