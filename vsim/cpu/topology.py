"""Host CPU topology: sockets, physical cores and hyper-threads.

Logical CPUs are numbered socket-major, core next, thread last, so the
siblings of one core are adjacent (0-1, 2-3, ...). A thread whose sibling is
busy runs at ``ht_rate`` of a whole core; a pair of busy siblings therefore
delivers ``2 * ht_rate`` cores of throughput. ``socket_contention`` slows every
busy core of a socket for each other busy core there (their shared last-level
cache and memory controller): a thread runs at ``1 / (1 + socket_contention * k)``
of its speed while ``k`` other cores of its socket are busy (0: no such slowdown).
"""

from dataclasses import dataclass
from typing import Tuple


@dataclass(frozen=True)
class Topology:
    """Shape of a host's processors and the hyper-threading slowdown."""

    sockets: int
    cores_per_socket: int
    threads_per_core: int
    ht_rate: float
    socket_contention: float = 0.0

    @property
    def cores(self) -> int:
        """Physical cores of all sockets."""
        return self.sockets * self.cores_per_socket

    @property
    def logical_cpus(self) -> int:
        """Hardware threads of all cores."""
        return self.cores * self.threads_per_core

    def core_of(self, lcpu: int) -> int:
        """Index of the physical core that runs logical CPU ``lcpu``."""
        return lcpu // self.threads_per_core

    def socket_of(self, lcpu: int) -> int:
        """Index of the socket that holds logical CPU ``lcpu``."""
        return self.core_of(lcpu) // self.cores_per_socket

    def siblings(self, lcpu: int) -> Tuple[int, ...]:
        """The other logical CPUs on the same core."""
        first = self.core_of(lcpu) * self.threads_per_core
        return tuple(i for i in range(first, first + self.threads_per_core) if i != lcpu)

    def rate(self, busy_siblings: int) -> float:
        """Speed of a thread, relative to a whole core, given how many siblings are busy."""
        return 1.0 if busy_siblings == 0 else self.ht_rate
