"""The mechanism of a hypervisor CPU scheduler on a hyper-threaded host.

``Machine`` owns the logical CPUs and moves worlds between the states idle,
ready, run and co-stop. It tracks each running world's progress as a
piecewise-linear curve (rate 1 alone on a core, the hyper-threading rate while
the sibling thread is busy) and schedules one SimPy event per *decision*: a
job completes, a quantum expires, a limit is reached, a co-stop is due. The
*policy* (which ready world runs next, whether a waking world preempts) is a
separate object, so another scheduler is one new module: what the machine asks
of it is ``vsim.cpu.policies.protocol.CpuPolicy``.

Features handled here because every policy shares them:
- HT-aware placement: a waking world goes to a whole idle core first, its
  previous logical CPU preferred, then to an idle thread of a busy core.
- Limits, accounted over periods of ``period`` seconds: a group that used
  its limit is throttled until its next period; what its worlds spend ready
  while throttled is booked in ``limited_time`` too (esxtop's %MLMTD, part of
  the ready time). The periods of the k-th limited group (a limit below its
  worlds' count, else it never binds) start at a phase of k times the golden
  ratio's fraction of a period (0 for the first), spread
  evenly whatever the count: VMs are not started in step, so neither are
  their limits' periods (a Linux cgroup's period timer starts when the group
  first runs), and limited VMs aligned on one boundary would all burst
  together at each period's start. (Reservations are the policy's: they
  enter its entitlements, ``policy.entitle``, renewed at the host's period
  boundary.)
- Sync wakeups: a world woken by the completion handler of a running world
  (a vCPU's last act in a tick is to hand its frames to the vNIC, whose
  transmit world wakes) is placed once the waker has released its CPU, when
  the waker goes idle: the waker's CPU is free for it, so it need not preempt
  anyone (as Linux places a synchronous wakee on the waker's CPU).
- Relaxed co-scheduling: a world that runs while a sibling of its group waits
  accumulates skew; past ``costop_threshold`` it is co-stopped until no
  sibling is left waiting. Idle siblings never cause skew.
- Run-queue hooks: a policy that keeps a run queue of its own (Linux's fair
  class dequeues a sleeping or throttled entity and remembers its lag) sets
  ``run_queue_hooks``: then its ``on_block(machine, world)`` is called when a
  world goes idle or its group is throttled, and its ``on_unthrottle(machine,
  world)`` for each waiting world of a group whose throttling ends. A policy
  that leaves it false is never called there.
- Socket contention: with the topology's ``socket_contention`` c above 0, a
  running world's speed is also divided by 1 + c k, k the other busy cores
  of its socket (their shared last-level cache and memory bandwidth). Every
  world running on a socket shares that divisor, so the socket keeps a clock
  of its own that runs at 1 / (1 + c k) of real time: a world's progress is
  its hyper-threading rate times the socket time gone by, and its job's end
  is a point in socket time kept in the socket's completion queue, which has
  one pending event, for its earliest. A core of the socket starting or
  stopping changes the clock's speed only, whatever the socket's size, where
  re-timing each world running on the socket would cost one change per
  world. With c = 0 (a host model that leaves it out) nothing of this runs.
- Cache refill on migration: a world that starts on a core other than the
  one it last ran on (a hyper-thread sibling shares the core's caches) adds
  its ``refill_same_socket`` or ``refill_other_socket`` to its remaining work,
  the time it spends refilling its working set into that core's caches, and
  counts the move in ``migrations``. Both costs are 0 unless a scenario sets
  them, and then nothing changes.
- Start observer: a world's ``on_start``, when set, is called with the world
  each time it starts on a logical CPU (a trace of when each job first got a
  CPU); unset, it costs one attribute test per start.
- Limits a policy enforces itself: a policy that is ``TakesLimits`` (Xen's
  credit scheduler caps a domain through its credits) is handed each group's
  limit when the group joins, and the machine then keeps no quota for it; the
  policy holds worlds off the CPUs with ``park`` and lets them go with
  ``unpark`` (a parked world is ``throttled``, its waiting booked as limited).
- Release: a world its group's limit held back is placed at the next
  period like a waking world, preempting where the policy says so, unless
  the policy sets ``preempts_when_released`` false (Linux's CFS bandwidth
  control only wakes an idle CPU and leaves the rest to the tick).
- Ticks: a busy CPU checks its quantum while anyone waits. A world stopped
  into the ready queue (preempted or throttled) arms the check of its own
  CPU only, unless the policy sets ``tick_every_cpu``: then every busy CPU is
  armed, as Linux's scheduler tick runs on every CPU, so a world that started
  while nobody waited is not left running past its slice. The check falls
  due at ``policy.slice_end``, a quantum after the world's slice began for a
  policy with a quantum of its own; with ``tick_on_grid`` the quantum is the
  period of a clock every CPU shares instead (Linux's scheduler tick at
  ``k / HZ``), and the check falls due at the first tick at or after the
  slice's end: the ticks in between could end nothing, so they cost no event.

This module, ``world.py`` and the proportional-share policy are fully typed
because the install compiles them with mypyc (``setup.py``, ``vsim/native.py``):
a change here must still pass mypy, or the build stops with mypy's message.
"""

import math
from functools import partial
from typing import Any, Callable, Final, List, Optional, TYPE_CHECKING

