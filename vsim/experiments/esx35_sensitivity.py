"""How esx35-net's predictions depend on its assumed costs: each assumption halved and doubled,
the five fitted parameters fitted again to their claims, the three predicted claims recomputed.

    python -m vsim.experiments.esx35_sensitivity          # a Markdown table on stdout

A prediction that moves little while an assumption it rests on doubles is carried by the
mechanism; one that moves a lot is only as good as that assumption. Everything is computed in
memory from the study's vm2native config and models (nothing is written).
"""

import dataclasses
import sys

from vsim.build.load import load_scenario
from vsim.experiments import esx35_net
from vsim.experiments.reproduce import REPO

FITS = (  # (claim, target, [(layer name, field), ...], lower, upper): in the recipe's order
    ("esx35.vm2native.linux64.recv_mbps", 900.0, [("intel_82545_1gbe", "rx_per_packet")], 0.0, 1e-4),
    ("esx35.vm2vm.win64.mbps", 1350.0, [("win64", "rx_per_packet"), ("win64", "tx_per_packet")], 0.0, 1e-4),
    ("esx35.vm2vm.win32.mbps", 1600.0, [("win32", "rx_per_packet"), ("win32", "tx_per_packet")], 0.0, 1e-4),
    ("esx35.rr.vm2vm.linux.tps", 13000.0, [("vmxnet_esx35", "wake_latency")], 0.0, 1e-3),
    ("esx35.rr.vm2vm.windows.tps", 10000.0, [("win64", "wakeup"), ("win32", "wakeup")], 0.0, 1e-4),
)
PREDICTED = ("esx35.vm2native.linux64.send_mbps", "esx35.vm2vm.linux.mbps", "esx35.rr.vm2vm_latency_reduction")
ASSUMPTIONS = (  # (what, [(layer name, field), ...])
    ("guest send per packet (Linux)", [("linux64", "tx_per_packet"), ("linux32", "tx_per_packet")]),
    ("guest copy per byte (Linux send, Windows both ways)",
     [(g, f) for g in esx35_net.GUESTS for f in ("tx_per_byte", "rx_per_byte") if g.startswith("win") or f == "tx_per_byte"]),
    ("guest receive per packet and byte (Linux, measured)",
     [(g, f) for g in ("linux64", "linux32") for f in ("rx_per_packet", "rx_per_byte")]),
    ("guest application wake-up (Linux)", [("linux64", "wakeup"), ("linux32", "wakeup")]),
    ("vmxnet per packet", [("vmxnet_esx35", "tx_per_packet"), ("vmxnet_esx35", "rx_per_packet")]),
    ("vmxnet interrupt", [("vmxnet_esx35", "interrupt")]),
    ("vSwitch per packet", [("vswitch_esx35", "tx_per_packet"), ("vswitch_esx35", "rx_per_packet")]),
    ("vSwitch copy per byte", [("vswitch_esx35", "copy_per_byte")]),
    ("NIC driver transmit", [("intel_82545_1gbe", "tx_per_packet"), ("intel_82545_1gbe_native", "tx_per_packet")]),
    ("NIC interrupt", [("intel_82545_1gbe", "interrupt"), ("intel_82545_1gbe_native", "interrupt")]),
    ("NIC interrupt throttle (interrupts/s)", [("intel_82545_1gbe", "interrupt_hz"),
                                              ("intel_82545_1gbe_native", "interrupt_hz")]),
    ("native driver receive", [("intel_82545_1gbe_native", "rx_per_packet")]),
)
FACTORS = (0.5, 2.0)


def _map_layers(ends, client, change):
    """``ends`` and ``client`` with ``change(layer)`` applied to every layer."""
    def endpoint(end):
        return dataclasses.replace(end, **{name: change(getattr(end, name)) for name in
                                           ("guest", "nic", "device", "vswitch") if getattr(end, name) is not None})
    return ({g: {k: endpoint(e) for k, e in per.items()} for g, per in ends.items()}, endpoint(client))


def _set(ends, client, targets, value=None, factor=None):
    def change(layer):
        fields = [f for name, f in targets if name == layer.name]
        if not fields:
            return layer
        return dataclasses.replace(layer, **{f: value if factor is None else getattr(layer, f) * factor
                                             for f in fields})
    return _map_layers(ends, client, change)


def claims(ends, client, framing, link, params):
    values, notes = esx35_net.evaluate_paths(ends, client, framing, link, params)
    sweep = esx35_net.ModelSweep("all", "", values, frozenset(), (), notes)
    return {cid: sim.value for cid, sim in
            esx35_net.claim_values({"vm2native": sweep, "vm2vm": sweep, "rr": sweep}).items()}


def refit(ends, client, framing, link, params, iterations=60):
    """The ends with every fitted parameter bisected to its claim's target again."""
    for claim, target, targets, low, high in FITS:
        for _ in range(iterations):
            middle = (low + high) / 2
            trial = _set(ends, client, targets, middle)
            if claims(*trial, framing, link, params)[claim] > target:
                low = middle
            else:
                high = middle
        ends, client = _set(ends, client, targets, (low + high) / 2)
    return ends, client


def table():
    relative = esx35_net.CONFIGS["vm2native"]
    _, ends, client, framing, link, params = esx35_net.setup(relative, load_scenario(REPO / relative))
    base = claims(*refit(ends, client, framing, link, params), framing, link, params)
    heads = ["send Mb/s", "Linux VM-VM Mb/s", "latency reduction"]
    lines = ["| assumption | x | " + " | ".join(heads) + " |", "| --- | --- | " + " | ".join("---" for _ in heads) + " |",
             "| as in models/ | 1 | " + " | ".join(_cell(c, base[c]) for c in PREDICTED) + " |"]
    for what, targets in ASSUMPTIONS:
        for factor in FACTORS:
            perturbed = _set(ends, client, targets, factor=factor)
            got = claims(*refit(*perturbed, framing, link, params), framing, link, params)
            lines.append(f"| {what} | {factor:g} | " + " | ".join(_cell(c, got[c]) for c in PREDICTED) + " |")
    return "\n".join(lines)


def _cell(claim, value):
    return f"{value:.3f}" if claim.endswith("reduction") else f"{value:,.0f}"


if __name__ == "__main__":
    sys.stdout.write(table() + "\n")
