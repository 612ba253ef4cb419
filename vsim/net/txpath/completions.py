"""The transmit-completion interrupts one vNIC raises, as the uplink orders its frames.

A guest sending bulk data hands its vNIC ``burst`` frames at a time (a TSO
segment's worth). How many of them the NIC signals done together depends
on the uplink scheduler (``UplinkScheduler.run_length``: whole bursts by
default, runs cut to NetIOC's quantum when other ports are backlogged) and
on the NIC's completion hold time; the vNIC's interrupt-rate cap bounds the
result (``vsim.net.txpath.coalescing``). The rate is read afresh whenever
asked, so it follows the flows starting and stopping on the uplink, and the
count raised (``raised``) adds up each rate over the time it held: the
uplink has it read before each change of its flows' rates (``watch``).
"""

from vsim.net.txpath.coalescing import Coalescing, completion_batch, interrupt_rate


class CompletionInterrupts:
    """Interrupts/s of flow ``flow`` on ``uplink`` (a ``SharedUplink``), its vNIC handing
    over ``burst`` frames at a time and raising at most ``max_rate`` interrupts/s, the
    NIC holding completions up to ``window`` seconds."""

    def __init__(self, uplink, flow, burst, max_rate, window):
        self.uplink = uplink
        self.flow = flow
        self.burst = burst
        self.coalescing = Coalescing(max_rate=max_rate, window=window)
        self._service = float(uplink.scheduler.work(uplink.flow_ip_bytes(flow)))
        self._raised = 0.0
        self._t = 0.0
        uplink.watch(self)

    def accrue(self, t):
        """Count the interrupts raised from the last count to ``t`` at the rate that held."""
        if t > self._t:
            self._raised += self.rate() * (t - self._t)
            self._t = t

    def raised(self, t):
        """Interrupts raised up to ``t`` (not before a time already counted)."""
        self.accrue(t)
        return self._raised

    def rate(self):
        """Interrupts/s now: the flow's frames/s in completion batches, under the cap."""
        pps = self.uplink.frames_rate(self.flow)
        if pps <= 0:
            return 0.0
        others = self.uplink.backlogged_others(self.flow)
        run = self.uplink.scheduler.run_length(self.burst, others)
        batch = completion_batch(run, others, self._service, self.coalescing.window)
        return float(interrupt_rate(pps, batch, self.coalescing))
