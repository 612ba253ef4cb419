"""Network stack cost models (``models/netstacks/``) made into the layers of ``vsim.net.stack``,
checked against the path that uses them.

A layer's costs are given in cycles and become seconds at the clock of the
host that runs it (``clock_hz`` of its host model). A path needs certain
costs of each layer (``NEEDS``); a file without one, an MTU the virtual
device or NIC does not support, or TSO asked of a device that has none, is
an ``InputError`` naming the file or scenario and the key.

A scenario's bulk TCP sender with a ``stack`` (``stream_sender_costs``)
takes the same costs into the event engine: its vCPU's and its hypervisor
worlds' core-seconds per wire frame, from the closed form's work per byte.
"""

import math
from dataclasses import dataclass

from vsim.config.load import group_role
from vsim.config.models import DEFAULT_MODELS_DIR, load_model
from vsim.config.schema_models import HostModel, NetStackModel
from vsim.core.errors import InputError
from vsim.net.stack.layers import Layer
from vsim.net.stack.paths import Endpoint, Framing, stream_works

VSWITCH = "netstacks/vswitch_esx35"
"""The virtual switch's costs (the ESX 3.5 vSwitch)."""
DEVICES = {"vnics/vmxnet_esx35": "netstacks/vmxnet_esx35", "vnics/vmxnet_esx35_no_tso": "netstacks/vmxnet_esx35",
           "vnics/e1000_esx35": "netstacks/e1000_esx35"}
"""The device model (its costs) behind each virtual NIC model (its TSO segments)."""
TSO_MAX_BYTES = 65536
"""The largest TSO segment a guest hands down (Linux GSO_MAX_SIZE, 64 KB): fewer, larger frames
per segment with jumbo frames."""

NEEDS = {
    "guest": ("tx_per_packet", "tx_per_byte", "rx_per_packet", "rx_per_byte", "wakeup", "ack_every",
              "window_bytes"),
    "device": ("tx_per_packet", "rx_per_packet", "interrupt", "frames_per_interrupt", "wake_latency",
               "tso", "mtu_min", "mtu_max"),
    "vswitch": ("tx_per_packet", "rx_per_packet", "segment_per_frame", "copy_per_byte"),
    "nic_driver": ("tx_per_packet", "rx_per_packet", "interrupt", "frames_per_interrupt",
                   "interrupt_hz", "tso", "mtu_min", "mtu_max"),
}
"""The costs and settings each layer must give for the paths of ``vsim.net.stack``."""

CYCLES = ("tx_per_packet", "tx_per_byte", "rx_per_packet", "rx_per_byte", "interrupt", "wakeup",
          "segment_per_frame", "copy_per_byte")
"""Parameters given in cycles, turned into seconds at the host's clock."""


def load_layer_model(ref, layer, referrer, key, models_dir=DEFAULT_MODELS_DIR):
    """The netstacks model ``ref`` as a ``layer`` layer, every cost that layer needs given."""
    model = load_model(models_dir, ref, NetStackModel, referrer=referrer, key=key)
    values = model.values
    if values.layer != layer:
        raise InputError(referrer, key, f"expected a {layer} layer (models/netstacks/), got '{ref}', "
                                        f"a {values.layer} layer")
    for name in NEEDS[layer]:
        if getattr(values, name) is None:
            raise InputError(model.path, f"params.{name}",
                             f"missing: a {layer} layer needs it on the paths of vsim.net.stack")
    return model


def host_clock(ref, referrer, key, models_dir=DEFAULT_MODELS_DIR):
    """The clock (Hz) of host model ``ref``, which costs in cycles need."""
    model = load_model(models_dir, ref, HostModel, referrer=referrer, key=key)
    if model.values.clock_hz is None:
        raise InputError(model.path, "params.clock_hz", "missing: stack costs in cycles need the host's clock")
    return model.values.clock_hz


def layer(model, clock_hz):
    """The ``Layer`` of a loaded netstacks model, its cycles in seconds at ``clock_hz``."""
    v = model.values
    given = {name: getattr(v, name) for name in NEEDS[v.layer]}
    kwargs = {name: (value / clock_hz if name in CYCLES else value) for name, value in given.items()
              if name not in ("mtu_min", "mtu_max")}
    if "interrupt_hz" in kwargs and kwargs["interrupt_hz"] is not None:
        kwargs["interrupt_hz"] = float(kwargs["interrupt_hz"])
    return Layer(name=model.ref.split("/")[-1], **kwargs)


