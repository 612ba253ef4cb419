"""A disk benchmark in a guest (IOzone's side): requests through the driver domain to a disk.

The xen-appliances study's disk competitor (cfg 6) runs IOzone in the Debian
VM. Modelled as a closed loop of ``outstanding`` requests of
``request_bytes`` each: a request costs the guest's vCPU ``guest_request``
(the benchmark's record and the block layer), then, with a driver domain
(``vsim.guest.driver_domain``, Xen's Dom0), ``dom0_request`` of a Dom0 vCPU
(blkback, the backend's mapping of the guest's pages and its disk driver),
one at a time in the device's blkback thread (``blkback_lane``); then the disk serves it, one at a
time in arrival order: a sequential request takes its transfer at
``disk_rate`` bytes/s, a random one (a share ``random_fraction`` of them,
drawn from the VM's own random stream) first an average seek and a
rotational delay drawn uniformly over one revolution. The completion goes
back to the guest, which issues the next request.

So the benchmark runs at the disk's pace, slowed by Dom0's work on each
request's path (and by the waits for Dom0's vCPU), and Dom0 spends
``dom0_request`` per request beside the guests it carries. Not modelled: the
guest's page cache (every request reaches the disk), merging and reordering
of queued requests, the disk's own cache.
"""

from collections import deque
from typing import Any, Callable, Deque

from vsim.guest.driver_domain import blkback_lane


class DiskBenchmark:
    """The benchmark's vCPU in VM ``name`` (group ``group``, CPU group ``vm``) and its disk on
    ``machine``; ``model`` is its ``DiskBenchmarkModel``'s values, ``rng`` its random stream."""

    def __init__(self, name: str, group: str, vm, machine, call_later, now: Callable[[], float],
                 model, rng, dom0=None) -> None:
        self.name = name
        self.group = group
        self.vm = vm
        self.world = vm.worlds[0]
        self.machine = machine
        self.call_later = call_later
        self.now = now
        self.model = model
        self.rng = rng
        self.dom0 = dom0
        self.transfer = model.request_bytes / model.disk_rate
        self.revolution = 60.0 / model.rpm
        self.to_issue = 0  # requests waiting for the guest's vCPU
        self.busy = False
        self.disk_queue: Deque[None] = deque()
        self.disk_busy = False
        self.done_bytes = 0  # completed back to the guest
        self.requests = 0  # that reached the disk
        self.disk_time = 0.0  # the disk's busy time, summed over its requests

    def supports_closed_form(self) -> bool:
        """Its requests wait on the CPUs: only the event engine plays it."""
        return False

    def start(self) -> None:
        """The benchmark issues its first ``outstanding`` requests at time 0."""
        for _ in range(self.model.outstanding):
            self._issue()

    def _issue(self) -> None:
        self.to_issue += 1
        if not self.busy:
            self.busy = True
            self.to_issue -= 1
            self.machine.submit(self.world, self.model.guest_request, self._issued)

    def _issued(self, _world) -> float | None:
        """The guest handed a request to its block device: to Dom0 (or the disk natively)."""
        if self.dom0 is None:
            self._to_disk(None)
        else:
            self.dom0.forward(self.model.dom0_request, self._to_disk, None, blkback_lane(self.name))
        if self.to_issue:
            self.to_issue -= 1
            return self.model.guest_request
        self.busy = False
        return None

    def _to_disk(self, _message: Any) -> None:
        self.disk_queue.append(None)
        if not self.disk_busy:
            self._serve()

    def _serve(self) -> None:
        self.disk_queue.popleft()
        self.disk_busy = True
        self.requests += 1
        service = self.transfer
        if float(self.rng.random()) < self.model.random_fraction:
            service += self.model.seek_time + self.revolution * float(self.rng.random())
        self.disk_time += service
        self.call_later(service, self._served, None)

    def _served(self, _arg: Any) -> None:
        self.disk_busy = False
        self.done_bytes += self.model.request_bytes
        self._issue()
        if self.disk_queue:
            self._serve()
