"""Schedulable entities: worlds (vCPUs, hypervisor threads) and their groups (VMs).

A *world* is what the hypervisor schedules on a logical CPU: a vCPU of a VM or
one of the hypervisor's own threads. A *group* is a VM: it carries the
resource controls (shares, reservation, limit) and the sibling set that
relaxed co-scheduling keeps in step.
"""

import math
from typing import Any, Final, List, Optional

IDLE: Final = 0
READY: Final = 1
RUN: Final = 2
COSTOP: Final = 3

VM = "vm"
"""Role of a group that is a VM: its worlds are the VM's vCPUs."""

HYPERVISOR = "hypervisor"
"""Role of a group of the hypervisor's own worlds working for a VM (its vNIC's transmit world)."""

HOST = "host"
"""Role of a group of the host's other work: its background tasks, the outer hypervisor's steal."""


class JobDone:
    """A job's completion handler as a compiled object: the machine runs ``done(world)`` as a
    native call where calling a Python callable (a compiled method bound to its object) goes
    through the interpreter's call protocol and the method's argument parsing, once per job.
    ``done`` returns the work of a follow-on job (possibly 0), or None to go idle, as a plain
    callable given to ``Machine.submit`` does; still callable itself."""

    def done(self, world: "World") -> Optional[float]:
        raise NotImplementedError

    def __call__(self, world: "World") -> Optional[float]:
        return self.done(world)


class Group:
    """A VM (or the hypervisor): resource controls shared by its worlds.

    shares       proportional-share weight of the whole group
    reservation  guaranteed logical-CPU time, in CPUs (0.5 = half a CPU)
    limit        cap on logical-CPU time, in CPUs (inf = none)
    cosched      whether relaxed co-scheduling keeps its worlds in step
    role         what the group is: ``VM``, ``HYPERVISOR`` or ``HOST`` (the
                 scheduler treats them alike; a report of the VMs reads it)
    demand       CPUs its worlds used or waited for over the machine's last
                 period (inf until one has passed): what an entitlement can
                 give it, as ESX computes entitlements from demand
    """

    def __init__(self, name: str, shares: float = 1000.0, reservation: float = 0.0,
                 limit: float = math.inf, cosched: bool = True, role: str = VM) -> None:
        self.name = name
        self.role = role
        self.shares = float(shares)
        self.reservation = float(reservation)
        self.limit = float(limit)
        self.cosched = cosched
        self.worlds: List[World] = []
        self.period_used = 0.0
        self.limit_version = 0
        self.cosched_due = math.inf
        self.waiting = 0  # worlds ready or co-stopped, kept by the machine
        self.demand = math.inf  # CPUs it asked for over the last period (used or waiting)
        self.asked = 0.0  # CPU time used or waited for up to the last period boundary
        self.throttled_at = 0.0  # when the group last used its limit (its worlds' throttling began)
        self.skew_tracked = False  # set by the machine that runs the group
        self.on_cosched: Any = None  # the machine's event of its co-stop checks, set with skew_tracked
        self.own_period = False  # set by the machine: its limit's periods start at a phase of their own

    def add(self, world: "World") -> None:
        self.worlds.append(world)
        self.spread_shares(self.shares)

    def spread_shares(self, shares: float) -> None:
        """Give each world an equal part of ``shares``: the group's own, or more
        when a policy counts a reservation as shares."""
        share = shares / len(self.worlds)
        for member in self.worlds:
            member.share = share

    @property
    def used(self) -> float:
        return sum(w.used for w in self.worlds)

    @property
    def ready_time(self) -> float:
        return sum(w.ready_time for w in self.worlds)

    @property
    def costop_time(self) -> float:
        return sum(w.costop_time for w in self.worlds)


class World:
    """One schedulable thread with its work, progress and accounting.

    ``affinity`` is the set of logical CPUs it may run on (None: any).
    ``work`` is the remaining work of the current job in seconds of a whole,
    uncontended core; it drains at ``rate`` (1 alone on a core, the
    hyper-threading rate while the sibling thread is busy), times its
    socket's speed on a host with socket contention, where ``Machine`` counts
    that rate in its socket's time (``t_mark``, its last settlement, and ``due`` are then
    socket times).
    ``refill_same_socket`` and ``refill_other_socket`` are the core-seconds of
    work the world adds to its job when it starts on a core other than the one
    it last ran on, in the same socket or in another (its working set is cold
    in that core's private caches; 0: no cost); ``migrations`` counts those
    starts, with or without a cost.
    """

    __slots__ = (
        "name", "group", "share", "state", "lcpu", "last_lcpu", "work", "rate", "t_mark",
        "run_start", "on_done", "version", "vtime", "used", "ready_time", "costop_time",
        "t_state", "throttled", "progress", "slice_start", "affinity", "due", "on_due", "on_start",
        "refill_same_socket", "refill_other_socket", "migrations", "limited_time", "fair",
    )

    def __init__(self, name: str, group: Group, affinity: Optional[Any] = None, *,
                 refill_same_socket: float = 0.0, refill_other_socket: float = 0.0) -> None:
        self.name = name
        self.group = group
        self.share = group.shares
        self.state = IDLE
        self.lcpu: Optional[int] = None
        self.last_lcpu: Optional[int] = None
        self.work = 0.0
        self.rate = 0.0
        self.t_mark = 0.0
        self.run_start = 0.0
        self.on_done: Any = None  # the job's completion handler, set by Machine.submit
        self.version = 0
        self.vtime = 0.0
        self.used = 0.0
        self.ready_time = 0.0
        self.costop_time = 0.0
        self.limited_time = 0.0  # the part of ready_time spent throttled by the group's limit
        self.t_state = 0.0
        self.throttled = False
        self.progress = 0.0
        self.slice_start = 0.0
        self.due = 0.0
        self.on_due: Any = None  # Machine._complete bound to this world
        self.on_start: Any = None  # optional observer called with the world whenever it starts on a CPU
        self.affinity: Optional[frozenset[int]] = (
            frozenset(affinity) if affinity is not None else None)
        self.refill_same_socket = float(refill_same_socket)
        self.refill_other_socket = float(refill_other_socket)
        self.migrations = 0
        self.fair: Any = None  # its entity in Linux's fair class (vsim.cpu.policies.fair_queue)
        group.add(self)

    def limited(self, now: float) -> float:
        """Seconds of its ready time this world spent throttled by its group's limit (esxtop's
        %MLMTD; a Linux cgroup's throttled time): ready, but held off the CPUs by the limit."""
        current = 0.0
        if self.state == READY and self.throttled:
            current = now - max(self.t_state, self.group.throttled_at)
        return self.limited_time + current

    def stall(self, now: float) -> float:
        """Seconds this world has been runnable but not running (ready or co-stopped)."""
        current = now - self.t_state if self.state in (READY, COSTOP) else 0.0
        return self.ready_time + self.costop_time + current
