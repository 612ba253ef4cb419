"""A scenario on a Linux host (policy linux_fair): scheduler models validated per policy, VM
shares and limits mapped to cgroup weight and cpu.max, reservations refused, and a short run."""

import shutil
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from vsim.core.errors import InputError
from vsim.build.cgroups import cgroup_weight
from vsim.build.load import load_scenario
from vsim.config.models import DEFAULT_MODELS_DIR
from vsim.engines.simulation import Simulation

ROOT = Path(__file__).resolve().parents[2]
FIG3 = ROOT / "configs" / "voip-vsphere5" / "fig3.toml"
LINUX_HOST = ROOT / "configs" / "whatif" / "linux_host.toml"


def load_error(path, overrides, models_dir=DEFAULT_MODELS_DIR):
    with pytest.raises(InputError) as info:
        load_scenario(path, overrides, models_dir=models_dir)
    assert "\n" not in str(info.value)
    return info.value


# -------------------------------------------------------------- mapping
def test_normal_shares_are_the_default_weight_whatever_the_vcpus():
    assert [cgroup_weight(1000.0 * n, n) for n in (1, 2, 4, 8)] == [100.0] * 4
    assert cgroup_weight(8000.0, 4) == 200.0
    assert cgroup_weight(2001.0, 2) == 100.0  # the kernel keeps an integer weight


@given(st.integers(1, 8), st.floats(10.0, 1e6))
def test_weights_keep_the_ratio_of_shares_up_to_rounding(vcpus, shares):
    weight = cgroup_weight(shares, vcpus)
    assert abs(weight - shares / (10.0 * vcpus)) <= 0.5


@pytest.mark.parametrize("scheduler", ["schedulers/linux_eevdf", "schedulers/linux_cfs"])
def test_the_linux_models_load_with_their_provenance(scheduler):
    loaded = load_scenario(FIG3, [f'host.scheduler="{scheduler}"'])
    model = loaded.models["scheduler"]
    assert model.values.policy == "linux_fair"
    assert model.values.machine_costop_threshold() == float("inf")
    assert set(model.provenance) == {"policy", "quantum", "period"} | set(model.values.policy_params())
    assert all("assumption" in origin or "kernel" in origin or "Linux" in origin
               or "cgroup" in origin for origin in model.provenance.values())


def test_the_esx_model_keeps_its_policy_parameters():
    values = load_scenario(FIG3).models["scheduler"].values
    assert values.policy_params() == {"wake_credit": 0.001, "wake_granularity": 0.001}
    assert values.machine_costop_threshold() == 0.003


# -------------------------------------------------------- refused input
@pytest.mark.parametrize("overrides, key, words", [
    (["vm.reservation=0.5"], "vm.reservation", "no reservation under the Linux fair policy"),
    (["measured_vm.reservation=1"], "measured_vm.reservation", "no reservation"),
    (["vm.shares=3"], "vm.shares", "cpu.weight within 1..10000"),
    (["measured_vm.shares=4000001"], "measured_vm.shares", "(weight 100000)"),
    (["params.scheduler.wake_credit=0.001"], "params.scheduler.wake_credit",
     "unknown key for policy linux_fair (eevdf)"),
    (["params.scheduler.latency=0.006"], "params.scheduler.latency", "expected only quantum"),
])
def test_what_a_linux_host_cannot_express_is_refused(overrides, key, words):
    err = load_error(LINUX_HOST, overrides)
    assert err.where == key
    assert words in err.expected


def test_a_linux_parameter_can_be_swept_and_reaches_the_policy():
    loaded = load_scenario(LINUX_HOST, ['sweep.key="params.scheduler.base_slice"',
                                        "sweep.values=[0.00075, 0.003]"])
    point = loaded.with_value("params.scheduler.base_slice", 0.003)
    policy = Simulation(point, seed=1, engine="events").machine.policy
    assert policy.base_slice == 0.003
    assert policy.slice(Simulation(point, seed=1).machine) == 0.003 * 4  # 16 logical CPUs


def test_a_linux_parameter_on_the_esx_model_is_refused():
    err = load_error(FIG3, ["params.scheduler.base_slice=0.003"])
    assert err.where == "params.scheduler.base_slice"
    assert "unknown key for policy proportional_share" in err.expected


@pytest.fixture
def models_copy(tmp_path):
    target = tmp_path / "models"
    shutil.copytree(DEFAULT_MODELS_DIR, target)
    return target


@pytest.mark.parametrize("edit, key, words", [
    (('value = "eevdf"', 'value = "bfs"'), "params.variant", "one of 'eevdf', 'cfs'"),
    (("[params.base_slice]\nvalue = 0.00075", "[params.base_slice]\nvalue = -1.0"),
     "params.base_slice", "> 0"),
    (("[params.run_to_parity]\nvalue = true", "[params.run_to_parity]\nvalue = 1"),
     "params.run_to_parity", "a boolean"),
])
def test_a_bad_linux_model_file_is_one_line_naming_the_parameter(models_copy, edit, key, words):
    path = models_copy / "schedulers" / "linux_eevdf.toml"
    text = path.read_text()
    assert edit[0] in text
    path.write_text(text.replace(edit[0], edit[1]))
    err = load_error(LINUX_HOST, [], models_dir=models_copy)
    assert err.where == key
    assert words in err.expected


def test_a_linux_model_missing_a_variant_parameter_says_which(models_copy):
    path = models_copy / "schedulers" / "linux_cfs.toml"
    text = path.read_text()
    start = text.index("[params.gentle_fair_sleepers]")
    path.write_text(text[:start])
    err = load_error(LINUX_HOST, ['host.scheduler="schedulers/linux_cfs"'], models_dir=models_copy)
    assert err.where == "params.gentle_fair_sleepers"
    assert "policy linux_fair (cfs) needs it" in err.expected


# ----------------------------------------------------------------- runs
def test_vms_become_cgroups_with_weight_and_quota():
    loaded = load_scenario(LINUX_HOST, ["vm.instances=2", "vm.limit=1.5", "measured_vm.shares=8000"])
    machine = Simulation(loaded, seed=1, engine="events").machine
    weights = {g.name: (g.shares, g.limit, g.reservation) for g in machine.groups}
    assert weights == {"vm0": (200.0, 1.5, 0.0), "vm0.vnic-tx": (100.0, float("inf"), 0.0),
                       "vm1": (100.0, 1.5, 0.0), "vm1.vnic-tx": (100.0, float("inf"), 0.0)}
    assert machine.cosched_on is False


@pytest.mark.parametrize("scheduler", ["schedulers/linux_eevdf", "schedulers/linux_cfs"])
def test_a_contended_linux_host_runs_deterministically(scheduler):
    overrides = [f'host.scheduler="{scheduler}"', "vm.instances=6"]

    def summary():
        loaded = load_scenario(LINUX_HOST, overrides)
        return Simulation(loaded, seed=3, engine="events").run(1.5, 0.5).to_json()
    first = summary()
    assert first == summary()
    assert first["voice"]["packets_emitted"] > 0
    assert all(vm["costop_pct"] == 0.0 for vm in first["vms"].values())
