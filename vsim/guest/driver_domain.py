"""Xen's driver domain (Dom0): the vCPUs every guest's network message waits for.

Under Xen a guest's packets reach the wire and come back from it through Dom0's
netback, which grant-copies and bridges each one on a Dom0 vCPU scheduled by the
same credit scheduler as the guests (../shared/reference/ALGORITHMS.md, Xen credit
scheduler). ``DriverDomain`` keeps one FIFO of such messages for its VM's vCPUs:
``forward(work, deliver, message)`` queues a message costing ``work`` core-seconds
and calls ``deliver(message)`` once a Dom0 vCPU has run it, so a message is
delayed by Dom0's scheduling as well as by its work. Every message forwarded is
delivered exactly once, in the order forwarded when Dom0 has one vCPU.
"""

from collections import deque
from typing import Any, Callable, Deque, Dict, Tuple

from vsim.cpu.world import IDLE

Item = Tuple[float, Callable[[Any], None], Any]


class DriverDomain:
    """Dom0's VM ``vm`` (its vCPU worlds) on ``machine`` working through the guests' messages
    in turn."""

    def __init__(self, machine, vm):
        self.machine = machine
        self.vm = vm
        self.worlds = list(vm.worlds)
        self.queue: Deque[Item] = deque()
        self.busy: Dict[str, Item] = {}
        self.forwarded = 0
        self.delivered = 0

    def supports_closed_form(self) -> bool:
        """Its queue waits on the CPUs: only the event engine plays it."""
        return False

    def forward(self, work: float, deliver: Callable[[Any], None], message: Any) -> None:
        """Queue ``message`` (``work`` core-seconds of Dom0's time); ``deliver`` it when done."""
        self.forwarded += 1
        self.queue.append((work, deliver, message))
        for world in self.worlds:
            if not self.queue:
                return
            if world.state == IDLE and world.name not in self.busy:
                item = self.queue.popleft()
                self.busy[world.name] = item
                self.machine.submit(world, item[0], self._done)

    def _done(self, world):
        _work, deliver, message = self.busy.pop(world.name)
        self.delivered += 1
        following = self.queue.popleft() if self.queue else None
        if following is not None:  # taken before delivering, as a forward from deliver must not
            self.busy[world.name] = following
        deliver(message)
        return None if following is None else following[0]