from vsim.core.clock import Clock, Handler, call_later_on, clock_of, time_now
from vsim.core.environment import scheduler_for
from vsim.cpu.socket_clock import SocketClock
from vsim.cpu.world import COSTOP, IDLE, READY, RUN, Group, JobDone, World

from vsim.cpu.policies.calls import PolicyCalls, calls_of
from vsim.cpu.policies.protocol import TakesLimits

if TYPE_CHECKING:
    from vsim.cpu.policies.protocol import CpuPolicy


LIMIT_PHASE_STEP: Final = (math.sqrt(5.0) - 1.0) / 2.0
"""Fraction of a period between the phases of successive limited groups (the golden ratio's:
any number of phases spread evenly over the period)."""


class _SocketDue(Handler):
    """The event of ``socket``'s earliest completion (its argument the event's number)."""

    def __init__(self, machine: "Machine", socket: SocketClock) -> None:
        self.machine = machine
        self.socket = socket

    def fire(self, arg: Any) -> None:
        self.machine._socket_due(self.socket, arg)


class _WorldDue(Handler):
    """The completion event of ``world``'s job without socket contention (its argument the
    world's version when it was scheduled)."""

    def __init__(self, machine: "Machine", world: World) -> None:
        self.machine = machine
        self.world = world

    def fire(self, arg: Any) -> None:
        self.machine._complete(self.world, arg)


class _CoschedDue(Handler):
    """A co-stop check of ``group`` (its argument the time it was set for)."""

    def __init__(self, machine: "Machine", group: Group) -> None:
        self.machine = machine
        self.group = group

    def fire(self, arg: Any) -> None:
        self.machine._cosched_check(self.group, arg)