def check_mtu(model, mtu, referrer, key):
    """``mtu`` within what the device or NIC ``model`` supports."""
    v = model.values
    if not v.mtu_min <= mtu <= v.mtu_max:
        raise InputError(referrer, key, f"expected an MTU that {model.ref} supports "
                                        f"({v.mtu_min}-{v.mtu_max} bytes), got {mtu}")


def check_tso(model, tso_frames, referrer, key):
    """TSO segments (``tso_frames`` > 1) only through a device or NIC ``model`` that does TSO."""
    if tso_frames > 1 and not model.values.tso:
        raise InputError(referrer, key, f"expected 1 (no TSO): {model.ref} has no TCP segmentation "
                                        f"offload, got TSO segments of {tso_frames} frames")


def vm_endpoint(name, host, guest, device, vswitch, nic, clock_hz):
    """A VM's end of a path from loaded models (its vCPU and the hypervisor at ``clock_hz``)."""
    return Endpoint(name, host, layer(guest, clock_hz), layer(nic, clock_hz), layer(device, clock_hz),
                    layer(vswitch, clock_hz))


def native_endpoint(name, host, guest, nic, clock_hz):
    """A native machine's end of a path from loaded models."""
    return Endpoint(name, host, layer(guest, clock_hz), layer(nic, clock_hz))


@dataclass(frozen=True)
class SenderCosts:
    """Core-seconds per wire frame of a bulk TCP sender: on its vCPU (guest stack and virtual
    device, sending and taking ACKs, the device's interrupts) and on the hypervisor's worlds
    (virtual switch and NIC driver sending, and taking the ACKs), with the frame's data bytes
    and the MTU frames per TSO segment they were computed for."""

    vcpu_per_frame: float
    world_per_frame: float
    payload: int
    tso_frames: int


def stream_sender_costs(loaded, group, tso_frames):
    """The ``SenderCosts`` of a [[group]] VM sending a tcp_stream when the group names a
    ``stack`` (None when it names none): ``stream_works`` of a stream from the VM to a peer with
    the same stack, each CPU's work per byte times the data of a frame. The throttled physical
    NIC's interrupts are left out (not a cost per frame); the peer's costs do not reach the
    sender's CPUs, only its ACK ratio does."""
    if group.stack is None:
        return None
    source, key = loaded.source, f"group.{group.name}.stack"
    if group.vnic not in DEVICES:
        raise InputError(source, f"group.{group.name}.vnic", f"expected a virtual NIC with a device model "
                                                             f"for a stack ({', '.join(DEVICES)}), got {group.vnic!r}")
    scenario = loaded.scenario
    guest = load_layer_model(loaded.models[group_role(group.name, "stack")].ref, "guest", source, key)
    device = load_layer_model(DEVICES[group.vnic], "device", source, f"group.{group.name}.vnic")
    nic_ref = f"netstacks/{scenario.host.nic.removesuffix('.toml').split('/')[-1]}"
    nic = load_layer_model(nic_ref, "nic_driver", source, "host.nic")
    vswitch = load_layer_model(VSWITCH, "vswitch", source, key)
    params = group.traffic.params if group.traffic else {}
    mtu = int(params.get("mtu", 1500))
    for model in (device, nic):
        check_mtu(model, mtu, source, f"group.{group.name}.traffic.params.mtu")
    check_tso(device, tso_frames, source, f"group.{group.name}.vnic")
    framing = Framing(mtu, max(1, min(tso_frames, TSO_MAX_BYTES // Framing(mtu).payload)))
    clock = host_clock(scenario.host.model, source, "host.model")
    vm = vm_endpoint("vcpu", "host", guest, device, vswitch, nic, clock)
    peer = native_endpoint("peer", "peer", guest, nic, clock)
    works = stream_works(vm, peer, framing)

    def per_frame(cpus):
        return framing.payload * sum(w.seconds_per_byte + (w.interrupts_per_byte * w.interrupt_cost
                                                           if math.isinf(w.interrupt_hz) else 0.0)
                                     for w in works if w.cpu in cpus)

    return SenderCosts(per_frame({"vcpu"}), per_frame({"host tx", "host rx"}),
                       framing.payload, framing.tso_frames)
