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
  queued there, and when it looks at the machine (running worlds for its
  virtual clock or a preemption victim, groups for entitlements) it gets a
  view in which their CPUs look idle and their groups do not exist, so the
  host's scheduler goes on as it would, short of those CPUs for a while.

Outer worlds are registered with ``add_outer`` before they first wake. With
none active, every call goes straight to the inner policy with the machine
itself, so a host without steal schedules exactly as before.
"""

from typing import List, Optional

from vsim.cpu.world import READY


class _InnerView:
    """The machine as the inner policy should see it: outer worlds' CPUs idle, their groups absent."""

    def __init__(self, machine, outer):
        self._machine = machine
        self.env = machine.env
        self.lcpu_world = [None if world in outer else world for world in machine.lcpu_world]
        self.ready = [world for world in machine.ready if world not in outer]
        outer_groups = {world.group for world in outer}
        self.groups = [group for group in machine.groups if group not in outer_groups]

    def __getattr__(self, name):
        return getattr(self._machine, name)


class OuterFirst:
    """``inner``'s decisions, except that registered outer worlds own their CPU while they run."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.tick_every_cpu = bool(getattr(inner, "tick_every_cpu", False))
        self._inner_on_block = getattr(inner, "on_block", None)
        self._inner_on_unthrottle = getattr(inner, "on_unthrottle", None)
        self.outer: set = set()
        self._outer_list: list = []
        self._active = 0  # outer worlds woken and not yet idle again

    def add_outer(self, world) -> None:
        """Register ``world`` (pinned to one logical CPU) as an outer world."""
        if world.affinity is None or len(world.affinity) != 1:
            raise ValueError(f"expected an outer world pinned to one logical CPU, {world.name} is not")
        self.outer.add(world)
        self._outer_list.append(world)

    def _view(self, machine):
        return _InnerView(machine, self.outer) if self._active else machine

    # ------------------------------------------------------------ the machine's calls
    def entitle(self, machine) -> None:
        self.inner.entitle(_InnerView(machine, self.outer) if self.outer else machine)

    def on_wake(self, machine, world) -> None:
        if world in self.outer:
            self._active += 1
            return
        self.inner.on_wake(self._view(machine), world)

    def on_block(self, machine, world) -> None:
        if world in self.outer:
            self._active -= 1
            return
        if self._inner_on_block is not None:
            self._inner_on_block(self._view(machine), world)

    def on_unthrottle(self, machine, world) -> None:
        if world not in self.outer and self._inner_on_unthrottle is not None:
            self._inner_on_unthrottle(self._view(machine), world)

    def charge(self, machine, world, occupancy: float) -> None:
        if world not in self.outer:
            self.inner.charge(self._view(machine), world, occupancy)

    def pick(self, machine, ready: List, lcpu: int) -> Optional[object]:
        if not self._active:
            return self.inner.pick(machine, ready, lcpu)
        running = machine.lcpu_world[lcpu]
        if running is not None and running in self.outer:
            return None  # nobody takes an outer world's CPU
        for world in self._outer_list:
            if world.state == READY and lcpu in world.affinity:
                return world
        view = _InnerView(machine, self.outer)
        return self.inner.pick(view, view.ready, lcpu)

    def preempt_victim(self, machine, world) -> Optional[int]:
        if world in self.outer:
            (lcpu,) = world.affinity
            running = machine.lcpu_world[lcpu]
            return lcpu if running is not None and running not in self.outer else None
        return self.inner.preempt_victim(self._view(machine), world)

    def preempts_at_quantum(self, machine, best, current) -> bool:
        if current in self.outer:
            return False
        if best in self.outer:
            return True
        return self.inner.preempts_at_quantum(self._view(machine), best, current)
