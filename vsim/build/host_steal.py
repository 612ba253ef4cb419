"""Measured steal time replayed on a host's logical CPUs (``host.steal_trace``).

A host that is itself a virtual machine loses its CPUs to the hypervisor
underneath now and then. A steal trace (``vsim.traces.steal_trace``, taken
by ``vsim probe steal``) says how much, per CPU and sample interval. Here
each logical CPU ``i`` replays trace CPU ``i mod N`` (N the trace's CPUs, at
most the host's logical CPUs), from the start of the run, looping the trace
when the run is longer:

- in each interval the CPU is taken for the stolen time, in one block at
  the start of the interval, by an *outer* world pinned to it that the host's
  scheduler cannot refuse or preempt (``vsim.cpu.policies.outer_first``);
  what ran there waits or moves to another CPU as the host's policy decides;
- an interval charged more than its own length (the kernel counts steal in
  whole ticks, so one interval can carry a tick stolen just before it) is
  taken whole and the rest is carried into the next interval's block, so the
  time taken over a run is the trace's stolen time, to within one interval;
- blocks that touch (a whole interval taken, then the next one's block) are
  one block, up to the trace's span (a CPU taken whole is taken block after
  block).

The outer world keeps its logical CPU busy: it counts in PCPU UTIL like any
other work, and a hyper-thread sibling runs at the hyper-threading rate beside
it, as it would beside whatever the outer hypervisor ran there. Should the
machine's co-scheduling hand the CPU to someone else in the very instant a
block begins (the only way a block can wait), the block starts at the next
pick or tick on that CPU and still takes its full length.

Only logical CPUs whose trace CPU lost any time get an outer world; a trace
without steal adds nothing, so the host runs exactly as without one.
"""

from vsim.core.environment import scheduler_for
from vsim.core.errors import InputError
from vsim.cpu.policies.outer_first import OuterFirst
from vsim.cpu.world import HOST, RUN, Group, World

TOUCHING_S = 1e-9  # a block starting this close to the previous one's end continues it


def steals_anything(trace):
    """Whether ``trace`` (a ``StealTrace`` or None) takes any time from any CPU."""
    return trace is not None and any(trace.total_s(cpu) > 0 for cpu in range(trace.cpus))


def policy_for(policy, trace):
    """The host's ``policy``, wrapped so outer worlds come first when ``trace`` steals anything."""
    return OuterFirst(policy) if steals_anything(trace) else policy


def check_trace_cpus(trace, logical_cpus, source):
    """``InputError`` naming ``host.steal_trace`` when the trace has more CPUs than the host."""
    if trace is not None and trace.cpus > logical_cpus:
        raise InputError(source, "host.steal_trace", f"expected a trace of at most {logical_cpus} CPUs "
                                                     f"(the host's logical CPUs), it has {trace.cpus}")


def blocks(trace, cpu):
    """The (start, end) times, s from the run's start, in which ``cpu`` of ``trace`` is taken, for
    ever (the trace looped), merged where they touch into blocks of at most the trace's span."""
    starts, ends, stolen = trace.starts[cpu].tolist(), trace.ends[cpu].tolist(), trace.stolen[cpu].tolist()
    span = trace.span_s
    carry = 0.0
    pending = None
    loop = 0
    while True:
        offset = loop * span
        for start, end, steal in zip(starts, ends, stolen):
            owed = steal + carry
            taken = min(end - start, owed)
            carry = owed - taken
            if taken <= 0:
                continue
            begin = offset + start
            if (pending is not None and begin - pending[1] <= TOUCHING_S
                    and pending[1] - pending[0] < span - TOUCHING_S):
                pending = (pending[0], begin + taken)
                continue
            if pending is not None:
                yield pending
            pending = (begin, begin + taken)
        loop += 1


class _OuterCpu:
    """The outer world of one logical CPU and the chain of events that replays its blocks."""

    def __init__(self, machine, lcpu, trace, cpu):
        self.machine = machine
        self._call_later = scheduler_for(machine.env)
        group = Group(f"steal.cpu{lcpu}", cosched=False, role=HOST)
        self.world = World(f"steal.cpu{lcpu}", group, affinity=(lcpu,))
        machine.policy.add_outer(self.world)
        machine.add_group(group)
        self._blocks = blocks(trace, cpu)
        self._block = 0  # index of the block running or due

    def start(self):
        self._schedule_next()

    def _schedule_next(self):
        begin, end = next(self._blocks)
        self._block += 1
        now = self.machine.env.now
        self._call_later(max(0.0, begin - now), self._begin, (self._block, end - begin))

    def _begin(self, block):
        index, length = block
        self.machine.submit(self.world, length, self._done)
        self._call_later(length, self._end, index)

    def _end(self, index):
        """The block's time is up: end it even if its work is not done (a busy hyper-thread
        sibling slowed it), by making its completion fall due now."""
        world = self.world
        if index == self._block and world.state == RUN:
            world.work = 0.0
            world.on_due(world.version)

    def _done(self, _world):
        self._schedule_next()
        return None


class HostSteal:
    """The outer worlds replaying ``trace`` (a ``StealTrace`` or None) on ``machine``'s logical CPUs.

    ``machine``'s policy must come from ``policy_for`` with the same trace.
    """

    def __init__(self, machine, trace, source="<scenario>"):
        logical = len(machine.lcpu_world)
        check_trace_cpus(trace, logical, source)
        self.trace = trace
        self.cpus = []
        if steals_anything(trace):
            self.cpus = [_OuterCpu(machine, lcpu, trace, lcpu % trace.cpus) for lcpu in range(logical)
                         if trace.total_s(lcpu % trace.cpus) > 0]

    @property
    def worlds(self):
        return [cpu.world for cpu in self.cpus]

    def supports_closed_form(self) -> bool:
        """The closed form has no CPU ever taken away: only a host without steal fits it."""
        return not self.cpus

    def start(self) -> None:
        """Schedule every CPU's first block."""
        for cpu in self.cpus:
            cpu.start()
