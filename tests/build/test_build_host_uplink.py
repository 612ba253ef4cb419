"""Which uplink a host gets: the frames-only FIFO where it suffices, else a scheduler."""

from pathlib import Path

import numpy as np
import pytest

from vsim.core.errors import InputError
from vsim.net.shared_uplink import SharedUplink
from vsim.net.uniform_fifo import UniformFifo
from vsim.net.uplink.fifo import FifoScheduler
from vsim.net.uplink.multiqueue import MultiQueueScheduler
from vsim.net.uplink.netioc import NetiocScheduler
from vsim.net.uplink.tc_fifo import BfifoScheduler, PfifoScheduler
from vsim.build.host_uplink import make_host_uplink, needs_scheduler
from vsim.build.load import load_scenario
from vsim.engines.simulation import Simulation, simulate

ROOT = Path(__file__).resolve().parents[2]
FIG3 = ROOT / "configs" / "voip-vsphere5" / "fig3.toml"
FIG6 = ROOT / "configs" / "voip-vsphere5" / "fig6.toml"
NO_FLOOD = ["group=[]", "netioc.node=[]", "sweep.values=[\"fifo\"]"]


def build(loaded, groups):
    nic = loaded.models["nic"].values
    return make_host_uplink(loaded.scenario, nic, 60, groups, np.random.default_rng(1), loaded.source)


def test_frames_on_a_fifo_keep_the_uniform_fifo():
    loaded = load_scenario(FIG3)
    assert not needs_scheduler(loaded.scenario, loaded.models["nic"].values)
    uplink = build(loaded, ["vm"] * 4)
    assert isinstance(uplink, UniformFifo) and uplink.supports_closed_form()


def test_bulk_traffic_on_a_fifo_gets_the_fifo_scheduler_with_the_transmit_stage():
    loaded = load_scenario(FIG6)
    assert needs_scheduler(loaded.scenario, loaded.models["nic"].values)
    uplink = build(loaded, ["vm", "flood", "flood", "flood", "flood"])
    assert isinstance(uplink, SharedUplink) and isinstance(uplink.scheduler, FifoScheduler)
    assert uplink.scheduler.cost.per_packet == loaded.models["nic"].values.tx_stage_per_packet > 0
    assert not uplink.supports_closed_form()


@pytest.mark.parametrize("queues", [2, 8])
def test_multiqueue_takes_the_hosts_queue_count(queues):
    loaded = load_scenario(FIG6, NO_FLOOD + ["host.uplink=\"multiqueue\"", f"host.uplink_queues={queues}"])
    assert needs_scheduler(loaded.scenario, loaded.models["nic"].values)
    uplink = build(loaded, ["vm"])
    assert isinstance(uplink.scheduler, MultiQueueScheduler) and uplink.scheduler.n_queues == queues


def test_netioc_maps_each_port_to_its_groups_leaf():
    loaded = load_scenario(FIG6, ["host.uplink=\"netioc\""])
    uplink = build(loaded, ["vm", "flood", "flood"])
    scheduler = uplink.scheduler
    assert isinstance(scheduler, NetiocScheduler) and scheduler.leaves == ["voip", "flood"]
    assert scheduler.queue_index(np.zeros(3, dtype=np.int64), np.arange(3)).tolist() == [0, 1, 1]


def test_a_pfifo_host_gets_linux_pfifo_at_the_nics_rate_and_packet_limit():
    loaded = load_scenario(ROOT / "configs" / "validation" / "net_pfifo.toml")
    uplink = build(loaded, ["vm", "flood"])
    nic = loaded.models["nic"].values
    assert isinstance(uplink, SharedUplink) and isinstance(uplink.scheduler, PfifoScheduler)
    assert uplink.scheduler.rate_bps == nic.rate_bps == 2e6
    assert [queue.limit for queue in uplink.scheduler.queues] == [nic.queue_packets] == [50]
    assert uplink.scheduler.unit == "packets"
    # the NIC model's rate is tbf's: tokens of skb_len, the waiting head among the 50
    assert nic.shaper == "tbf" and uplink.scheduler.shaper == "tbf"
    assert uplink.scheduler.work(60.0) == pytest.approx(74 * 8 / 2e6)
    assert not uplink.scheduler.queues[0].excludes_in_service


def test_a_tbf_nic_takes_only_the_pfifo_uplink_and_an_ethernet_nic_keeps_its_wire():
    net_pfifo = ROOT / "configs" / "validation" / "net_pfifo.toml"
    with pytest.raises(InputError, match=r"host.uplink: expected \"pfifo\""):
        build(load_scenario(net_pfifo, ['host.uplink="fifo"']), ["vm", "flood"])
    loaded = load_scenario(net_pfifo, ['host.nic="nics/broadcom_netxtreme2_1gbe"'])
    scheduler = build(loaded, ["vm", "flood"]).scheduler
    assert scheduler.shaper == "wire" and scheduler.queues[0].excludes_in_service


