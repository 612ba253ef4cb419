"""A scenario on a Xen host (policy xen_credit): the scheduler model with its provenance, VM
shares and limits read as domain weights and caps, what a domain cannot express refused in one
line, and an end-to-end run that is deterministic."""

from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from vsim.build.load import load_scenario
from vsim.build.xen_domains import xen_weight
from vsim.core.errors import InputError
from vsim.cpu.policies.xen_credit import XenCredit
from vsim.engines.simulation import Simulation

from cli_run import one_line_error, vsim

ROOT = Path(__file__).resolve().parents[2]
XEN_HOST = ROOT / "configs" / "whatif" / "xen_credit_voip.toml"


def load_error(overrides):
    with pytest.raises(InputError) as info:
        load_scenario(XEN_HOST, overrides)
    assert "\n" not in str(info.value)
    return info.value


def test_normal_shares_are_xens_default_weight_whatever_the_vcpus():
    assert [xen_weight(1000.0 * n, n, 256.0) for n in (1, 2, 4, 8)] == [256.0] * 4
    assert xen_weight(8000.0, 4, 256.0) == 512.0


@given(st.integers(1, 8), st.floats(10.0, 1e6))
def test_weights_keep_the_ratio_of_shares(vcpus, shares):
    assert xen_weight(shares, vcpus, 256.0) == pytest.approx(0.256 * shares / vcpus)


def test_the_xen_model_loads_with_its_provenance():
    model = load_scenario(XEN_HOST).models["scheduler"]
    assert model.values.policy == "xen_credit"
    assert model.values.machine_costop_threshold() == float("inf")
    assert set(model.provenance) == {"policy", "quantum", "period"} | set(model.values.policy_params())
    assert all("credit.c" in origin for origin in model.provenance.values())


@pytest.mark.parametrize("overrides, key, words", [
    (["vm.reservation=0.5"], "vm.reservation", "no reservation under Xen's credit scheduler"),
    (["measured_vm.reservation=1"], "measured_vm.reservation", "no reservation"),
    (["vm.shares=3"], "vm.shares", "Xen weight within 1..65535"),
    (["measured_vm.shares=1100000"], "measured_vm.shares", "(weight 70400)"),
    (["group.hog.limit=5"], "group.hog.limit", "expected at most 4 CPUs"),
    (['host.steal_trace="../../validation/steal/steal.csv"'], "host.steal_trace",
     "no steal trace"),
    (["params.scheduler.tick=0.007"], "params.scheduler.period", "a whole number of ticks"),
    (["params.scheduler.base_slice=0.003"], "params.scheduler.base_slice",
     "unknown key for policy xen_credit"),
])
def test_what_a_xen_domain_cannot_express_is_refused(overrides, key, words):
    err = load_error(overrides)
    assert err.where.endswith(key)
    assert words in err.expected


def test_vms_become_domains_with_weight_and_cap():
    loaded = load_scenario(XEN_HOST, ["vm.instances=2", "measured_vm.shares=8000",
                                      "group.hog.limit=1.5"])
    machine = Simulation(loaded, seed=1, engine="events").machine
    policy = machine.policy
    assert isinstance(policy, XenCredit)
    weights = {g.name: (policy.domain(g).weight, policy.domain(g).cap, g.limit)
               for g in machine.groups}
    assert weights["vm0"] == (512.0, 0.0, float("inf"))
    assert weights["vm1"] == (256.0, 0.0, float("inf"))
    assert weights["vm0.vnic-tx"][:2] == (512.0, 0.0)
    assert weights["hog[0]"] == (256.0, 150.0, float("inf"))  # the cap is the policy's
    assert machine.cosched_on is False


def test_a_xen_host_runs_deterministically_and_caps_its_hogs():
    overrides = ["vm.instances=3", "group.hog.limit=0.5"]

    def run():
        simulation = Simulation(load_scenario(XEN_HOST, overrides), seed=2, engine="events")
        summary = simulation.run(3.0, 0.5).to_json()
        hogs = [g for g in simulation.machine.groups if g.name.startswith("hog")]
        return summary, [g.used for g in hogs], simulation.env.now
    first, used, now = run()
    assert first == run()[0]
    for hog in used:
        assert hog <= 0.5 * now + 0.06 * 4


def test_describe_shows_the_schedulers_parameters_and_sources(capsys):
    code, out, _ = vsim(capsys, "describe", "schedulers/xen_credit")
    assert code == 0
    for name in ("quantum = 0.03", "period = 0.03", "tick = 0.01", "credits_per_ms = 10",
                 "default_weight = 256", "tick_debit = false"):
        assert name in out
    assert out.count("source: xen/common/sched/credit.c") == 7


def test_a_refusal_is_one_line_and_exit_2(capsys):
    code, _, err = vsim(capsys, "run", XEN_HOST, "--set", "vm.reservation=0.5")
    assert code == 2
    assert "vm.reservation" in one_line_error(err)


@pytest.mark.parametrize("config", ["cfg1", "cfg5", "cfg6"])
def test_a_guest_whose_io_crosses_dom0_needs_a_dom0_on_a_xen_host(tmp_path, config):
    """Without its dom0 group a study configuration is refused in one line naming the guest."""
    text = (ROOT / "configs" / "xen-appliances" / f"{config}.toml").read_text()
    without = text.replace('[[group]]\nname = "dom0"\nvcpus = 2\nworkload = "dom0"\n', "")
    assert without != text
    path = tmp_path / f"{config}.toml"
    path.write_text(without.replace('"hosts/xeon3060_xenserver"', f'"{ROOT / "models/hosts/xeon3060_xenserver.toml"}"'))
    with pytest.raises(InputError) as info:
        load_scenario(path)
    assert "group.asterisk.workload: " in str(info.value) and "workload = \"dom0\"" in str(info.value)
    assert "\n" not in str(info.value)
