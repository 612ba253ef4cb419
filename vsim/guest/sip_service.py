"""A SIP server VM with the SIPp client that calls it: the two halves of a call played together.

The client (``vsim.net.sources.sipp_uac.UacCalls``) runs off the host, on
machines of its own as the studies' SIPp clients did: its calls start at the
source's rate, its messages cross the network in the source's delay and reach
the server's receive queue (``vsim.guest.sip_server.SipServer``), whose worker
threads take CPU on the host's scheduler like every guest's work, pausing for
the JVM's collections (``vsim.guest.jvm_gc``) when the group has a collector.
With a driver domain (``vsim.guest.driver_domain``, Xen's Dom0) every
message in and out first waits for a Dom0 vCPU to do the server model's
``dom0_message`` work on it, one at a time: in the guest's own device model when
its NIC is emulated (``emulated_nic``: an HVM guest), else in netback's one lane
with every paravirtual guest's packets. On a VM of several vCPUs whose server model sends IPIs
(``ipis_per_message``), the workers' jobs pass by ``vsim.guest.smp_ipi``, which
makes a vCPU spin until its siblings answer. ``start(duration)`` lays the calls out over the run; the summary reads the
client's calls and the server's counters (``vsim.results.sip_summary``). The module is
compiled (``vsim.native``), so a message passes from the client to the server, or through
Dom0, by native calls.
"""

from typing import Any, Hashable, Optional

from vsim.guest.driver_domain import NETBACK, DriverDomain
from vsim.guest.jvm_gc import JvmGc
from vsim.guest.sip_server import SipServer
from vsim.guest.smp_ipi import SmpIpi
from vsim.net.sources.sipp_uac import SipMessage, SippUac, UacCalls


class SipService:
    """The SIP server of VM ``name`` on the vCPU ``worlds`` of its ``vm`` group, called by ``uac``.

    ``server_model`` is its ``SipServerModel``'s values, ``gc_model`` its ``JvmGcModel``'s
    or None; ``rng`` draws the client's call times (Poisson arrivals) and losses.
    """

    def __init__(self, name: str, group: str, vm: Any, machine: Any, call_later: Any, now: Any,
                 uac: SippUac, server_model: Any, gc_model: Any, rng: Any,
                 dom0: Optional[DriverDomain] = None) -> None:
        self.name = name
        self.group = group
        self.vm = vm
        self.uac = uac
        self.rng = rng
        gc: Optional[JvmGc] = None if gc_model is None else JvmGc(
            gc_model.young_bytes, gc_model.allocation(), gc_model.survivor_bytes, gc_model.copy_rate,
            gc_model.minor_work, gc_model.old_bytes, gc_model.mark_rate, gc_model.major_work,
            threads=gc_model.threads, pretenured=gc_model.pretenured)
        self.calls = UacCalls(uac, call_later, now, self._deliver, rng)
        self.dom0_work: float = server_model.dom0_message
        self.dom0 = dom0 if dom0 is not None and self.dom0_work > 0 else None
        self.dom0_lane: Hashable = name if server_model.emulated_nic else NETBACK
        self.ipi: Optional[SmpIpi] = (SmpIpi(machine, call_later, vm.worlds, server_model.ipis_per_message,
                           server_model.ipi_latency, server_model.ipi_handler)
                    if len(vm.worlds) > 1 and server_model.ipis_per_message > 0 else None)
        self.server = SipServer(machine if self.ipi is None else self.ipi, call_later, now, vm.worlds,
                                server_model.costs(),
                                server_model.queue_messages,
                                self.calls.reply if self.dom0 is None else self._send, gc=gc)

    def _deliver(self, message: SipMessage) -> None:
        dom0 = self.dom0
        if dom0 is None:
            self.server.deliver(message)
        else:  # netback copies it into the guest first
            dom0.forward(self.dom0_work, self.server.deliver, message, self.dom0_lane)

    def _send(self, message: SipMessage) -> None:
        """A response leaves the guest through Dom0's netback on its way to the client."""
        dom0 = self.dom0
        assert dom0 is not None  # only a server with a driver domain sends this way
        dom0.forward(self.dom0_work, self.calls.reply, message, self.dom0_lane)

    def supports_closed_form(self) -> bool:
        """Its queue waits on the CPUs: only the event engine plays it."""
        return False

    def start(self, duration: float) -> None:
        """Schedule the client's calls over a run of ``duration`` seconds."""
        self.calls.start(self.uac.call_times(0.0, duration, self.rng))
