"""The work of a TCP stream on every CPU of its path, from the layers' costs.

A path joins a sender and a receiver, each an ``Endpoint``: a virtual machine
(its guest stack and virtual device on its vCPU, the hypervisor's virtual
switch and physical NIC driver on the hypervisor's transmit and receive
worlds) or a native machine (its guest stack and NIC driver on one CPU).
Two VMs on one virtual switch (``local``) exchange frames through the
hypervisor, which copies them from one VM to the other and never reaches a
NIC or the wire. A native path is the same with the hypervisor's layers
taken out, so VM-versus-native comparisons come from one mechanism.

Per byte of data delivered, with ``P`` bytes of data per MTU frame and ``k``
frames per TSO segment: ``1/(kP)`` segments leave the sending stack and
device, ``1/P`` frames cross the NIC (one per segment if it does TSO, else
the hypervisor cuts them in software) and reach the receiver, and the
receiver returns one ACK per ``ack_every`` frames, which every layer on the
way back handles as a packet. The receive side has no large-receive
offload: a receiving VM takes MTU frames, so a VM-to-VM TSO segment is cut
into frames by the virtual switch. Interrupts are taken once per
``frames_per_interrupt`` frames, at most ``interrupt_hz`` a second.
"""

import math
from dataclasses import dataclass

from vsim.net.frames import packet_bytes
from vsim.net.stack.layers import Layer, Work

TCP_IP_HEADERS = 52
"""IPv4 (20) + TCP (20) + timestamps option (12, RFC 7323) in every segment."""

ACK_IP_BYTES = TCP_IP_HEADERS
"""A pure ACK: headers only."""


@dataclass(frozen=True)
class Endpoint:
    """One end of a path: a VM (``device`` and ``vswitch`` given, ``nic`` the hypervisor's
    driver) or a native machine (``nic`` its own driver). ``name`` names its CPU (the vCPU or
    the native CPU), ``host`` the machine, whose hypervisor worlds are '<host> tx', '<host> rx'
    and, between VMs on one virtual switch, '<host> vswitch'."""

    name: str
    host: str
    guest: Layer
    nic: Layer | None = None
    device: Layer | None = None
    vswitch: Layer | None = None

    @property
    def virtual(self):
        return self.device is not None

    def __post_init__(self):
        if (self.device is None) != (self.vswitch is None):
            raise ValueError(f"{self.name}: a VM has both a device and a vswitch, a native machine neither")

    def segments_offloaded(self):
        """Whether this end, sending, may hand segments larger than the MTU down its stack: the
        virtual device's TSO for a VM, the NIC's for a native machine."""
        if self.device is not None:
            return self.device.tso
        return self.nic is not None and self.nic.tso


@dataclass(frozen=True)
class Framing:
    """A stream's segments: the MTU (IP bytes) and the MTU frames per TSO segment (1: no TSO)."""

    mtu: int = 1500
    tso_frames: int = 1

    def __post_init__(self):
        if self.mtu <= TCP_IP_HEADERS or self.tso_frames < 1:
            raise ValueError(f"mtu above {TCP_IP_HEADERS} bytes and tso_frames >= 1, got {self!r}")

    @property
    def payload(self):
        """Data bytes per MTU frame."""
        return self.mtu - TCP_IP_HEADERS


def wire_goodput(framing, rate_bps):
    """Bytes of data/s that fill a link of ``rate_bps`` (framing, preamble and gap included)."""
    from vsim.net.frames import wire_bytes
    return rate_bps / 8 * framing.payload / wire_bytes(framing.mtu)


def stream_works(sender, receiver, framing, local=False):
    """The ``Work`` of every CPU on the path of a bulk TCP stream from ``sender`` to
    ``receiver`` (``local``: two VMs on one virtual switch)."""
    if local and not (sender.virtual and receiver.virtual):
        raise ValueError("only two VMs share a virtual switch")
    k = framing.tso_frames
    if k > 1 and not sender.segments_offloaded():
        raise ValueError(f"{sender.name}: TSO segments of {k} frames, but its stack offloads none")
    payload = framing.payload
    f, s = 1.0 / payload, 1.0 / (k * payload)
    a = 1.0 / (receiver.guest.ack_every * payload)
    frame, ack = packet_bytes(framing.mtu), packet_bytes(ACK_IP_BYTES)
    works = []

    def add(cpu, seconds_per_byte, what, interrupts=0.0, layer=None):
        works.append(Work(cpu, seconds_per_byte, what, interrupts / (layer.frames_per_interrupt if layer else 1),
                          layer.interrupt if layer else 0.0, layer.interrupt_hz if layer else math.inf))

    g, snd = sender.guest, sender.name
    add(snd, s * g.tx_per_packet + g.tx_per_byte, f"{g.name} sends")
    add(snd, a * g.rx_per_packet, f"{g.name} takes ACKs")
    if sender.virtual:
        d = sender.device
        add(snd, s * d.tx_per_packet, f"{d.name} sends")
        add(snd, a * d.rx_per_packet, f"{d.name} takes ACKs", a, d)
    if local:
        vs, world = sender.vswitch, f"{sender.host} vswitch"
        add(world, s * vs.tx_per_packet + (f * vs.segment_per_frame if k > 1 else 0.0)
            + f * frame * vs.copy_per_byte, f"{vs.name} forwards, segments and copies to the peer VM")
        add(world, a * (vs.tx_per_packet + ack * vs.copy_per_byte), f"{vs.name} forwards ACKs")
    else:
        nic = sender.nic
        per_segment = s * nic.tx_per_packet if nic.tso else f * nic.tx_per_packet
        if sender.virtual:
            vs = sender.vswitch
            cut = f * vs.segment_per_frame if (k > 1 and not nic.tso) else 0.0
            add(f"{sender.host} tx", s * vs.tx_per_packet + cut + per_segment,
                f"{vs.name} and {nic.name} send", f, nic)
            add(f"{sender.host} rx", a * (nic.rx_per_packet + vs.rx_per_packet + ack * vs.copy_per_byte),
                f"{nic.name} and {vs.name} take ACKs", a, nic)
        else:
            add(snd, per_segment, f"{nic.name} sends", f, nic)
            add(snd, a * nic.rx_per_packet, f"{nic.name} takes ACKs", a, nic)
        nic, rcv = receiver.nic, receiver.name
        if receiver.virtual:
            vs = receiver.vswitch
            add(f"{receiver.host} rx", f * (nic.rx_per_packet + vs.rx_per_packet + frame * vs.copy_per_byte),
                f"{nic.name} and {vs.name} receive and copy into the VM", f, nic)
            add(f"{receiver.host} tx", a * (vs.tx_per_packet + nic.tx_per_packet),
                f"{vs.name} and {nic.name} send ACKs", a, nic)
        else:
            add(rcv, f * nic.rx_per_packet, f"{nic.name} receives", f, nic)
            add(rcv, a * nic.tx_per_packet, f"{nic.name} sends ACKs", a, nic)
    g, rcv = receiver.guest, receiver.name
    if receiver.virtual:
        d = receiver.device
        add(rcv, f * d.rx_per_packet, f"{d.name} receives", f, d)
        add(rcv, a * d.tx_per_packet, f"{d.name} sends ACKs")
    add(rcv, f * g.rx_per_packet + g.rx_per_byte, f"{g.name} receives")
    add(rcv, a * g.tx_per_packet, f"{g.name} sends ACKs")
    return works
