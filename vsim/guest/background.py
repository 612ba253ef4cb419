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

It is off unless a scenario sets ``vm.background_burst``: no published
figure gives its size, so it is a what-if, not part of the calibrated model.
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
            self.call_later(self.rng.exponential(self.interval), self._arrive, None)

    def _arrive(self, _arg):
        worker = self.workers[int(self.rng.integers(len(self.workers)))]
        self.bursts += 1
        worker.add_background(self.burst)
        self.call_later(self.rng.exponential(self.interval), self._arrive, None)
