"""Study recipe for esx35-net: the CPU cost of ESX 3.5's virtual network stack.

Every value comes from one cost model (``vsim.net.stack``): each layer of a
path (the guest's TCP/IP stack, the vmxnet device, the virtual switch, the
physical NIC's driver) costs CPU per packet and per byte on transmit and
receive (``models/netstacks/``, in cycles at the host's clock). A TCP
stream's rate is the least of the wire, the window over the round trip and
what each CPU on its path (the sending and receiving vCPUs, the hypervisor's
transmit and receive worlds, the client's CPU) can process, ACKs included;
native runs the same path with the hypervisor's layers taken out; two VMs on
one virtual switch exchange frames through the hypervisor's copy, with no
wire. A one-byte request/response transaction's rate is the inverse of its
round trip through the same layers, plus a halted vCPU's wake-up and the
physical NICs' interrupt throttling.

The recipe evaluates the model directly from its scenario configs (no
simulation runs: the costs are per packet and per byte, their result a
closed form): a config gives the host (its clock), the NIC (its rate, its
latency and, by name, its drivers: ``netstacks/<nic>`` in the vmkernel and
``netstacks/<nic>_native`` on a native machine), the VMs' virtual NIC (its
TSO segments and, through ``DEVICES``, its device model) and the
traffic (MTU; request and response sizes). The study's matrix of guests is
``GUESTS``; the client machine is ``CLIENT``.
"""

import hashlib
from dataclasses import dataclass, field

import numpy as np

from vsim.build.netstack import (DEVICES, TSO_MAX_BYTES, VSWITCH, check_mtu, check_tso, host_clock,
                                 load_layer_model, native_endpoint, vm_endpoint)
from vsim.config.claims import Simulated
from vsim.config.load import group_role
from vsim.core.errors import InputError
from vsim.net.stack.paths import Framing, stream_works, wire_goodput
from vsim.net.stack.request_response import request_response
from vsim.net.stack.throughput import tcp_throughput
from vsim.results.plotting import Curve, Marks, plot_sweep

NAME = "esx35-net"
CONFIGS = {
    "vm2native": "configs/esx35-net/vm2native.toml",
    "vm2vm": "configs/esx35-net/vm2vm.toml",
    "rr": "configs/esx35-net/rr.toml",
    "tso_off": "configs/whatif/esx35_tso_off.toml",
    "jumbo_10gbe": "configs/whatif/esx35_jumbo_10gbe.toml",
}
GROUP = "netperf"
GUESTS = {"linux64": "netstacks/linux64", "linux32": "netstacks/linux32",
          "win64": "netstacks/win64", "win32": "netstacks/win32"}
"""The study's guest operating systems (Table 1), each run in a VM and natively."""
LABELS = {"linux64": "Linux 64", "linux32": "Linux 32", "win64": "Win 64", "win32": "Win 32"}
CLIENT = {"host": "hosts/dell_pe1800_xeon", "guest": "netstacks/linux32"}
"""The client machine (Table 1: SUSE Linux 10, kernel 2.6.16, on two 2.8 GHz Xeons): a native
Linux stack, the 32-bit RHEL4 profile's costs, at its own clock."""
CLIENT_TSO_FRAMES = 45
"""The client's segments when it sends (native Linux with TSO on its e1000): 64 KB."""

BY_CONSTRUCTION: dict[str, str] = {}
"""No claim's value is fixed by the configs: the send throughput's wire bound is the model's
prediction that no CPU on the path binds first."""


@dataclass(frozen=True)
class ModelSweep:
    """A config evaluated by the cost model: values by name, the claims its models were fitted
    to, and the model files (ref and SHA-256 start) it used."""

    name: str
    config: str
    values: dict
    fitted: frozenset
    models: tuple = ()
    notes: dict = field(default_factory=dict)

    def stamp(self):
        return f"{self.name}: evaluated by the stack cost model (vsim.net.stack), no runs"

    def to_json(self):
        return {"config": self.config, "evaluated": self.values, "models": dict(self.models)}


class _Models:
    """The netstacks models one config's evaluation loads, remembered for provenance."""

    def __init__(self, source):
        self.source, self.loaded = source, {}

    def get(self, ref, layer, key):
        if ref not in self.loaded:
            self.loaded[ref] = load_layer_model(ref, layer, self.source, key)
        return self.loaded[ref]

    def fitted(self):
        return {claim for model in self.loaded.values() for claim in model.fitted_claims()}

    def files(self):
        return tuple((ref, f"{model.ref} sha256:{hashlib.sha256(model.path.read_bytes()).hexdigest()[:12]}")
                     for ref, model in sorted(self.loaded.items()))


def _stem(ref):
    return ref.removesuffix(".toml").split("/")[-1]