class Machine:
    """Logical CPUs of one host, driven by a scheduling policy."""

    def __init__(self, env: Any, topology: Any, policy: "CpuPolicy", *, quantum: float = 0.05,
                 period: float = 0.1, costop_threshold: float = math.inf) -> None:
        if topology.threads_per_core > 2:
            raise ValueError(f"expected at most 2 hardware threads per core, "
                             f"got {topology.threads_per_core}")
        self.env: Any = env
        # vsim's environment keeps its time in a compiled ``Clock`` as well, which this reads
        # without a look-up; a plain SimPy environment is read as ``env.now``
        self._clock: Optional[Clock] = clock_of(env)
        self._scheduler: Callable[[float, Any, Any], None] = scheduler_for(env)
        self.topology: Any = topology
        self.policy: "CpuPolicy" = policy
        self.quantum = float(quantum)
        self.period = float(period)
        self.costop_threshold = float(costop_threshold)
        n: int = topology.logical_cpus
        self.sibling: List[Optional[int]] = [
            topology.siblings(i)[0] if topology.threads_per_core > 1 else None for i in range(n)]
        self.lcpu_world: List[Optional[World]] = [None] * n
        cores: int = topology.cores
        self.lcpu_busy: List[float] = [0.0] * n
        self.core_busy: List[float] = [0.0] * cores
        self.core_since: List[float] = [0.0] * cores
        self.armed_mask = 0  # bit i set while logical CPU i has a quantum check pending
        self.core_index: List[int] = [topology.core_of(i) for i in range(n)]
        self.socket_index: List[int] = [topology.socket_of(i) for i in range(n)]
        self.cosched_on = costop_threshold < math.inf
        self.all_mask = (1 << n) - 1
        self.idle_mask = self.all_mask  # bit i set while logical CPU i is idle
        # with two threads per core, the bits of both threads of each wholly idle core, kept as
        # cores start and stop being busy (on a large host the mask is a long integer, and
        # deriving it from idle_mask at each placement cost several long operations)
        self._pairs = topology.threads_per_core == 2
        self.whole_idle_mask = self.all_mask
        self._core_bits: List[int] = [1 << i | 1 << (i ^ 1) for i in range(n)] if self._pairs else []
        self.ready: List[World] = []
        self.worlds: List[World] = []
        self.groups: List[Group] = []
        self.ht_rate = float(topology.ht_rate)
        self.contention = float(topology.socket_contention)
        # each socket's clock (socket contention), and each logical CPU's socket's
        self.sockets: List[SocketClock] = [SocketClock(socket) for socket in range(topology.sockets)]
        self.lcpu_socket: List[SocketClock] = [self.sockets[socket] for socket in self.socket_index]
        self._socket_due_calls = [_SocketDue(self, socket) for socket in self.sockets]
        self._entries = 0
        # sockets whose clock sped up while the machine was inside an event's handling: their
        # pending events are armed once it ends, when a start in the same instant may have
        # slowed the clock back (``_hold``, ``_let_go``)
        self._holding = False
        self._sped_up: List[SocketClock] = []
        self._completing: Optional[World] = None
        self._woken_by_completion: List[World] = []
        self._cosched_busy = False
        self._cosched_pending: List[Group] = []
        self._periodic = False
        self._limited_groups = 0
        self.reservations = False
        self._calls: PolicyCalls = calls_of(policy)  # the per-event calls, native where it can be
        self._hooks = bool(policy.run_queue_hooks)  # on_block and on_unthrottle are called
        self._tick_every_cpu = bool(policy.tick_every_cpu)
        self._tick_on_grid = bool(policy.tick_on_grid)
        self.tick_at = [0.0] * n  # with tick_on_grid: when each CPU's pending check falls due
        self._preempt_when_released = bool(policy.preempts_when_released)
        self._takes_limits: Optional["TakesLimits"] = (
            policy if isinstance(policy, TakesLimits) else None)

    # ------------------------------------------------------------------ setup
    def now(self) -> float:
        """The simulated time."""
        return time_now(self._clock, self.env)

    def _later(self, delay: float, callback: Callable[[Any], Any], arg: Any) -> None:
        """Call ``callback(arg)`` ``delay`` seconds from now (``call_later_on``)."""
        call_later_on(self._clock, self._scheduler, delay, callback, arg)

    def add_group(self, group: Group) -> None:
        """Register a VM (or hypervisor group) once all its worlds are in it."""
        self.groups.append(group)
        self.worlds.extend(group.worlds)
        group.skew_tracked = self.cosched_on and group.cosched and len(group.worlds) > 1
        group.on_cosched = _CoschedDue(self, group)
        for world in group.worlds:
            world.on_due = _WorldDue(self, world)
        self.reservations = self.reservations or group.reservation > 0
        if self.reservations:
            self.policy.entitle(self)
        if group.limit < len(group.worlds) and self._takes_limits is not None:
            self._takes_limits.take_limit(self, group)  # the policy enforces it (it parks worlds)
            group.limit = math.inf
        if group.limit >= len(group.worlds):  # a limit of every world's CPU never binds: none
            group.limit = math.inf
        else:
            phase = math.fmod(self._limited_groups * LIMIT_PHASE_STEP, 1.0) * self.period
            self._limited_groups += 1
            if phase > 0.0:  # its first period, cut short by the phase, gets its share of the limit
                group.own_period = True
                group.period_used = group.limit * (self.period - phase)
                self._later(phase, self._group_period_boundary, group)
        if (group.limit < math.inf or self.reservations) and not self._periodic:
            self._periodic = True
            self._later(self.period, self._period_boundary, None)

    # ------------------------------------------------------------ parking
    def park(self, world: World) -> None:
        """Hold ``world`` off the CPUs until ``unpark``: a policy's own throttling (Xen's credit
        scheduler parks the vCPUs of a capped domain). A running world stops into the ready
        queue and its CPU is refilled; a parked world that wakes waits in the ready queue. Its
        ready time while parked is booked in ``limited_time``, as a limit's is (from the first
        of its group's worlds parked, when several are)."""
        if world.throttled:
            return
        if not any(w.throttled for w in world.group.worlds):  # its ready time held off from now
            world.group.throttled_at = self.now()
        world.throttled = True
        if world.state == RUN:
            self._take_off_cpu(world)

    def _take_off_cpu(self, world: World) -> None:
        """Stop the running ``world`` (it stays ready) and give its logical CPU to the next."""
        lcpu = world.lcpu
        assert lcpu is not None  # the world is running
        self._stop(world, READY)
        self._dispatch(lcpu)
        self._refresh_sibling(lcpu)

    def unpark(self, world: World) -> None:
        """Release a world ``park`` held: a ready one is placed as a waking world is."""
        if not world.throttled:
            return
        world.limited_time = world.limited(self.now())  # booked, as at a limit's release
        world.throttled = False
        if world.state == READY and world in self.ready:
            self.ready.remove(world)
            self._place(world)

    # --------------------------------------------------------------- workload
    def submit(self, world: World, work: float,
               on_done: Callable[[World], Optional[float]]) -> None:
        """Give an idle world a job of ``work`` core-seconds; wake it.

        ``on_done(world)`` is called when the job completes; it returns the
        work of a follow-on job to run without sleeping (possibly 0), or None
        to go idle.
        """
        if world.state != IDLE:
            raise RuntimeError(f"{world.name} is not idle")
        world.work = work
        world.on_done = on_done
        self._set_state(world, READY)
        self._calls.on_wake(self, world)
        if world.group.skew_tracked and self._skewed_on_wake(world):
            self._set_state(world, COSTOP)
            return
        if self._completing is not None:
            self._woken_by_completion.append(world)
            return
        outer = self._hold()
        try:
            self._place(world)
        finally:
            self._let_go(outer)

    def cut_short(self, world: World) -> None:
        """End ``world``'s job now, whatever work it had left (a vCPU spinning on a condition
        that just came true): a running world completes it at once, in an event of this
        instant; a waiting one as soon as it next runs; an idle one has no job."""
        if world.state == RUN:
            self._settle(world, self.now())
            world.work = 0.0
            self._schedule_completion(world)
        elif world.state != IDLE:
            world.work = 0.0

    # ------------------------------------------------------------- accounting
    def _set_state(self, world: World, state: int) -> None:
        """Move ``world`` to ``state``, booking the time spent in the old one.

        ``group.waiting`` counts the group's worlds that are ready or
        co-stopped, so co-scheduling can tell at once whether anyone lags.
        """
        now = self.now()
        old = world.state
        if old == READY:
            world.ready_time += now - world.t_state
            world.group.waiting -= 1
        elif old == COSTOP:
            world.costop_time += now - world.t_state
            world.group.waiting -= 1
        if state == READY or state == COSTOP:
            world.group.waiting += 1
        world.state = state
        world.t_state = now

    def lcpu_utilisation(self, now: Optional[float] = None) -> List[float]:
        """Fraction of time each logical CPU was busy (esxtop PCPU UTIL)."""
        now = self.now() if now is None else now
        out = []
        for i, busy in enumerate(self.lcpu_busy):
            running = self.lcpu_world[i]
            if running is not None:
                busy += now - running.t_state
            out.append(busy / now if now > 0 else 0.0)
        return out

    def core_utilisation(self, now: Optional[float] = None) -> List[float]:
        """Fraction of time each core had at least one busy thread (esxtop CORE UTIL)."""
        now = self.now() if now is None else now
        out = []
        busy_cores = {self.core_index[i] for i, world in enumerate(self.lcpu_world)
                      if world is not None}
        for c, busy in enumerate(self.core_busy):
            if c in busy_cores:
                busy += now - self.core_since[c]
            out.append(busy / now if now > 0 else 0.0)
        return out

    def group_period_used(self, group: Group, now: float) -> float:
        """Occupancy the group has used in the current period, including current runs."""
        running = sum(now - w.run_start for w in group.worlds if w.state == RUN)
        return group.period_used + running

    # -------------------------------------------------------------- placement
    def _idle_lcpu_for(self, world: World) -> Optional[int]:
        """An idle logical CPU for ``world`` (the caller knows one is idle), or None.

        A whole idle core first, the world's previous CPU preferred, else the
        lowest-numbered; then an idle thread beside a busy one, again the
        previous CPU first. Bit masks of idle CPUs make each choice one step.
        """
        lcpu_world = self.lcpu_world
        last = world.last_lcpu
        if last is not None and lcpu_world[last] is None:
            s = self.sibling[last]
            if s is None or lcpu_world[s] is None:
                return last
        idle = self.idle_mask
        whole = self.whole_idle_mask if self._pairs else idle
        allowed = world.affinity
        if allowed is not None:
            mask = sum(1 << i for i in allowed)
            idle &= mask
            whole &= mask
        if whole:
            return (whole & -whole).bit_length() - 1
        if last is not None and lcpu_world[last] is None:
            return last
        if idle:
            return (idle & -idle).bit_length() - 1
        return None

    def _place(self, world: World, may_preempt: bool = True) -> None:
        """Run a ready world on an idle CPU, or by preemption, or queue it."""
        if world.throttled:
            self.ready.append(world)
            return
        lcpu = self._idle_lcpu_for(world) if self.idle_mask else None
        if lcpu is None and may_preempt:
            lcpu = self._calls.preempt_victim(self, world)
            if lcpu is not None:
                victim = self.lcpu_world[lcpu]
                assert victim is not None  # the policy names a busy CPU
                self._hand_over(victim, world, lcpu)
                return
        if lcpu is None:
            self.ready.append(world)
            self._arm_all_quanta()
            group = world.group
            if group.skew_tracked and group.waiting:
                self._cosched_update(group)
            return
        self._start(world, lcpu)

    def _hand_over(self, victim: World, world: World, lcpu: int) -> None:
        """Preempt ``victim`` on ``lcpu`` for ``world``, the scheduler's choice for that CPU.

        Co-scheduling the groups the stop touches waits until ``world`` holds
        the CPU: settled at the stop, it could co-start a sibling of the
        victim there, and the chosen world, put back in the ready queue,
        lost the CPU it had been picked for (at every quantum, while one VM's
        vCPUs kept co-starting each other).
        """
        if self._cosched_busy:  # already inside a co-scheduling step, which settles the rest
            self._stop(victim, READY)
            self._start_or_requeue(world, lcpu)
            return
        self._cosched_busy = True
        self._cosched_pending = []
        try:
            self._stop(victim, READY)
            self._start_or_requeue(world, lcpu)
        finally:
            self._cosched_busy = False
        if self._cosched_pending:
            for group in dict.fromkeys(self._cosched_pending):
                self._cosched_update(group)

    # ------------------------------------------------------------- run / stop
    def _start(self, world: World, lcpu: int) -> None:
        now = self.now()
        self._set_state(world, RUN)  # from READY, or COSTOP on a co-start
        last = world.last_lcpu
        if last is not None and last != lcpu:
            self._moved(world, last, lcpu)
        world.lcpu = lcpu
        world.last_lcpu = lcpu
        world.run_start = now
        world.slice_start = now
        world.t_mark = now
        lcpu_world = self.lcpu_world
        lcpu_world[lcpu] = world
        self.idle_mask &= ~(1 << lcpu)
        s = self.sibling[lcpu]
        other = lcpu_world[s] if s is not None else None
        if other is None:  # the core was idle
            core = self.core_index[lcpu]
            self.core_since[core] = now
            if self._pairs:
                self.whole_idle_mask &= ~self._core_bits[lcpu]
            if self.contention:
                socket = self.lcpu_socket[lcpu]
                socket.busy_cores += 1
                self._socket_speed_changed(socket, now)
            world.rate = 1.0
        else:
            world.rate = self.ht_rate
            if other.rate != self.ht_rate:
                self._change_rate(other, self.ht_rate)
        if self.contention:  # its progress counted in its socket's time from here
            world.t_mark = self.lcpu_socket[lcpu].at(now)
        self._schedule_completion(world)
        if self.ready and (self._tick_on_grid or not self.armed_mask >> lcpu & 1):
            self._arm_quantum(lcpu)  # on the grid, a check pending for the last world may be too late
        group = world.group
        if group.limit < math.inf:
            self._arm_limit(group)
        if group.skew_tracked and group.waiting:
            self._cosched_update(group)
        on_start = world.on_start
        if on_start is not None:
            on_start(world)

    def _socket_speed_changed(self, socket: SocketClock, now: float) -> None:
        """A core of ``socket`` started or stopped being busy: its clock, read up to ``now``,
        runs on at 1 / (1 + c k) for the k other busy cores a running world sees. Faster, its
        earliest completion may now fall before the pending event."""
        socket.time = socket.at(now)
        socket.time_at = now
        others = socket.busy_cores - 1
        speed = 1.0 / (1.0 + self.contention * others) if others > 0 else 1.0
        faster = speed > socket.speed
        socket.speed = speed
        if faster:
            if self._holding:
                self._sped_up.append(socket)
            else:
                self._arm_socket(socket, now)

    def _hold(self) -> bool:
        """Enter an event's handling: sockets sped up meanwhile are armed when it ends. True for
        the outermost entry, which ``_let_go`` must be given."""
        if self._holding:
            return False
        self._holding = True
        return True

    def _let_go(self, outer: bool) -> None:
        """Leave an event's handling (``outer``: what ``_hold`` said): the outermost arms the
        sockets sped up inside it, at their speed now (a world stopping and the next starting
        in one instant leave a socket's speed, and its pending event, as they were)."""
        if not outer:
            return
        self._holding = False
        if self._sped_up:
            sped_up, self._sped_up = self._sped_up, []
            now = self.now()
            for socket in sped_up:
                self._arm_socket(socket, now)

    def _arm_socket(self, socket: SocketClock, now: float) -> None:
        """Make ``socket``'s pending event fall at its earliest live completion, at the clock's
        present speed, unless one falls no later already (an event left early by a slowing
        clock finds its completion not due and comes again). Dead entries (a world stopped or
        rescheduled since) are dropped from the queue's head on the way."""
        ends = socket.ends
        entries = ends.entries
        while entries:
            head = entries[0]
            world: World = head.first
            version: int = head.second
            if version == world.version and world.state == RUN:
                due = now + max(0.0, head.time - socket.at(now)) / socket.speed
                if due < socket.armed:
                    socket.armed = due
                    socket.event += 1
                    self._later(due - now, self._socket_due_calls[socket.index], socket.event)
                return
            ends.pop()

    def _socket_due(self, socket: SocketClock, event: int) -> None:
        """``socket``'s pending event fell due: its earliest live completion is taken off the
        queue and handled as a world's completion event is, then the event is armed for the
        next. An event left early (the clock slowed, or the world's hyper-threading rate fell,
        since its end was queued) finds work left: the end is queued again where it now falls,
        without settling the world."""
        if event != socket.event:
            return
        socket.armed = math.inf
        outer = self._hold()
        try:
            self._socket_next(socket)
        finally:
            self._let_go(outer)

    def _socket_next(self, socket: SocketClock) -> None:
        """``_socket_due``'s handling of the queue's head, and the queue's event armed again."""
        ends = socket.ends
        entries = ends.entries
        now = self.now()
        while entries:
            head = entries[0]
            world: World = head.first
            version: int = head.second
            if version == world.version and world.state == RUN:
                socket_now = socket.at(now)
                left = world.work - world.rate * (socket_now - world.t_mark)
                end = world.t_mark + world.work / world.rate
                if left > 1e-12 and now + (end - socket_now) / socket.speed > now:
                    self._entries += 1
                    world.due = end
                    ends.replace(end, self._entries, world, version)
                else:
                    ends.pop()
                    self._complete(world, version)
                    now = self.now()
                break
            ends.pop()
        self._arm_socket(socket, now)

    def speed(self, world: World) -> float:
        """The running ``world``'s speed now: work done a second (its hyper-threading rate, times
        its socket's speed under contention)."""
        lcpu = world.lcpu
        if lcpu is None:
            return 0.0
        return world.rate * self.lcpu_socket[lcpu].speed if self.contention else world.rate

    def done_since_mark(self, world: World, now: float) -> float:
        """Work the running ``world`` has done since its progress was last settled."""
        if world.lcpu is None:
            return 0.0
        return world.rate * (self._clock_of(world, now) - world.t_mark)

    def _clock_of(self, world: World, now: float) -> float:
        """The time the running ``world``'s progress is counted in at real time ``now``: its
        socket's under socket contention, else ``now``."""
        lcpu = world.lcpu
        assert lcpu is not None  # the world is running
        return self.lcpu_socket[lcpu].at(now) if self.contention else now

    def _moved(self, world: World, last: int, lcpu: int) -> None:
        """The world starts on ``lcpu`` after running last on ``last``: on another core it
        counts a migration and adds the refill of its caches to its remaining work."""
        core_index = self.core_index
        if core_index[last] == core_index[lcpu]:
            return
        world.migrations += 1
        socket_index = self.socket_index
        refill = (world.refill_same_socket if socket_index[last] == socket_index[lcpu]
                  else world.refill_other_socket)
        if refill:
            world.work += refill

    def _settle(self, world: World, now: float) -> None:
        """Drain the work done since the last mark at the current rate (in its socket's time
        under socket contention)."""
        clock = self._clock_of(world, now)
        done = world.rate * (clock - world.t_mark)
        world.work -= done
        world.progress += done
        world.t_mark = clock

    def _change_rate(self, world: World, rate: float) -> None:
        """The sibling thread started or stopped: the world's completion moves.

        A completion that moves later keeps its pending event, which re-arms
        itself when it fires early; only one that moves earlier needs a new
        event. Siblings flip often, so this saves most completion events.
        """
        now = self.now()
        self._settle(world, now)
        world.rate = rate
        if world.t_mark + world.work / rate < world.due:  # settled: the mark is its clock now
            self._schedule_completion(world)

    def _schedule_completion(self, world: World) -> None:
        """Set the event at which the running world's job is done at its current rate.

        The event carries the world's version; a stop or a new schedule bumps
        the version, so an event made stale fires as a no-op.
        """
        world.version += 1
        delay = world.work / world.rate if world.work > 0 else 0.0
        if self.contention:  # a point in its socket's time, in the socket's queue
            lcpu = world.lcpu
            assert lcpu is not None  # the world is running
            socket = self.lcpu_socket[lcpu]
            world.due = world.t_mark + delay
            self._entries += 1
            socket.ends.push(world.due, self._entries, world, world.version)
            self._arm_socket(socket, self.now())
            return
        world.due = self.now() + delay
        self._later(delay, world.on_due, world.version)

    def _complete(self, world: World, version: int) -> None:
        """A completion event fell due: finish the job, or re-arm if it moved later.

        An event whose ``version`` is no longer the world's was made stale by
        a stop or a reschedule and does nothing.
        """
        if version != world.version or world.state != RUN:
            return
        self._settle(world, self.now())
        if world.work > 1e-12:
            self._schedule_completion(world)
            return
        world.work = 0.0
        self._completing = world
        try:
            on_done = world.on_done
            more = on_done.done(world) if isinstance(on_done, JobDone) else on_done(world)
        finally:
            self._completing = None
        woken = self._woken_by_completion
        if woken:
            self._woken_by_completion = []
        lcpu = world.lcpu
        assert lcpu is not None  # the world is running
        if more is not None:
            world.work = more
            self._schedule_completion(world)
        else:
            self._stop(world, IDLE)
        for other in woken:  # READY and unplaced: nothing runs between the wake and here
            self._place(other)
        if more is None:
            if self.ready:
                self._dispatch(lcpu)
            self._refresh_sibling(lcpu)

    def _charge(self, world: World, now: float) -> None:
        """Book the occupancy since the last accounting mark."""
        occupancy = now - world.run_start
        world.run_start = now
        world.used += occupancy
        world.group.period_used += occupancy
        self._calls.charge(self, world, occupancy)

    def _stop(self, world: World, state: int) -> None:
        """Take a running world off its logical CPU; the caller refills the CPU.

        A world stopped into READY joins the ready queue at once, before any
        co-scheduling reaction can hand out a CPU, so it is never overlooked.
        The hyper-thread sibling keeps its paired speed for now: the caller
        usually refills the CPU in the same instant, and a pairing that ends
        and starts again in one instant changes nobody's progress. The caller
        finishes with ``_refresh_sibling``, which speeds the sibling up if the
        CPU stayed idle.
        """
        now = self.now()
        self._settle(world, now)
        world.version += 1
        self._charge(world, now)
        lcpu = world.lcpu
        assert lcpu is not None  # the world is running
        self.lcpu_world[lcpu] = None
        lcpu_busy = self.lcpu_busy
        lcpu_busy[lcpu] = lcpu_busy[lcpu] + (now - world.t_state)  # its state began with its run
        self.idle_mask |= 1 << lcpu
        s = self.sibling[lcpu]
        if s is None or self.lcpu_world[s] is None:  # the core is idle now
            core = self.core_index[lcpu]
            core_busy = self.core_busy
            core_busy[core] = core_busy[core] + (now - self.core_since[core])
            if self._pairs:
                self.whole_idle_mask |= self._core_bits[lcpu]
            if self.contention:
                socket = self.lcpu_socket[lcpu]
                socket.busy_cores -= 1
                self._socket_speed_changed(socket, now)
        world.lcpu = None
        self._set_state(world, state)
        if state == READY:
            self.ready.append(world)
            if self._tick_every_cpu:
                self._arm_all_quanta()
        elif state == IDLE and self._hooks:
            self._calls.on_block(self, world)
        group = world.group
        if group.limit < math.inf:
            self._arm_limit(group)
        if state == READY and group.skew_tracked:
            self._cosched_update(group)

    def _refresh_sibling(self, lcpu: int) -> None:
        """After a stop on ``lcpu``: if it is still idle, its sibling runs alone again."""
        s = self.sibling[lcpu]
        if s is None or self.lcpu_world[lcpu] is not None:
            return
        other = self.lcpu_world[s]
        if other is None:
            return
        if other.rate != 1.0:
            self._change_rate(other, 1.0)

    def _dispatch(self, lcpu: int) -> None:
        """Fill a free logical CPU with the policy's choice among eligible ready worlds."""
        if self.lcpu_world[lcpu] is not None or not self.ready:
            return
        world = self._calls.pick(self, self.ready, lcpu)
        if world is None:
            return
        self.ready.remove(world)
        self._start(world, lcpu)

    # ---------------------------------------------------------------- quantum
    def _arm_all_quanta(self) -> None:
        """Arm the quantum check of every busy logical CPU that has none, lowest first."""
        unarmed = self.all_mask & ~self.idle_mask & ~self.armed_mask
        while unarmed:
            low = unarmed & -unarmed
            self._arm_quantum(low.bit_length() - 1)
            unarmed ^= low

    def _arm_quantum(self, lcpu: int) -> None:
        if self._tick_on_grid:
            self._arm_tick(lcpu)
            return
        bit = 1 << lcpu
        if self.armed_mask & bit:
            return
        self.armed_mask |= bit
        world = self.lcpu_world[lcpu]
        assert world is not None  # only busy CPUs arm a quantum
        delay = max(0.0, self._calls.slice_end(self, world) - self.now())
        self._later(delay, self._quantum_expired, lcpu)

    def _quantum_expired(self, lcpu: int) -> None:
        self.armed_mask &= ~(1 << lcpu)
        world = self.lcpu_world[lcpu]
        if world is None or not self.ready:
            return
        if self.now() < self._calls.slice_end(self, world) - 1e-12:
            self._arm_quantum(lcpu)
            return
        self._check_quantum(lcpu, world)

    def _check_quantum(self, lcpu: int, world: World) -> None:
        """The quantum check of ``world``, running on ``lcpu``, with worlds waiting: the best of
        them takes the CPU if the policy says so, else ``world`` starts a new slice."""
        best = self._calls.pick(self, self.ready, lcpu)
        if best is not None and self._calls.preempts_at_quantum(self, best, world):
            self.ready.remove(best)
            outer = self._hold()
            try:
                self._hand_over(world, best, lcpu)
            finally:
                self._let_go(outer)
            return
        world.slice_start = self.now()
        self._arm_quantum(lcpu)

    # ------------------------------------------------------- the tick's grid
    def _grid_at_or_after(self, t: float) -> float:
        """The first tick (a multiple of the quantum) at or after ``t``."""
        return math.ceil(t / self.quantum - 1e-9) * self.quantum

    def _grid_after(self, t: float) -> float:
        """The first tick after ``t``."""
        return (math.floor(t / self.quantum + 1e-9) + 1) * self.quantum

    def _tick_due(self, world: World) -> float:
        """The first tick that may end ``world``'s slice: at or after its end, after its start
        (or the last check)."""
        return max(self._grid_at_or_after(self._calls.slice_end(self, world)),
                   self._grid_after(world.slice_start))

    def _arm_tick(self, lcpu: int) -> None:
        """Arm ``lcpu``'s check at its world's ``_tick_due`` (the next tick if that has passed),
        unless a check is already due no later."""
        world = self.lcpu_world[lcpu]
        assert world is not None  # only busy CPUs arm a quantum
        now = self.now()
        due = self._tick_due(world)
        if due <= now + 1e-12:
            due = self._grid_after(now)
        bit = 1 << lcpu
        if self.armed_mask & bit and self.tick_at[lcpu] <= due + 1e-12:
            return
        self.armed_mask |= bit
        delay = max(0.0, due - now)
        self.tick_at[lcpu] = now + delay  # the instant the environment will fire it at
        self._later(delay, self._tick, lcpu)

    def _tick(self, lcpu: int) -> None:
        """A tick of ``lcpu``'s clock that a check was armed for (one an earlier arming
        replaced does nothing)."""
        now = self.now()
        if now != self.tick_at[lcpu] or not self.armed_mask >> lcpu & 1:
            return
        self.armed_mask &= ~(1 << lcpu)
        world = self.lcpu_world[lcpu]
        if world is None or not self.ready:
            return
        if now < self._tick_due(world) - 1e-12:
            self._arm_tick(lcpu)
            return
        self._check_quantum(lcpu, world)

    # --------------------------------------------------- reservations, limits
    def _arm_limit(self, group: Group) -> None:
        group.limit_version += 1
        if any(w.throttled for w in group.worlds):
            return
        running = sum(1 for w in group.worlds if w.state == RUN)
        if running == 0:
            return
        now = self.now()
        remaining = group.limit * self.period - self.group_period_used(group, now)
        if remaining <= 1e-12:
            self._throttle(group)
            return
        self._later(remaining / running, partial(self._limit_due, group), group.limit_version)

    def _limit_due(self, group: Group, version: int) -> None:
        if version == group.limit_version:
            self._arm_limit(group)

    def _throttle(self, group: Group) -> None:
        """The group used its limit for this period: take it off the CPUs."""
        group.throttled_at = self.now()
        for world in group.worlds:
            world.throttled = True
        if self._hooks:
            for world in group.worlds:
                if world.state == RUN or world.state == READY:
                    self._calls.on_block(self, world)
        for world in group.worlds:
            if world.state == RUN:
                self._take_off_cpu(world)

    def _period_boundary(self, _arg: Any) -> None:
        """The host's period boundary: entitlements from demand, and a new period for every
        limited group without a phase of its own."""
        now = self.now()
        for world in self.worlds:
            if world.state == RUN:
                self._charge(world, now)
        for group in self.groups:
            if not group.own_period:
                group.period_used = 0.0
        if self.reservations:
            self._entitle_by_demand(now)
        self._renew_limits(now, None)
        self._later(self.period, self._period_boundary, None)

    def _group_period_boundary(self, group: Group) -> None:
        """A new period for a limited group whose periods start at a phase of their own."""
        now = self.now()
        for world in group.worlds:
            if world.state == RUN:
                self._charge(world, now)
        group.period_used = 0.0
        self._renew_limits(now, group)
        self._later(self.period, self._group_period_boundary, group)

    def _renews(self, group: Group, only: Optional[Group]) -> bool:
        """Whether a period boundary of ``only`` (None: the host's) starts a period of ``group``."""
        return group is only if only is not None else not group.own_period

    def _renew_limits(self, now: float, only: Optional[Group]) -> None:
        """Release the worlds of the groups whose new period starts now (``only``, or with None
        every group without a phase of its own) and arm their limits."""
        released = [w for w in self.ready if w.throttled and self._renews(w.group, only)]
        for world in (self.worlds if only is None else only.worlds):
            if self._renews(world.group, only):
                if world.throttled:  # ready since its throttling began, it is booked now
                    world.limited_time = world.limited(now)
                world.throttled = False
        if self._hooks:
            for world in released:
                self._calls.on_unthrottle(self, world)
        for world in released:
            if world.state == READY and world in self.ready:
                self.ready.remove(world)
                self._place(world, may_preempt=self._preempt_when_released)
        for group in self.groups:
            if group.limit < math.inf and self._renews(group, only):
                self._arm_limit(group)
        for lcpu in range(len(self.lcpu_world)):
            if self.lcpu_world[lcpu] is None:
                self._dispatch(lcpu)

    def _entitle_by_demand(self, now: float) -> None:
        """Each group's demand over the period just ended (CPU time its worlds used or were
        runnable without running, per second), then the policy's entitlements from it: a
        reservation is then worth what it takes beside the groups that want CPU, not beside
        every world a group could run."""
        for group in self.groups:
            asked = sum(w.used + w.stall(now) for w in group.worlds)
            group.demand = (asked - group.asked) / self.period
            group.asked = asked
        self.policy.entitle(self)

    def _start_or_requeue(self, world: World, lcpu: int) -> None:
        """Start a chosen world unless stopping its predecessor changed the picture.

        Stopping a world can throttle a group (its limit is reached) or let
        co-scheduling fill the CPU; the chosen world then waits and the CPU
        goes to whoever is eligible. A world co-started there found nobody
        waiting and armed no quantum check: the CPU arms one now, as for any
        world put back in the ready queue, or the chosen world would wait
        for whatever event came next.
        """
        if self.lcpu_world[lcpu] is None and not world.throttled:
            self._start(world, lcpu)
            return
        self.ready.append(world)
        self._dispatch(lcpu)
        self._refresh_sibling(lcpu)
        if self.lcpu_world[lcpu] is not None:
            self._arm_quantum(lcpu)

    # ------------------------------------------------ relaxed co-scheduling
    def _skewed_on_wake(self, world: World) -> bool:
        """Whether a sibling of the world, just made ready, lags it by the threshold or more."""
        now = self.now()
        limit = world.ready_time + world.costop_time + self.costop_threshold
        for sibling in world.group.worlds:
            if (sibling.state == READY and not sibling.throttled
                    and sibling.ready_time + sibling.costop_time + now - sibling.t_state >= limit):
                return True
        return False

    def _cosched_update(self, group: Group) -> None:
        """Settle co-scheduling for ``group`` and every group its co-stops and co-starts touch.

        A step may start or stop worlds of other groups, whose own updates are
        queued and run here in turn rather than recursively.
        """
        if not group.waiting:
            return
        if self._cosched_busy:
            self._cosched_pending.append(group)
            return
        self._cosched_busy = True
        pending = self._cosched_pending = [group]  # steps below may append to it
        budget = 100 * len(self.worlds) + 100
        try:
            while pending:
                budget -= 1
                if budget < 0:
                    raise RuntimeError("co-scheduling did not settle")
                self._cosched_step(pending.pop())
        finally:
            self._cosched_busy = False

    def _waiting_lag(self, group: Group, now: float) -> float:
        """The longest stall (ready and co-stopped time) of the group's worlds waiting for a CPU
        now, not throttled; -1 when none waits."""
        lag = -1.0
        for world in group.worlds:
            if world.state == READY and not world.throttled:
                stall = world.ready_time + world.costop_time + now - world.t_state
                if stall > lag:
                    lag = stall
        return lag

    def _cosched_step(self, group: Group) -> None:
        """Co-stop leaders whose skew passed the threshold; co-start when nobody lags."""
        now = self.now()
        lag = self._waiting_lag(group, now)
        if lag < 0:
            for world in group.worlds:
                if world.state == COSTOP:
                    self._set_state(world, READY)
                    self._place(world, may_preempt=False)
            return
        running = [world for world in group.worlds if world.state == RUN]
        soonest = math.inf
        threshold = self.costop_threshold
        stopped = False
        for world in running:
            if world.state != RUN:  # stopped meanwhile: a co-stop above hit the group's limit
                continue
            if stopped:  # the CPU a co-stop freed may have gone to the sibling that lagged
                lag = self._waiting_lag(group, now)
                if lag < 0:  # nobody waits now: start over, which co-starts the co-stopped
                    self._cosched_pending.append(group)
                    return
            gap = threshold - (lag - world.ready_time - world.costop_time)
            if gap <= 1e-12:
                lcpu = world.lcpu
                assert lcpu is not None  # the world is running
                self._stop(world, COSTOP)
                self._dispatch(lcpu)
                self._refresh_sibling(lcpu)
                stopped = True
            elif gap < soonest:
                soonest = gap
        due = now + soonest
        if due < group.cosched_due:
            group.cosched_due = due
            self._later(soonest, group.on_cosched, due)

    def _cosched_check(self, group: Group, due: float) -> None:
        """A co-stop check fell due; one set for an earlier time replaces it.

        Only the earliest pending check per group is kept: each step sets the
        next one it needs, so a later check is never lost.
        """
        if due != group.cosched_due:
            return
        group.cosched_due = math.inf
        outer = self._hold()
        try:
            self._cosched_update(group)
        finally:
            self._let_go(outer)
