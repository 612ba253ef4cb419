"""A tcp_stream sender with a ``stack``: the event engine charges its vCPU and its hypervisor
world what the closed form of ``vsim.net.stack`` says, packets x per-packet cost + bytes x
per-byte cost, at the rate the engine delivers."""

import math
from pathlib import Path

import pytest

from vsim.build.load import load_scenario
from vsim.core.errors import InputError
from vsim.engines.simulation import Simulation
from vsim.experiments import esx35_net
from vsim.net.stack.paths import stream_works

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "configs/esx35-net/vm2native.toml"
STACK = 'group.netperf.stack="netstacks/linux64"'


def closed_form_loads(rate):
    """Each CPU's share at ``rate`` bytes of data/s on the recipe's VM-to-client send path,
    without the throttled NIC's interrupts (a fixed rate, not a cost per frame)."""
    _, ends, client, framing, _, _ = esx35_net.setup(CONFIG.relative_to(ROOT), load_scenario(CONFIG))
    works = stream_works(ends["linux64"]["vm"], client, framing)
    return {cpu: sum(rate * w.seconds_per_byte
                     + (rate * w.interrupts_per_byte * w.interrupt_cost if math.isinf(w.interrupt_hz) else 0.0)
                     for w in works if w.cpu == cpu)
            for cpu in dict.fromkeys(w.cpu for w in works)}


def test_engine_cpu_is_the_closed_forms_at_the_delivered_rate():
    summary = Simulation(load_scenario(CONFIG, [STACK]), 1).run(2.0, 0.5).to_json()
    group = summary["uplink"]["groups"]["netperf"]
    vcpu = summary["traffic_vms"]["netperf[0]"]["used_pct"] / 100
    world = sum(summary["host"]["lcpu_util_pct"]) / 100 - vcpu
    loads = closed_form_loads(group["throughput_mbps"] * 1e6 / 8)
    assert vcpu > 0.05 and world > 0.05
    assert vcpu == pytest.approx(loads["VM vCPU"], rel=0.01)
    assert world == pytest.approx(loads["esx tx"] + loads["esx rx"], rel=0.01)


def test_without_a_stack_the_vnic_models_costs_stay(tmp_path):
    bare = tmp_path / "vm2native.toml"
    bare.write_text(CONFIG.read_text().replace('stack = "netstacks/linux64"\n', ""))
    summary = Simulation(load_scenario(bare), 1).run(1.0, 0.5).to_json()
    assert summary["traffic_vms"]["netperf[0]"]["used_pct"] == 0.0  # vmxnet_esx35 has no guest_tx_cost


@pytest.mark.parametrize("override, key", [
    ('group.netperf.stack="netstacks/vmxnet_esx35"', "group.netperf.stack"),
    ('group.netperf.vnic="vnics/vmxnet3"', "group.netperf.vnic"),
    ('group.netperf.traffic.params.mtu=9500', "group.netperf.traffic.params.mtu"),
])
def test_a_stack_the_path_cannot_use_names_its_key(override, key):
    with pytest.raises(InputError) as error:
        Simulation(load_scenario(CONFIG, [STACK, override]), 1)
    assert key in str(error.value)
