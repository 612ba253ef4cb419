"""What ``vsim.cpu.machine.Machine`` asks of a CPU scheduling policy: ``CpuPolicy``.

The machine carries decisions out (placement, limits, co-scheduling, the
accounting); the policy makes them. A new policy is a class offering every
member below, registered in ``vsim.cpu.policies.POLICIES``; mypy checks that
each registered class or factory makes one (``setup.cfg``'s ``[mypy]``). Deriving
it from ``vsim.cpu.policies.calls.PolicyCalls`` lets the compiled machine call its
per-event methods natively; a policy that does not is called through a forwarder,
the same decisions at the cost of a Python call each.

Every call gets the machine first, whose lists a policy may read but not
change: ``machine.ready`` (the ready worlds, in queueing order),
``machine.lcpu_world`` (the world running on each logical CPU, or None) and
``machine.groups``; ``machine.now()`` is the time.

Four capability attributes tell the machine what else to do; they are read
once, when the machine is built, so a policy sets them on its class:

- ``tick_every_cpu``: a world stopped into the ready queue arms the quantum
  check of every busy CPU, as Linux's scheduler tick runs on every CPU
  (False: only its own CPU's, the usual choice);
- ``preempts_when_released``: a world its group's limit held back is placed
  at the next period like a waking world, preempting where ``preempt_victim``
  says (False: it only takes an idle CPU and waits for a tick otherwise, as
  Linux's CFS bandwidth control; the usual choice is True);
- ``tick_on_grid``: the quantum check runs on a clock of period ``quantum``
  that every CPU shares (Linux's scheduler tick at ``k / HZ``), at the first
  tick at or after ``slice_end`` (False: at ``slice_end`` itself, a quantum
  after the slice began, the usual choice);
- ``run_queue_hooks``: the machine calls ``on_block`` and ``on_unthrottle``,
  for a policy keeping a run queue of its own (Linux's fair class dequeues a
  sleeping or throttled task and remembers its lag). False (the usual
  choice): the machine never calls them, which saves a call per sleep, and a
  policy writes them as doing nothing.

One question a policy may answer or not, an optional capability
(``SharesOutHost``), asked through ``host_shares``: what each VM's shares
give it of the host. A policy that shares the host out by shares (ESX's
proportional share) answers in CPUs; by default a policy has no such
arithmetic (Linux's fair class weighs tasks against each other per CPU) and
``host_shares`` answers None.

Another optional capability, ``TakesLimits``: a policy that enforces groups'
limits itself (Xen's credit scheduler caps a domain through its credits and
parks its vCPUs) is handed each limit by ``take_limit`` and the machine keeps
no quota for that group.
"""

from typing import TYPE_CHECKING, Callable, Dict, List, Optional, Protocol, Sequence, runtime_checkable

from vsim.cpu.world import Group, World

if TYPE_CHECKING:
    from vsim.cpu.machine import Machine


class CpuPolicy(Protocol):
    """A scheduling policy, as the machine calls it (see the module's docstring)."""

    @property
    def tick_every_cpu(self) -> bool:
        """Whether a world stopped into the ready queue arms every busy CPU's quantum check."""

    @property
    def preempts_when_released(self) -> bool:
        """Whether a world released by its group's new period may preempt a running one."""

    @property
    def tick_on_grid(self) -> bool:
        """Whether the quantum check runs at the ticks of a clock every CPU shares."""

    @property
    def run_queue_hooks(self) -> bool:
        """Whether the machine calls ``on_block`` and ``on_unthrottle``."""

    def entitle(self, machine: "Machine") -> None:
        """Reservations: set the worlds' entitlements, when a group with a reservation joins and
        at every period boundary after (``Group.demand`` is then the last period's). A policy
        with nothing to reserve raises ``ValueError`` naming what has no equivalent."""

    def on_wake(self, machine: "Machine", world: World) -> None:
        """``world`` has just become ready (given a job), before it is placed."""

    def charge(self, machine: "Machine", world: World, occupancy: float) -> None:
        """``world`` occupied a CPU for ``occupancy`` seconds up to now (a stop, a period
        boundary); ``world.run_start`` has already moved to now."""

    def pick(self, machine: "Machine", ready: List[World], lcpu: int) -> Optional[World]:
        """The world of ``ready`` to run on ``lcpu``, or None for none of them: it must skip a
        throttled world and one whose ``affinity`` leaves ``lcpu`` out."""

    def preempt_victim(self, machine: "Machine", world: World) -> Optional[int]:
        """The busy logical CPU the ready ``world`` takes by preemption, found with no CPU idle
        for it, or None: it waits in the ready queue."""

    def slice_end(self, machine: "Machine", world: World) -> float:
        """The earliest time a quantum check may take the CPU from the running ``world``:
        ``world.slice_start + machine.quantum`` for a policy whose quantum runs from the slice's
        start (``world.slice_start`` is when it started or was last checked)."""

    def preempts_at_quantum(self, machine: "Machine", best: World, current: World) -> bool:
        """At a quantum check with worlds waiting: whether ``best`` (``pick``'s choice for the
        CPU) takes it from ``current``, running there."""

    def on_block(self, machine: "Machine", world: World) -> None:
        """``world`` left the run queue: it went idle, or its group was throttled (then it may
        be running or ready). Called only with ``run_queue_hooks``."""

    def on_unthrottle(self, machine: "Machine", world: World) -> None:
        """``world``, ready, was released by its group's new period and is about to be
        placed. Called only with ``run_queue_hooks``."""


PolicyFactory = Callable[..., CpuPolicy]
"""A policy class, or a function choosing among classes (``linux_fair``): called with the
scheduler model's parameters, it returns the policy."""



@runtime_checkable
class SharesOutHost(Protocol):
    """A policy that shares the host's logical CPUs out by shares (an optional capability)."""

    def host_shares(self, machine: "Machine", groups: Sequence[Group]) -> Dict[str, float]:
        """CPUs each of ``groups`` (by name) is entitled to by its shares when every group of
        the machine asks for all the CPU it may use, at most its limit and world count."""


def host_shares(policy: CpuPolicy, machine: "Machine",
                groups: Sequence[Group]) -> Optional[Dict[str, float]]:
    """``policy``'s ``SharesOutHost.host_shares`` for ``groups``; None, the default, for a policy
    without that arithmetic, whose shares name no share of the host."""
    if isinstance(policy, SharesOutHost):
        return policy.host_shares(machine, groups)
    return None


@runtime_checkable
class TakesLimits(Protocol):
    """A policy that enforces groups' limits itself (an optional capability): Xen's credit
    scheduler caps a domain through its credits and parks its vCPUs, with no quota per period.
    The machine calls ``take_limit`` for each group with a limit below its world count (one
    of every world's CPU is none) when the group joins, then treats the group as unlimited; the
    policy holds worlds off with ``Machine.park``."""

    def take_limit(self, machine: "Machine", group: Group) -> None:
        """``group`` joins with ``group.limit`` (CPUs) below its world count: the policy's to
        enforce."""