def setup(relative, loaded):
    """The ends of the study's paths for one config: per guest a VM, the same OS natively on the
    ESX host, and the client, with the framing and link the config gives."""
    source = str(relative)
    models = _Models(source)
    host_ref, nic_ref = loaded.scenario.host.model, loaded.scenario.host.nic
    clock = host_clock(host_ref, source, "host.model")
    group = next(g for g in loaded.scenario.group if g.name == GROUP)
    vnic_key = f"group.{GROUP}.vnic"
    params = group.traffic.params if group.traffic else {}
    mtu = int(params.get("mtu", 1500))
    if group.vnic not in DEVICES:
        raise InputError(source, vnic_key, f"expected a virtual NIC the esx35-net recipe has a device "
                                           f"model for ({', '.join(DEVICES)}), got {group.vnic!r}")
    device = models.get(DEVICES[group.vnic], "device", vnic_key)
    vmk_nic = models.get(f"netstacks/{_stem(nic_ref)}", "nic_driver", "host.nic")
    native_nic = models.get(f"netstacks/{_stem(nic_ref)}_native", "nic_driver", "host.nic")
    mtu_key = f"group.{GROUP}.traffic.params.mtu"
    for model in (device, vmk_nic, native_nic):
        check_mtu(model, mtu, source, mtu_key)
    tso_frames = loaded.models[group_role(GROUP, "vnic")].values.tso_frames
    check_tso(device, tso_frames, source, vnic_key)
    tso_frames = max(1, min(tso_frames, TSO_MAX_BYTES // Framing(mtu).payload))
    vswitch = models.get(VSWITCH, "vswitch", "esx35-net recipe")
    client_clock = host_clock(CLIENT["host"], source, "esx35-net recipe: CLIENT")
    client = native_endpoint("client", "client", models.get(CLIENT["guest"], "guest", "esx35-net recipe: CLIENT"),
                             native_nic, client_clock)
    ends = {}
    for guest, ref in GUESTS.items():
        stack = models.get(ref, "guest", "esx35-net recipe: GUESTS")
        ends[guest] = {
            "vm": vm_endpoint("VM vCPU", "esx", stack, device, vswitch, vmk_nic, clock),
            "peer": vm_endpoint("peer VM vCPU", "esx", stack, device, vswitch, vmk_nic, clock),
            "native": native_endpoint("native CPU", "native", stack, native_nic, clock),
        }
    nic = loaded.models["nic"].values
    link = {"rate_bps": nic.rate_bps, "link_latency": nic.latency}
    return models, ends, client, Framing(mtu, tso_frames), link, params


def _stream(sender, receiver, framing, link, local, rtt):
    works = stream_works(sender, receiver, framing, local)
    wire = float("inf") if local else wire_goodput(framing, link["rate_bps"])
    return tcp_throughput(works, wire=wire, window=receiver.guest.window_bytes / rtt)


def _rr(a, b, link, local, params=None):
    params = params or {}
    return request_response(a, b, int(params.get("request_bytes", 1)), int(params.get("response_bytes", 1)),
                            local=local, **({} if local else link))


def evaluate_paths(ends, client, framing, link, params):
    """(values, limits) of every path between ``ends`` (per guest: the VM, its peer VM and the
    OS run natively) and ``client``: per guest, TCP send and receive Mb/s VM-native and native,
    VM-VM Mb/s, and request/response transactions/s and round trips VM-native, VM-VM and
    native; each stream's limiting bound."""
    offloaded = max(1, min(CLIENT_TSO_FRAMES, TSO_MAX_BYTES // framing.payload))
    client_framing = Framing(framing.mtu, offloaded if client.segments_offloaded() else 1)
    native_framing = Framing(framing.mtu, offloaded if ends["linux64"]["native"].segments_offloaded() else 1)
    values, notes = {}, {}
    for guest, end in ends.items():
        vm, peer, native = end["vm"], end["peer"], end["native"]
        rr = {"vm2native": _rr(vm, client, link, False, params), "vm2vm": _rr(vm, peer, link, True, params),
              "native": _rr(native, client, link, False, params)}
        streams = {
            "vm2native.send": _stream(vm, client, framing, link, False, rr["vm2native"].rtt),
            "vm2native.recv": _stream(client, vm, client_framing, link, False, rr["vm2native"].rtt),
            "native.send": _stream(native, client, native_framing, link, False, rr["native"].rtt),
            "native.recv": _stream(client, native, client_framing, link, False, rr["native"].rtt),
            "vm2vm": _stream(vm, peer, framing, link, True, rr["vm2vm"].rtt),
        }
        for key, result in streams.items():
            values[f"{guest}.{key}.mbps"] = result.mbps
            notes[f"{guest}.{key}"] = result.limit
        for key, result in rr.items():
            values[f"{guest}.rr.{key}.tps"] = result.rate
            values[f"{guest}.rr.{key}.rtt_us"] = result.rtt * 1e6
    return values, notes


def evaluate_config(name, relative, loaded):
    """The ``ModelSweep`` of one config: ``evaluate_paths`` on the ends its models make."""
    models, ends, client, framing, link, params = setup(relative, loaded)
    values, notes = evaluate_paths(ends, client, framing, link, params)
    return ModelSweep(name, str(relative), values, frozenset(models.fitted() | loaded.fitted_claims()),
                      models.files(), notes)


def evaluate(configs):
    """The hook of ``vsim.experiments.reproduce``: {sweep name: ModelSweep} from {sweep name:
    (config path, loaded scenario)}."""
    return {name: evaluate_config(name, relative, loaded) for name, (relative, loaded) in configs.items()}


def _sim(sweep, key, note=""):
    limit = sweep.notes.get(key.rsplit(".", 1)[0])
    text = "; ".join(t for t in (note, f"limited by {limit}" if limit else "") if t)
    return Simulated(sweep.values[key], None, sweep.name, text)


def latency_reduction(rr):
    """Per guest, 1 - VM-VM round trip / VM-native round trip."""
    return {g: 1 - rr.values[f"{g}.rr.vm2vm.rtt_us"] / rr.values[f"{g}.rr.vm2native.rtt_us"] for g in GUESTS}


def claim_values(sweeps):
    """Simulated value of every esx35 claim, keyed by claim id."""
    native, vv, rr = sweeps["vm2native"], sweeps["vm2vm"], sweeps["rr"]
    linux = min(("linux64", "linux32"), key=lambda g: vv.values[f"{g}.vm2vm.mbps"])
    reduction = latency_reduction(rr)
    per_guest = ", ".join(f"{g} {r:.3f}" for g, r in reduction.items())
    windows = max(("win64", "win32"), key=lambda g: rr.values[f"{g}.rr.vm2vm.tps"])
    linux_rr = max(("linux64", "linux32"), key=lambda g: rr.values[f"{g}.rr.vm2vm.tps"])
    return {
        "esx35.vm2native.linux64.send_mbps": _sim(native, "linux64.vm2native.send.mbps"),
        "esx35.vm2native.linux64.recv_mbps": _sim(native, "linux64.vm2native.recv.mbps"),
        "esx35.vm2vm.linux.mbps": _sim(vv, f"{linux}.vm2vm.mbps", f"the lower of 32- and 64-bit ({linux})"),
        "esx35.vm2vm.win64.mbps": _sim(vv, "win64.vm2vm.mbps"),
        "esx35.vm2vm.win32.mbps": _sim(vv, "win32.vm2vm.mbps"),
        "esx35.rr.vm2vm.linux.tps": _sim(rr, f"{linux_rr}.rr.vm2vm.tps", f"the higher of 32- and 64-bit "
                                                                          f"({linux_rr})"),
        "esx35.rr.vm2vm.windows.tps": _sim(rr, f"{windows}.rr.vm2vm.tps", f"the higher of 32- and 64-bit "
                                                                            f"({windows})"),
        "esx35.rr.vm2vm_latency_reduction": Simulated(float(np.mean(list(reduction.values()))), None, "rr",
                                                      f"mean over the four guests ({per_guest})"),
    }


def _one(value):
    return (value, (value, value))


def _paper(claims):
    return {c.id: c for c in claims}


def _vm2native_figure(stem, sweep, claims):
    """Figs 4-7: TCP send and receive throughput per guest, VM and native."""
    guests = list(GUESTS)
    xs = list(range(1, 2 * len(guests) + 1))
    ticks = [(1 + 2 * i + j, f"{LABELS[g]} {d}") for i, g in enumerate(guests) for j, d in
             enumerate(("tx", "rx"))]
    curves = [Curve(label, xs, [_one(sweep.values[f"{g}.{kind}.{d}.mbps"]) for g in guests for d in ("send", "recv")])
              for label, kind in (("ESX 3.5 VM", "vm2native"), ("native", "native"))]
    paper = _paper(claims)
    marks = []
    pairs = [(1, "esx35.vm2native.linux64.send_mbps"), (2, "esx35.vm2native.linux64.recv_mbps")]
    found = [(x, paper[c]) for x, c in pairs if c in paper]
    if found:
        marks.append(Marks("64-bit Linux, Fig 5", [x for x, _ in found], [c.paper for _, c in found],
                           [tuple(c.band) for _, c in found]))
    return plot_sweep(stem, title="Figs 4-7: VM-to-native TCP throughput per guest, ESX 3.5 vs native",
                      xlabel="guest, VM sending (tx) or receiving (rx)", ylabel="throughput (Mb/s)", curves=curves, marks=marks,
                      xticks=ticks, caption="Cost model (vsim.net.stack), no runs: the least of the wire, the "
                                            "window and each CPU on the path. " + sweep.stamp())


def _vm2vm_figure(stem, sweep, claims):
    """Figs 8-9: TCP throughput between two VMs on one virtual switch, per guest."""
    guests = list(GUESTS)
    xs = list(range(1, len(guests) + 1))
    curves = [Curve("VM to VM, one vSwitch", xs, [_one(sweep.values[f"{g}.vm2vm.mbps"]) for g in guests])]
    paper = _paper(claims)
    spots = [(1, "esx35.vm2vm.linux.mbps"), (2, "esx35.vm2vm.linux.mbps"), (3, "esx35.vm2vm.win64.mbps"),
             (4, "esx35.vm2vm.win32.mbps")]
    found = [(x, paper[c]) for x, c in spots if c in paper]
    marks = [Marks("Figs 8-9", [x for x, _ in found], [c.paper for _, c in found],
                   [tuple(c.band) for _, c in found])] if found else []
    return plot_sweep(stem, title="Figs 8-9: VM-to-VM TCP throughput on one vSwitch",
                      xlabel="guest", ylabel="throughput (Mb/s)", curves=curves, marks=marks,
                      xticks=[(x, LABELS[g]) for x, g in zip(xs, guests)],
                      caption="No wire: the two vCPUs and the hypervisor's copy bound it. " + sweep.stamp())


def _rr_figure(stem, sweep, claims):
    """Figs 10-11: one-byte request/response transactions per second, per guest and path."""
    guests = list(GUESTS)
    xs = list(range(1, len(guests) + 1))
    curves = [Curve(label, xs, [_one(sweep.values[f"{g}.rr.{kind}.tps"]) for g in guests])
              for label, kind in (("VM to native", "vm2native"), ("VM to VM", "vm2vm"), ("native", "native"))]
    paper = _paper(claims)
    spots = [(1, "esx35.rr.vm2vm.linux.tps"), (2, "esx35.rr.vm2vm.linux.tps"), (3, "esx35.rr.vm2vm.windows.tps"),
             (4, "esx35.rr.vm2vm.windows.tps")]
    found = [(x, paper[c]) for x, c in spots if c in paper]
    marks = [Marks("VM to VM", [x for x, _ in found], [c.paper for _, c in found],
                   [tuple(c.band) for _, c in found])] if found else []
    reduction = latency_reduction(sweep)
    claim = paper.get("esx35.rr.vm2vm_latency_reduction")
    band = "" if claim is None else f" (paper: {claim.band[0]:.0%}-{claim.band[1]:.0%})"
    return plot_sweep(stem, title="Figs 10-11: TCP_RR transactions/s, one byte, one in flight",
                      xlabel="guest", ylabel="transactions/s", curves=curves, marks=marks,
                      xticks=[(x, LABELS[g]) for x, g in zip(xs, guests)],
                      caption="Rate = 1 / round trip. VM-VM latency lower by "
                              + ", ".join(f"{r:.0%}" for r in reduction.values()) + band + ". "
                              + sweep.stamp())


def _whatif_figure(stem, sweeps):
    """What-ifs: VM send, receive and VM-VM throughput of the study's setup, with TSO off and
    with jumbo frames on 10 GbE."""
    guests = list(GUESTS)
    xs = list(range(1, 3 * len(guests) + 1))
    keys = [(g, k) for g in guests for k in ("vm2native.send", "vm2native.recv", "vm2vm")]
    short = {"vm2native.send": "tx", "vm2native.recv": "rx", "vm2vm": "VM-VM"}
    ticks = [(x, f"{LABELS[g]} {short[k]}") for x, (g, k) in zip(xs, keys)]
    curves = [Curve(label, xs, [_one(sweeps[name].values[f"{g}.{k}.mbps"]) for g, k in keys])
              for label, name in (("study setup", "vm2native"), ("TSO off in the guest", "tso_off"),
                                  ("jumbo frames on 10 GbE", "jumbo_10gbe"))]
    return plot_sweep(stem, title="What-ifs: TSO off, jumbo frames on 10 GbE",
                      xlabel="guest and path", ylabel="throughput (Mb/s)", curves=curves, marks=[],
                      xticks=ticks, caption="Cost model (vsim.net.stack): configs/whatif/esx35_*.toml.")


def draw_figures(outdir, sweeps, claims):
    """Figs 4-7, 8-9, 10-11 and the what-ifs in ``outdir``; returns the paths written."""
    return (_vm2native_figure(outdir / "fig4_7_vm2native", sweeps["vm2native"], claims)
            + _vm2vm_figure(outdir / "fig8_9_vm2vm", sweeps["vm2vm"], claims)
            + _rr_figure(outdir / "fig10_11_rr", sweeps["rr"], claims)
            + _whatif_figure(outdir / "whatif", sweeps))
