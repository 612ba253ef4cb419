"""A TCP bulk receiver in a guest, fed by a sender on another machine: nttcp's receiving side.

The xen-appliances study's network competitor (cfg 5, Table 2) receives one TCP
stream from another machine over 100 Mb Ethernet. Modelled as the stream's
closed loop: the sender keeps at most the receive window in flight and
sends a delayed ACK's worth of full segments (``segments_per_ack``) at a time,
back to back on the wire (a frame of ``mtu_bytes + frame_overhead_bytes``
at ``wire_bps``); after ``path_delay`` the segments reach the host. With a
driver domain (``vsim.guest.driver_domain``, Xen's Dom0) netback first does
``dom0_segment`` of work per segment on a Dom0 vCPU, one at a time with every
other paravirtual packet (``vsim.guest.driver_domain.NETBACK``); then the receiving vCPU spends ``guest_segment`` per
segment (its stack and the copy to nttcp), the payload counts as received,
and the ACK goes back, through Dom0 (``dom0_ack``) when there is one, reaching
the sender ``path_delay`` later and opening the window again.

So the stream runs at the slowest stage's rate: the wire's goodput
(``TcpReceiverModel.line_goodput_bps``) natively, Dom0's when netback's work
per segment exceeds a frame's time on the wire, and less when Dom0 also
carries another guest's packets or waits for a core. What is left out: loss
and congestion control (the window never shrinks; nothing on this path drops,
as the window bounds every queue), and the sender's own host.
"""

from typing import Any, Callable

from vsim.guest.driver_domain import NETBACK


class TcpReceiver:
    """The receiving vCPU of VM ``name`` (group ``group``, CPU group ``vm``) and the sender
    feeding it, on ``machine``; ``model`` is its ``TcpReceiverModel``'s values."""

    def __init__(self, name: str, group: str, vm, machine, call_later, now: Callable[[], float],
                 model, dom0=None) -> None:
        self.name = name
        self.group = group
        self.vm = vm
        self.world = vm.worlds[0]
        self.machine = machine
        self.call_later = call_later
        self.now = now
        self.dom0 = dom0
        self.mss = model.mss
        self.burst = model.segments_per_ack
        self.frame_time = 8.0 * (model.mtu_bytes + model.frame_overhead_bytes) / model.wire_bps
        self.window = max(1, model.window_bytes // (self.mss * self.burst)) * self.burst
        self.path_delay = model.path_delay
        self.line_goodput_bps = model.line_goodput_bps()
        self.guest_work = self.burst * model.guest_segment
        self.dom0_in = self.burst * model.dom0_segment
        self.dom0_ack = model.dom0_ack
        self.in_flight = 0  # segments sent and not yet acknowledged
        self.wire_free = 0.0  # when the wire from the sender has sent what it was given
        self.waiting = 0  # ACK-sized bursts in the guest's socket, not yet processed
        self.busy = False
        self.received_bytes = 0  # payload the application has read
        self.segments_in = 0  # segments that reached the host (Dom0 or the guest)

    def supports_closed_form(self) -> bool:
        """Its segments wait on the CPUs: only the event engine plays it."""
        return False

    def start(self) -> None:
        """The sender opens the stream at time 0 with a full window."""
        self._send()

    def _send(self) -> None:
        """Send bursts while the window has room, each behind the last on the wire."""
        now = self.now()
        while self.in_flight + self.burst <= self.window:
            self.in_flight += self.burst
            self.wire_free = max(now, self.wire_free) + self.burst * self.frame_time
            self.call_later(self.wire_free - now + self.path_delay, self._arrive, None)

    def _arrive(self, _arg: Any) -> None:
        self.segments_in += self.burst
        if self.dom0 is None:
            self._to_guest(None)
        else:  # netback copies them into the guest first
            self.dom0.forward(self.dom0_in, self._to_guest, None, NETBACK)

    def _to_guest(self, _message: Any) -> None:
        self.waiting += 1
        if not self.busy:
            self.busy = True
            self.waiting -= 1
            self.machine.submit(self.world, self.guest_work, self._read)

    def _read(self, _world) -> float | None:
        """A burst read by the application: count it, acknowledge it, take the next."""
        self.received_bytes += self.burst * self.mss
        if self.dom0 is None:
            self._ack_sent(None)
        else:
            self.dom0.forward(self.dom0_ack, self._ack_sent, None, NETBACK)
        if self.waiting:
            self.waiting -= 1
            return self.guest_work
        self.busy = False
        return None

    def _ack_sent(self, _message: Any) -> None:
        self.call_later(self.path_delay, self._acked, None)

    def _acked(self, _arg: Any) -> None:
        self.in_flight -= self.burst
        self._send()