def test_an_htb_uplink_puts_each_group_on_its_leaf_and_names_bad_trees():
    htb = ROOT / "configs" / "validation" / "net_htb.toml"
    summary = simulate(load_scenario(htb, ["run.duration=4"]), seed=2, duration=4).to_json()
    assert summary["voice"]["loss_fraction"] == 0.0  # the voice class stays within its rate
    with pytest.raises(InputError, match=r"--set htb.node=.*: htb.node.flood.parent: expected a node listed before it"):
        load_scenario(htb, ['htb.node=[{name = "root", rate_mbps = 2.0}, {name = "voice", parent = "root", '
                            'members = ["vm"]}, {name = "flood", parent = "nowhere", members = ["flood"]}]'])
    with pytest.raises(InputError, match=r"htb.node: expected VM group 'flood' among the members"):
        load_scenario(htb, ['htb.node=[{name = "root", rate_mbps = 2.0}, {name = "voice", parent = "root", '
                            'members = ["vm"]}]'])


def test_a_scenarios_flood_declares_its_arrivals_to_the_uplink():
    net_pfifo = ROOT / "configs" / "validation" / "net_pfifo.toml"
    paced = Simulation(load_scenario(net_pfifo), seed=1).uplink.scheduler.arrivals
    assert paced == {(1, 1): "paced"}   # the flood VM's port, its class after the voice's
    poisson = Simulation(load_scenario(
        net_pfifo, ['group=[{name = "flood", vcpus = 1, vnic = "vnics/none", traffic = {kind = '
                    '"udp_flood", params = {pps = 215.9, ip_bytes = 1028, arrivals = "poisson"}}}]']),
        seed=1).uplink.scheduler.arrivals
    assert poisson == {(1, 1): "poisson"}


@pytest.mark.parametrize("override, named", [
    ("params.nic.tx_stage_per_packet=2e-6", r"params\.nic\.tx_stage_per_packet: expected 0 under htb"),
    ("params.nic.queue_bytes=3000", r"params\.nic\.queue_bytes: expected none under htb"),
])
def test_an_uplink_the_nic_model_cannot_carry_is_refused_when_the_scenario_loads(override, named):
    """Refused by the checks a scenario passes as it loads (before any host is built), by the
    same function the builder calls, naming the --set it rests on."""
    htb = ROOT / "configs" / "validation" / "net_htb.toml"
    with pytest.raises(InputError, match=named) as caught:
        load_scenario(htb, [override])
    assert f"--set {override}" in str(caught.value)


def test_a_nic_model_with_queue_bytes_limits_the_queue_in_bytes():
    """The frames-only FIFO counts packets, so a byte limit takes the scheduler; a pfifo with
    a byte limit is tc's bfifo."""
    loaded = load_scenario(FIG3, ["params.nic.queue_bytes=3000"])
    assert needs_scheduler(loaded.scenario, loaded.models["nic"].values)
    fifo = build(loaded, ["vm"]).scheduler
    assert isinstance(fifo, FifoScheduler) and (fifo.unit, fifo.queues[0].limit) == ("bytes", 3000)
    bfifo = build(load_scenario(FIG6, ["params.nic.queue_bytes=3000", 'host.uplink="pfifo"',
                                       "netioc.node=[]", 'sweep.values=["pfifo"]']),
                  ["vm", "flood", "flood", "flood", "flood"]).scheduler
    assert isinstance(bfifo, BfifoScheduler) and bfifo.unit == "bytes"


def test_a_smaller_byte_limit_loses_more_voice_beside_the_flood():
    def loss(limit):
        loaded = load_scenario(FIG6, [f"params.nic.queue_bytes={limit}"])
        return simulate(loaded, 1, duration=4.0, warmup=1.0).to_json()["voice"]["loss_fraction"]
    assert loss(2000) > loss(200000)


@pytest.mark.parametrize("uplink", ["fifo", "multiqueue", "pfifo"])
def test_a_nic_without_a_rate_is_refused_under_any_uplink_but_htb(uplink):
    net_htb = ROOT / "configs" / "validation" / "net_htb.toml"
    assert load_scenario(net_htb).models["nic"].values.rate_bps == float("inf")
    with pytest.raises(InputError, match=r'host\.uplink: expected "htb" on the NIC model nics/veth'):
        load_scenario(net_htb, [f'host.uplink="{uplink}"'])
