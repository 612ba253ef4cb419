"""Choose and build a scenario host's uplink.

Scenarios whose only traffic is the media servers' frames on a FIFO uplink
(every voip-vsphere5 Fig 2-4 scenario) keep the frames-only
``UniformFifo``, which resolves a burst in O(1) and which the closed-form
engine can drive. Any other host (``host.uplink`` multiqueue or netioc, or
a [[group]] with bulk traffic or a web application) gets the uplink scheduler of that name
(``vsim.net.uplink``) behind a ``SharedUplink``, one port per VM, its
transmit stage costing ``tx_stage_per_packet`` of the NIC model per frame;
NetIOC's dispatch waits for the NIC's transmit completions as long as the
NIC model holds them (``NicModel.completion_hold``). A NIC model whose rate
is a tc token bucket's (``shaper = "tbf"``, a veth with tbf over a pfifo)
makes the pfifo count bytes and places as the kernel does under tbf
(``vsim.net.uplink.tc_fifo``); it has no other uplink. A NIC model with
``queue_bytes`` limits the queue in bytes (a pfifo becomes tc's bfifo).
"""

from vsim.core.errors import InputError
from vsim.net.shared_uplink import SharedUplink
from vsim.net.txpath.cost import PathCost
from vsim.net.uniform_fifo import UniformFifo
from vsim.net.uplink import make_uplink_scheduler
from vsim.build.htb import htb_tree
from vsim.build.netioc import netioc_tree


def needs_scheduler(scenario, nic):
    """Whether the host needs an uplink scheduler rather than the frames-only FIFO, which
    counts its limit in packets."""
    return (scenario.host.uplink != "fifo" or nic.queue_bytes is not None
            or any(group.uplink_traffic is not None or group.workload == "web_app"
                   for group in scenario.group))


def queue_limit(scenario, nic):
    """(limit, unit, scheduler name) of the uplink's queue: ``queue_bytes`` when the NIC model
    sets it, which makes a pfifo tc's bfifo, else ``queue_packets``."""
    if nic.queue_bytes is None:
        return nic.queue_packets, "packets", scenario.host.uplink
    return nic.queue_bytes, "bytes", "bfifo" if scenario.host.uplink == "pfifo" else scenario.host.uplink


def check_uplink_nic(scenario, nic, source):
    """Refuse an uplink the NIC model cannot carry: a tbf-shaped NIC takes only its pfifo child,
    and htb neither limits its queue in bytes nor models a transmit-stage cost. The scenario's
    checks (``vsim.build.checks``) call it when it loads, and the builder before it builds."""
    if nic.shaper == "tbf" and scenario.host.uplink != "pfifo":
        raise InputError(source, "host.uplink", f'expected "pfifo" (the tbf child the NIC model '
                         f'{scenario.host.nic} describes), got {scenario.host.uplink!r}')
    if scenario.host.uplink == "htb" and nic.queue_bytes is not None:
        raise InputError(source, "params.nic.queue_bytes",
                         "expected none under htb (each leaf's limit_packets sets its queue)")
    if scenario.host.uplink == "htb" and nic.tx_stage_per_packet:
        raise InputError(source, "params.nic.tx_stage_per_packet",
                         f"expected 0 under htb (it models no transmit-stage cost; the NIC model "
                         f"{scenario.host.nic} gives {nic.tx_stage_per_packet!r} s), or a NIC "
                         f"model without one")


def make_host_uplink(scenario, nic, ip_bytes, vm_groups, rng, source):
    """The host's uplink for VMs whose groups are ``vm_groups`` (in port order).

    ``nic`` is the NIC model's values, ``ip_bytes`` the media servers' frame
    size, ``rng`` the uplink's own random stream.
    """
    check_uplink_nic(scenario, nic, source)
    if not needs_scheduler(scenario, nic):
        return UniformFifo(nic.rate_bps, nic.queue_packets, nic.latency, ip_bytes)
    params = {"shaper": nic.shaper} if scenario.host.uplink == "pfifo" else {}
    if scenario.host.uplink == "multiqueue":
        params["queues"] = scenario.host.uplink_queues
    elif scenario.host.uplink in ("netioc", "htb"):
        if scenario.host.uplink == "netioc":
            tree, leaf_of = netioc_tree(scenario, nic.rate_bps, source)
            params["quantum_frames"] = nic.netioc_quantum_frames
            params["completion_hold"] = nic.completion_hold()
        else:
            tree, leaf_of = htb_tree(scenario, source)
        params["tree"] = tree
        params["port_leaf"] = {port: leaf_of[group] for port, group in enumerate(vm_groups)}
    limit, unit, name = queue_limit(scenario, nic)
    try:
        scheduler = make_uplink_scheduler(
            name, nic.rate_bps, limit, unit, rng=rng,
            cost=PathCost(per_packet=nic.tx_stage_per_packet), latency=nic.latency, **params)
    except ValueError as exc:
        raise InputError(source, "host.uplink",
                         f"expected an uplink the NIC model {scenario.host.nic} can carry: {exc}") from None
    return SharedUplink(scheduler)
