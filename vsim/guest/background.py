"""Guest background activity: the rest of a guest's software, as bursts of CPU work.

A media-server VM runs more than its media workers: the guest kernel's own
threads, logging, management and call-control processes. On average they use
little CPU, but they run in bursts at times unrelated to the 20 ms ticks, and
on a host packed to 90 % such bursts move the ticks of other VMs against each
other (models/CALIBRATION.md).

Modelled per VM as a Poisson process with mean ``interval`` between bursts.
Each burst is ``burst`` core-seconds of work on one of the VM's worker vCPUs,
chosen uniformly, queued first come first served with that vCPU's ticks: a
tick that fires during a burst starts when the burst ends (a non-preemptible
guest kernel, or a task of the media worker's priority), and a burst that
arrives during a tick runs after it.

Its size comes from the workload model (fitted: no published figure gives
it, models/CALIBRATION.md); a scenario may override it with
``vm.background_burst`` and ``vm.background_interval``, 0 turning it off.
``arrivals`` draws the same bursts in advance for the closed-form engine of
an uncontended host (``vsim.engines.closed_form``).
"""


class GuestBackground:
    """Poisson bursts of background work over a VM's worker vCPUs."""

    def __init__(self, call_later, rng, workers, interval, burst):
        self.call_later = call_later
        self.rng = rng
        self.workers = workers
        self.interval = interval
        self.burst = burst
        self.bursts = 0

    def start(self):
        """Schedule the first burst (none when the VM has no worker vCPU)."""
        if self.workers:
            self.call_later(self._gap(), self._arrive, None)

    def _gap(self):
        return self.rng.exponential(self.interval)

    def _pick(self):
        return int(self.rng.integers(len(self.workers)))

    def _arrive(self, _arg):
        worker = self.workers[self._pick()]
        self.bursts += 1
        worker.add_background(self.burst)
        self.call_later(self._gap(), self._arrive, None)

    def arrivals(self, until):
        """Every burst before ``until`` as (time, worker index), drawn as the events would draw them.

        The event path draws a gap, then at each arrival the worker and the
        next gap; this draws the same numbers in the same order and adds the
        gaps with the same floating-point steps, so both paths see the same
        bursts at the same instants.
        """
        found: list[tuple[float, int]] = []
        if not self.workers:
            return found
        now = 0.0 + self._gap()
        while now < until:
            found.append((now, self._pick()))
            now = now + self._gap()
        return found
