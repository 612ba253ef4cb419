"""CPU-bound tasks outside the VMs: the host's other work (``host.background_tasks``).

A host is rarely running its VMs alone: other processes compete for its
logical CPUs. Each task here is an always-runnable thread in a group of its
own at the default weight (a nice-0 process: cgroup weight 100 under Linux's
fair class, 1000 shares under proportional share), so the VMs' weights and
limits decide what they keep against it. A task's job never finishes within
a run; it is given ``WORK_S`` core-seconds, far beyond any run length.
"""

from vsim.cpu.policies.fair_queue import CGROUP_WEIGHT_DEFAULT
from vsim.cpu.world import HOST, Group, World

WORK_S = 1e9
DEFAULT_SHARES = 1000.0


class BackgroundTasks:
    """``count`` always-runnable tasks on ``machine``, each its own group named ``background<i>``."""

    def __init__(self, machine, count, linux):
        self.machine = machine
        shares = CGROUP_WEIGHT_DEFAULT if linux else DEFAULT_SHARES
        self.worlds = []
        for index in range(count):
            group = Group(f"background{index}", shares=shares, cosched=False, role=HOST)
            self.worlds.append(World(f"background{index}", group))
            machine.add_group(group)

    def start(self):
        """Make every task runnable (it stays so for the run)."""
        for world in self.worlds:
            self.machine.submit(world, WORK_S, _never_more)


def _never_more(_world):
    return None
