"""Worlds of an outer hypervisor ahead of everything a host's own scheduler runs.

When the host is itself a virtual machine, the hypervisor underneath takes
its logical CPUs away now and then (steal time). ``OuterFirst`` wraps the
host's policy so that an *outer* world, one pinned to a single logical CPU
and standing for that stolen time, runs there at once and is never preempted:

- when an outer world wakes, whatever runs on its CPU is preempted;
- a tick never takes the CPU from an outer world, and an outer world found
  waiting (only if the machine's co-scheduling filled its CPU in the same
  instant) wins the CPU at the next pick or tick there;
- the inner policy never sees outer worlds: they are not woken, charged or
  queued there, and while it decides, the machine's lists it reads (running
  worlds per CPU, ready worlds, groups) have them taken out, their CPUs
  showing idle, and put back right after, so the host's scheduler goes on as
  it would, short of those CPUs for a while. (The policies only read those
  lists; the compiled ones also insist on the machine itself, so a copy
  will not do.)

Outer worlds are registered with ``add_outer`` before they first wake. With
none active, every call goes straight to the inner policy, so a host without
steal schedules exactly as before.
"""

from typing import TYPE_CHECKING, Any, Callable, List, Optional, Set, Tuple, TypeVar

from vsim.cpu.policies.calls import PolicyCalls
from vsim.cpu.policies.protocol import CpuPolicy
from vsim.cpu.world import READY, Group, World

if TYPE_CHECKING:
    from vsim.cpu.machine import Machine

Result = TypeVar("Result")


class OuterFirst(PolicyCalls):
    """``inner``'s decisions, except that registered outer worlds own their CPU while they run."""

    run_queue_hooks = True  # it counts the outer worlds running through ``on_block``

    def __init__(self, inner: CpuPolicy) -> None:
        self.inner = inner
        self.tick_every_cpu = inner.tick_every_cpu
        self.preempts_when_released = inner.preempts_when_released
        self.tick_on_grid = inner.tick_on_grid
        self._inner_hooks = inner.run_queue_hooks
        self.outer: Set[World] = set()
        self._outer_list: List[World] = []
        self._active = 0  # outer worlds woken and not yet idle again

    def add_outer(self, world: World) -> None:
        """Register ``world`` (pinned to one logical CPU) as an outer world."""
        if world.affinity is None or len(world.affinity) != 1:
            raise ValueError(f"expected an outer world pinned to one logical CPU, {world.name} is not")
        self.outer.add(world)
        self._outer_list.append(world)

    def _hidden(self, machine: "Machine", call: Callable[..., Result], *args: Any,
                groups: bool = False) -> Result:
        """``call(machine, *args)`` with the outer worlds (and with ``groups``, their groups) out of
        the machine's lists for its duration."""
        if not self._active and not groups:
            return call(machine, *args)
        outer = self.outer
        running = machine.lcpu_world
        taken = [(lcpu, world) for lcpu, world in enumerate(running) if world is not None and world in outer]
        for lcpu, _ in taken:
            running[lcpu] = None
        ready = machine.ready
        waiting = [(index, world) for index, world in enumerate(ready) if world in outer]
        for index, _ in reversed(waiting):
            del ready[index]
        kept = machine.groups
        outer_groups = {world.group for world in outer}
        absent: List[Tuple[int, Group]] = (
            [(index, group) for index, group in enumerate(kept) if group in outer_groups] if groups else [])
        for index, _ in reversed(absent):
            del kept[index]
        try:
            return call(machine, *args)
        finally:
            for index, group in absent:
                kept.insert(index, group)
            for index, world in waiting:
                ready.insert(index, world)
            for lcpu, world in taken:
                running[lcpu] = world

    # ------------------------------------------------------------ the machine's calls
    def entitle(self, machine: "Machine") -> None:
        self._hidden(machine, self.inner.entitle, groups=True)

    def on_wake(self, machine: "Machine", world: World) -> None:
        if world in self.outer:
            self._active += 1
            return
        self._hidden(machine, self.inner.on_wake, world)

    def on_block(self, machine: "Machine", world: World) -> None:
        if world in self.outer:
            self._active -= 1
            return
        if self._inner_hooks:
            self._hidden(machine, self.inner.on_block, world)

    def on_unthrottle(self, machine: "Machine", world: World) -> None:
        if world not in self.outer and self._inner_hooks:
            self._hidden(machine, self.inner.on_unthrottle, world)

    def charge(self, machine: "Machine", world: World, occupancy: float) -> None:
        if world not in self.outer:
            self._hidden(machine, self.inner.charge, world, occupancy)

    def pick(self, machine: "Machine", ready: List[World], lcpu: int) -> Optional[World]:
        if not self._active:
            return self.inner.pick(machine, ready, lcpu)
        running = machine.lcpu_world[lcpu]
        if running is not None and running in self.outer:
            return None  # nobody takes an outer world's CPU
        for world in self._outer_list:
            if world.state == READY and world.affinity is not None and lcpu in world.affinity:
                return world
        others = [world for world in ready if world not in self.outer]
        return self._hidden(machine, self.inner.pick, others, lcpu)

    def preempt_victim(self, machine: "Machine", world: World) -> Optional[int]:
        if world in self.outer:
            assert world.affinity is not None  # an outer world is pinned (``add_outer``)
            (lcpu,) = world.affinity
            running = machine.lcpu_world[lcpu]
            return lcpu if running is not None and running not in self.outer else None
        return self._hidden(machine, self.inner.preempt_victim, world)

    def slice_end(self, machine: "Machine", world: World) -> float:
        if world in self.outer:  # nobody takes its CPU: a check finds nothing sooner than a quantum
            return world.slice_start + machine.quantum
        return self._hidden(machine, self.inner.slice_end, world)

    def preempts_at_quantum(self, machine: "Machine", best: World, current: World) -> bool:
        if current in self.outer:
            return False
        if best in self.outer:
            return True
        return self._hidden(machine, self.inner.preempts_at_quantum, best, current)
