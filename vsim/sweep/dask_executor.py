"""Replications on a Dask distributed cluster: ``--executor dask [--scheduler tcp://HOST:8786]``.

A task is one replication (``Task``, plain values), submitted under a key of its index so a
resubmission cannot run twice side by side; a worker lost mid-task has its task retried
(``retries``) by the scheduler, and only this process, which gathers the results, writes them
(the store included), so a retried task is never kept twice. Without an address a
``LocalCluster`` of this machine is started and ended with the command, its workers told
to keep their event loops quiet (``QUIET_WORKERS``).
"""

from dataclasses import dataclass
from typing import Callable, Iterator, Sequence


QUIET_WORKERS = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.admin.system-monitor.gil.enabled": False,
}
"""Dask settings for the workers of a ``LocalCluster`` vsim starts. A replication is pure
Python holding the GIL for its whole length; a worker's statistical profiler (every 10 ms),
event-loop tick (20 ms), memory monitor (100 ms) and system monitor (500 ms) each take the GIL
from it, and together they made each replication some 9 % slower than in a plain process
(benchmarks/bench_executors.py). None of them is needed to run replications; docs/distributed.md
gives the same settings for the workers of a cluster of one's own."""


class SchedulerUnreachable(Exception):
    """The scheduler at the address given did not answer: raised before any task is sent."""


def check_reachable(address: str, timeout: float) -> None:
    """Raise ``SchedulerUnreachable`` unless a Dask scheduler answers at ``address`` within ``timeout`` s."""
    from distributed import Client

    try:
        Client(address, timeout=timeout).close()
    except (OSError, TimeoutError, ValueError) as error:
        raise SchedulerUnreachable(f"no Dask scheduler answered at {address}: {error}") from None


@dataclass(frozen=True)
class DaskDistributed:
    """Tasks sent to the Dask scheduler at ``scheduler`` (else a ``LocalCluster`` of ``workers``
    workers, ``processes`` saying whether they are processes or threads of this one)."""

    scheduler: str | None = None
    workers: int = 2
    processes: bool = True
    retries: int = 3
    connect_timeout: float = 10.0

    def outcomes(self, runner: Callable, tasks: Sequence) -> Iterator[tuple[int, tuple]]:
        import dask
        from distributed import Client, LocalCluster, as_completed

        cluster = None
        if self.scheduler is None:
            with dask.config.set(QUIET_WORKERS):
                cluster = LocalCluster(n_workers=self.workers, threads_per_worker=1,
                                       processes=self.processes, dashboard_address=None)
            address = cluster.scheduler_address
        else:
            address = self.scheduler
        try:
            client = Client(address, timeout=self.connect_timeout)
        except (OSError, TimeoutError, ValueError) as error:
            if cluster is not None:
                cluster.close()
            raise SchedulerUnreachable(f"no Dask scheduler answered at {address}: {error}") from None
        try:
            futures = {client.submit(runner, task, key=f"vsim-task-{index}", pure=False,
                                     retries=self.retries): index
                       for index, task in enumerate(tasks)}
            for future in as_completed(futures):
                yield futures[future], future.result()
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
