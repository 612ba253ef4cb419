"""A multi-vCPU guest's synchronous IPIs: a vCPU that waits, spinning, for its siblings.

A guest kernel on several vCPUs sends inter-processor interrupts that it
waits for: a TLB shootdown or ``smp_call_function`` after a thread of a
multi-threaded process changed its address space (a thread created or ended,
a mapping changed) spins until every other vCPU that may hold the old
mapping has run the handler and acknowledged it. On hardware the other CPUs
answer in microseconds. Without co-scheduling (Xen's credit scheduler) a
sibling vCPU may be descheduled, waiting in a run queue behind other
domains' vCPUs, and the sender spins until the hypervisor runs it again: up
to a time slice, burning the sender's CPU and its domain's credit (the IPI
side of lock-holder preemption, ../shared/reference/ALGORITHMS.md,
over-commit pathologies; Uhlig et al., VM 2004; Song et al., 2013).

``SmpIpi`` stands between a guest workload and the machine for a VM's vCPU
worlds: it offers the machine's ``submit``, and after every
``1 / ipis_per_job`` jobs a vCPU completes (a running count, no randomness)
the vCPU sends one IPI to each sibling before the job's completion is handed
on (more than one IPI a job: one round after another). A sibling that is running acknowledges after ``latency`` (the IPI's
trips through the hypervisor); one that waits in a run queue acknowledges
``latency`` after it next starts; an idle (halted) one is woken with a
handler of ``handler`` core-seconds and acknowledges when that is done. The
sender spins, on its CPU as any job, until the last acknowledgement, then
its job completes (``Machine.cut_short`` ends the spin). Spinning siblings
acknowledge each other like running ones, so two vCPUs sending at once never
deadlock.

Compiled (``vsim/native.py``): every job of a multi-vCPU SIP server passes through it.
"""

from typing import Any, Callable, Dict, List, Optional

from vsim.cpu.world import IDLE, RUN, JobDone, World

SPIN_S = 1e9
"""The job a spinning vCPU is given: it spins until its last acknowledgement cuts it short."""

OnDone = Callable[[World], Optional[float]]


class _Spin:
    """One vCPU's IPI round: the acknowledgements it still waits for."""

    __slots__ = ("waiting", "cut")

    def __init__(self, waiting: int) -> None:
        self.waiting = waiting
        self.cut = False


class SmpIpi:
    """The IPIs of the VM whose vCPUs are ``worlds`` on ``machine`` (see the module's docstring).

    ``call_later(delay, callback, arg)`` schedules the acknowledgements.
    """

    def __init__(self, machine: Any, call_later: Callable[[float, Any, Any], None], worlds: Any,
                 ipis_per_job: float, latency: float, handler: float) -> None:
        if not ipis_per_job > 0:
            raise ValueError(f"expected ipis_per_job > 0, got {ipis_per_job}")
        self.machine = machine
        self.call_later = call_later
        self.worlds: List[World] = list(worlds)
        self.ipis_per_job = ipis_per_job
        self.latency = latency
        self.handler = handler
        self.on_done: Dict[str, OnDone] = {}
        self._job_done = _IpiJobDone(self)
        self.spins: Dict[str, _Spin] = {}
        self._spin_from: Dict[str, float] = {}  # each spinning vCPU's progress when it began
        self.owed = 0.0  # IPIs the jobs completed so far call for, not yet sent
        self.sent = 0
        self.acknowledged = 0
        self.spun = 0.0  # core-seconds of spinning, summed over the vCPUs

    def submit(self, world: World, work: float, on_done: OnDone) -> None:
        """The machine's ``submit``, the job's completion first passing by the IPIs."""
        self.on_done[world.name] = on_done
        self.machine.submit(world, work, self._job_done)

    def _done(self, world: World) -> Optional[float]:
        if world.name in self.spins:  # its spin was cut short: every sibling acknowledged
            del self.spins[world.name]
            self.spun += world.progress - self._spin_from.pop(world.name)
        else:
            self.owed += self.ipis_per_job
        if self.owed < 1.0 - 1e-9:
            on_done = self.on_done[world.name]
            return on_done.done(world) if isinstance(on_done, JobDone) else on_done(world)
        self.owed -= 1.0
        siblings = [w for w in self.worlds if w is not world]
        spin = self.spins[world.name] = _Spin(len(siblings))
        self._spin_from[world.name] = world.progress
        for sibling in siblings:
            self.sent += 1
            self._deliver(sibling, world)
        return SPIN_S

    def _deliver(self, sibling: World, sender: World) -> None:
        """The IPI reaches ``sibling``: acknowledged now, when it next runs, or after its handler."""
        if sibling.state == RUN:
            self.call_later(self.latency, self._ack, sender)
        elif sibling.state == IDLE:
            self.machine.submit(sibling, self.handler, lambda _w: self._handled(sender))
        else:  # in a run queue: the handler runs when the hypervisor next runs it
            previous = sibling.on_start

            def started(world: World) -> None:
                world.on_start = previous
                if previous is not None:
                    previous(world)
                self.call_later(self.latency, self._ack, sender)
            sibling.on_start = started

    def _handled(self, sender: World) -> None:
        self._ack(sender)

    def _ack(self, sender: World) -> None:
        self.acknowledged += 1
        spin = self.spins[sender.name]
        spin.waiting -= 1
        if spin.waiting == 0 and not spin.cut:
            spin.cut = True
            self.machine.cut_short(sender)


class _IpiJobDone(JobDone):
    """A job's completion passing by the IPIs (``SmpIpi._done``), called natively by the machine."""

    def __init__(self, ipi: SmpIpi) -> None:
        self.ipi = ipi

    def done(self, world: World) -> Optional[float]:
        return self.ipi._done(world)
