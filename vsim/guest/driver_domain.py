"""Xen's driver domain (Dom0): the vCPUs every guest's network message waits for.

Under Xen a guest's packets reach the wire and come back from it through Dom0,
on a Dom0 vCPU scheduled by the same credit scheduler as the guests
(../shared/reference/ALGORITHMS.md, Xen credit scheduler). A paravirtualised
guest's packets go through netback, whose Linux 2.6.18 driver of Xen 3.x does
all its work in one pair of tasklets for every guest (``NETBACK``), so all
paravirtual packets are handled one at a time whatever Dom0's vCPUs; a
paravirtual disk's requests go through its own blkback thread
(``blkback_lane``); a fully virtualised (HVM) guest's emulated NIC is one
device-model process in Dom0 (qemu-dm), so that guest's packets are handled one
at a time too, beside the others. ``DriverDomain`` keeps the messages in the order forwarded:
``forward(work, deliver, message, lane)`` queues a message costing ``work``
core-seconds and calls ``deliver(message)`` once a Dom0 vCPU has run it. A
message with a ``lane`` (netback, a blkback thread, a guest's device model) waits
while another of the same lane runs; one without may run beside any. A free vCPU takes the earliest
message it may run, so a message is delayed by Dom0's scheduling, by its work
and by its lane. Every message forwarded is delivered exactly once, in the order
forwarded when Dom0 has one vCPU, and in each lane's order always.

Compiled (``vsim/native.py``): every guest message under Xen passes through it twice.
"""

from collections import deque
from itertools import count
from typing import Any, Callable, Deque, Dict, Hashable, List, Optional, Set, Tuple

from vsim.cpu.world import IDLE, World

Item = Tuple[int, float, Callable[[Any], None], Any, Optional[Hashable]]
"""(order forwarded, work, deliver, message, lane)."""

NETBACK = "netback"
"""The lane of every paravirtual guest's packets: netback's one tasklet pair (Linux 2.6.18,
drivers/xen/netback: net_tx_tasklet and net_rx_tasklet, one for all vifs, until netback
took a thread per Dom0 vCPU in later kernels)."""


def blkback_lane(vm_name: str) -> tuple:
    """The lane of a paravirtual disk's requests: the blkback thread of ``vm_name``'s device."""
    return ("blkback", vm_name)


class DriverDomain:
    """Dom0's VM ``vm`` (its vCPU worlds) on ``machine`` working through the guests' messages
    in turn, each lane's one at a time."""

    def __init__(self, machine: Any, vm: Any) -> None:
        self.machine = machine
        self.vm = vm
        self.worlds: List[World] = list(vm.worlds)
        self.lanes: Dict[Optional[Hashable], Deque[Item]] = {}
        self.running_lanes: Set[Hashable] = set()
        self.busy: Dict[str, Item] = {}
        self._order = count()
        self.forwarded = 0
        self.delivered = 0

    def waiting(self) -> int:
        """Messages forwarded that no Dom0 vCPU has taken yet."""
        return sum(len(queue) for queue in self.lanes.values())

    def supports_closed_form(self) -> bool:
        """Its queue waits on the CPUs: only the event engine plays it."""
        return False

    def forward(self, work: float, deliver: Callable[[Any], None], message: Any,
                lane: Optional[Hashable] = None) -> None:
        """Queue ``message`` (``work`` core-seconds of Dom0's time), one at a time with the
        other messages of ``lane`` (None: beside any); ``deliver`` it when done."""
        self.forwarded += 1
        self.lanes.setdefault(lane, deque()).append((next(self._order), work, deliver, message, lane))
        for world in self.worlds:
            if world.state == IDLE and world.name not in self.busy:
                item = self._take()
                if item is None:
                    return
                self.busy[world.name] = item
                self.machine.submit(world, item[1], self._done)

    def _take(self) -> Optional[Item]:
        """The earliest queued message whose lane is free, taken off its queue (None if none)."""
        best: Optional[Deque[Item]] = None
        for lane, queue in self.lanes.items():
            if queue and (lane is None or lane not in self.running_lanes):
                if best is None or queue[0][0] < best[0][0]:
                    best = queue
        if best is None:
            return None
        item = best.popleft()
        if item[4] is not None:
            self.running_lanes.add(item[4])
        return item

    def _done(self, world: World) -> Optional[float]:
        _order, _work, deliver, message, lane = self.busy.pop(world.name)
        self.running_lanes.discard(lane)
        self.delivered += 1
        following = self._take()  # taken before delivering, as a forward from deliver must not
        if following is not None:
            self.busy[world.name] = following
        deliver(message)
        return None if following is None else following[1]
