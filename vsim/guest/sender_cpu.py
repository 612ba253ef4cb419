"""The CPU a VM sending bulk traffic uses: its busy sender threads and its transmit world.

A traffic generator (a UDP flood, netperf) is CPU-bound while it sends: each
of the VM's vCPUs runs a sender thread without sleeping. The hypervisor's
transmit world for the VM's vNIC spends ``tx_cost`` core-seconds per frame
it forwards. Both compete for logical CPUs with every other world, which is
how a flood slows a neighbouring media server even when the uplink isolates
its frames.

Events, not packets: a sender vCPU works in ``CHUNK`` core-second jobs, one
after another while the traffic runs; the transmit world is handed the work
of the frames sent in each ``CHUNK`` of time, when it is idle.
"""

from vsim.core.environment import scheduler_for
from vsim.cpu.world import IDLE

CHUNK = 0.01
"""Seconds of a sender thread's job and of the transmit world's accounting period."""


class SenderCpu:
    """The vCPUs and transmit world of one traffic VM on ``machine``; ``rate()`` is the
    frames/s the VM sends now."""

    def __init__(self, env, machine, vcpus, tx_world, tx_cost, rate):
        self.env = env
        self.call_later = scheduler_for(env)
        self.machine = machine
        self.vcpus = list(vcpus)
        self.tx_world = tx_world
        self.tx_cost = tx_cost
        self.rate = rate
        self.pending = 0.0
        self._ticking = False

    def wake(self):
        """The VM's rate changed: if it sends, its threads spin and its frames cost."""
        if self.rate() <= 0:
            return
        for world in self.vcpus:
            if world.state == IDLE:
                self.machine.submit(world, CHUNK, self._spin)
        if not self._ticking and self.tx_cost > 0:
            self._ticking = True
            self.call_later(CHUNK, self._tick, None)

    def _spin(self, _world):
        """A sender thread's job ended: another while the traffic runs."""
        return CHUNK if self.rate() > 0 else None

    def _tick(self, _arg):
        """The frames of the last ``CHUNK`` of time go to the transmit world."""
        sending = self.rate()
        self.pending += sending * CHUNK * self.tx_cost
        if self.tx_world.state == IDLE and self.pending > 0:
            work, self.pending = self.pending, 0.0
            self.machine.submit(self.tx_world, work, self._transmitted)
        if sending > 0:
            self.call_later(CHUNK, self._tick, None)
        else:
            self._ticking = False

    def _transmitted(self, _world):
        """The transmit world finished a job: the frames that arrived meanwhile, if any."""
        if self.pending > 0:
            work, self.pending = self.pending, 0.0
            return work
        return None
