"""A CPU-bound VM: a noisy neighbour whose vCPUs want a set share of their time.

Capacity planners ask what a batch job, a build server or a runaway process
beside latency-sensitive VMs does to them, and whether a limit, shares or a
reservation protects the voice. Such a VM is modelled by its demand alone:
each vCPU wants ``demand`` of its time (1: always runnable). Below 1 a vCPU
alternates bursts of ``burst`` core-seconds of work with idle gaps drawn
from an exponential distribution whose mean makes the demand exact on a CPU
of its own (``burst * (1 - demand) / demand``); a burst that waits for a CPU,
or runs beside a busy hyper-thread sibling, lasts longer, and the gap after
it does not shrink to make up for it, as a job that waits for its own work
does not. The vCPUs start at independent random points of that cycle, from
the VM's own random stream.
"""

ALWAYS_RUNNABLE_WORK_S = 1e9
"""The job an always-runnable vCPU is handed (and handed again, should it ever finish)."""


class CpuBoundVm:
    """The vCPU worlds of one CPU-bound VM, kept busy at ``demand`` of their time."""

    def __init__(self, machine, call_later, worlds, demand, burst, rng):
        self.name = worlds[0].group.name
        self.machine = machine
        self.call_later = call_later
        self.worlds = worlds
        self.demand = demand
        self.burst = burst
        self.rng = rng

    def start(self) -> None:
        """Make every vCPU runnable now (demand 1) or at a random point of its cycle."""
        for world in self.worlds:
            if self.demand >= 1.0:
                self.machine.submit(world, ALWAYS_RUNNABLE_WORK_S, _again)
            else:
                self.call_later(self._gap() * float(self.rng.random()), self._wake, world)

    def supports_closed_form(self) -> bool:
        """The closed-form engine plays media servers' ticks only."""
        return False

    def _gap(self):
        return float(self.rng.exponential(self.burst * (1.0 - self.demand) / self.demand))

    def _wake(self, world):
        self.machine.submit(world, self.burst, self._rest)

    def _rest(self, world):
        """A burst is done: sleep a gap, then the next burst."""
        self.call_later(self._gap(), self._wake, world)
        return None


def _again(_world):
    return ALWAYS_RUNNABLE_WORK_S
