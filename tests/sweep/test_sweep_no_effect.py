"""Identical rows of a sweep get a note saying why: the swept value changed no entitlement."""

from pathlib import Path

import pytest

from vsim.build.load import load_scenario
from vsim.sweep.no_effect import (held_settings_notes, is_cpu_setting, no_effect_notes,
                                  scheduler_inputs)
from vsim.sweep.report import PointReport

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
CONFIG = CONFIGS / "voip-vsphere5" / "fig3.toml"
ROW = {"jitter_mean_ms": (0.9, (0.8, 1.0)), "loss_pct": None}
OTHER = {"jitter_mean_ms": (1.2, (1.0, 1.4)), "loss_pct": None}


def swept(key, *overrides):
    return load_scenario(CONFIG, ["vm.instances=12", f'sweep.key="{key}"', "sweep.values=[0]",
                                  *overrides])


def test_each_vms_share_is_the_host_shared_out_by_shares():
    """12 VMs of 4000 shares and their transmit worlds of 1000 on 16 logical CPUs: 16 / 15 each.
    Leaving the transmit worlds out said 16 / 12, and at 14 VMs a reservation of 0.915 CPUs,
    below the 1.14 the note gave, already changed the run (16 / 17.5 = 0.914)."""
    _, shares = scheduler_inputs(swept("vm.reservation"))
    assert set(shares) == {f"vm{i}" for i in range(12)}
    assert all(value == pytest.approx(16 / 15) for value in shares.values())


def test_reservations_below_the_share_change_no_entitlement_and_are_named():
    loaded = swept("vm.reservation")
    reports = [PointReport(0, ROW), PointReport(0.5, ROW), PointReport(1, ROW)]
    assert no_effect_notes("vm.reservation", reports, loaded) == [
        "note: vm.reservation 0 .. 1 CPUs changes no CPU entitlement (each VM's share of the host is "
        "1.07 CPUs; a reservation counts only above that share), so these points ran the same"]


def test_a_reservation_above_the_share_changes_the_entitlement():
    loaded = swept("measured_vm.reservation")
    below, above = (scheduler_inputs(loaded.with_value("measured_vm.reservation", x))[0] for x in (1, 2))
    assert below == scheduler_inputs(loaded)[0] != above
    reports = [PointReport(1, ROW), PointReport(2, ROW)]
    assert no_effect_notes("measured_vm.reservation", reports, loaded) == [
        "note: measured_vm.reservation 1 .. 2 CPUs gave identical results"]


def test_points_with_different_rows_get_no_note():
    loaded = swept("vm.reservation")
    reports = [PointReport(0, ROW), PointReport(0.5, OTHER), PointReport(1, ROW)]
    assert no_effect_notes("vm.reservation", reports, loaded)[0].startswith(
        "note: vm.reservation 0, 1 CPUs changes no CPU entitlement")
    assert no_effect_notes("vm.reservation", reports[:2], loaded) == []


@pytest.mark.parametrize("key, cpu", [
    ("vm.reservation", True), ("measured_vm.shares", True), ("group.netperf.limit", True),
    ("host.uplink", False), ("vm.instances", False), ("host.hyperthreading", False),
    ("params.host.ht_rate", False)])
def test_only_a_vms_cpu_settings_count_as_cpu_settings(key, cpu):
    assert is_cpu_setting(key) is cpu


def test_identical_rows_of_another_key_never_blame_the_cpu_entitlement():
    """Two uplink schedulers leave every entitlement alone; that says nothing of why rows agree."""
    loaded = load_scenario(CONFIGS / "netioc-vsphere6" / "fig6.toml")
    reports = [PointReport("multiqueue", ROW), PointReport("netioc", ROW)]
    assert scheduler_inputs(loaded.with_value("host.uplink", "multiqueue"))[0] == \
        scheduler_inputs(loaded.with_value("host.uplink", "netioc"))[0]
    assert no_effect_notes("host.uplink", reports, loaded) == [
        'note: host.uplink "multiqueue", "netioc" gave identical results']


def swept_over(key, values, *overrides):
    return load_scenario(CONFIG, ["vm.instances=12", f'sweep.key="{key}"', f"sweep.values={values}",
                                  *overrides])


def test_a_reservation_or_limit_left_set_beside_the_swept_setting_is_named():
    loaded = swept_over("measured_vm.shares", "[1000, 8000]", "measured_vm.reservation=1.5",
                        "measured_vm.limit=3")
    assert held_settings_notes("measured_vm.shares", loaded) == [
        "note: measured_vm.reservation = 1.5 CPUs holds at every point "
        "(--set measured_vm.reservation=0 to sweep measured_vm.shares alone)",
        "note: measured_vm.limit = 3 CPUs holds at every point "
        "(--set measured_vm.limit=4 to sweep measured_vm.shares alone)"]
    assert held_settings_notes("measured_vm.reservation", loaded) == [
        "note: measured_vm.limit = 3 CPUs holds at every point "
        "(--set measured_vm.limit=4 to sweep measured_vm.reservation alone)"]


def test_no_note_without_a_setting_that_holds():
    assert held_settings_notes("vm.shares", swept_over("vm.shares", "[1000]")) == []
    capping_nothing = swept_over("vm.shares", "[1000]", "vm.limit=4")
    assert held_settings_notes("vm.shares", capping_nothing) == []
    assert held_settings_notes("vm.instances", swept_over("vm.instances", "[2]", "vm.limit=1")) == []


def test_a_group_s_limit_is_named_by_its_group():
    loaded = load_scenario(CONFIGS / "whatif" / "noisy_neighbours.toml", [])
    assert held_settings_notes("group.hog.shares", loaded) == [
        "note: group.hog.limit = 1 CPU holds at every point "
        "(--set group.hog.limit=4 to sweep group.hog.shares alone)"]


def test_hyper_threading_on_a_host_of_one_thread_per_core_is_named_as_the_reason():
    loaded = load_scenario(CONFIGS / "whatif" / "hyperthreading.toml",
                           ["host.model=\"hosts/probe_machine_2vcpu\"", "vm.instances=1", "vm.vcpus=1"])
    reports = [PointReport(True, ROW), PointReport(False, ROW)]
    assert no_effect_notes("host.hyperthreading", reports, loaded) == [
        "note: host.hyperthreading true, false gave identical results "
        "(the host model hosts/probe_machine_2vcpu has one thread per core)"]
    two_threads = load_scenario(CONFIGS / "whatif" / "hyperthreading.toml", [])
    assert no_effect_notes("host.hyperthreading", reports, two_threads) == [
        "note: host.hyperthreading true, false gave identical results"]


def test_only_the_vms_get_a_share_of_the_host():
    """A background task of 1000 shares competes for the CPUs beside the 12 VMs of 4000 and their
    transmit worlds (each VM's share is 16 * 4 / 61) but is not a VM, and the note names only
    the VMs' shares."""
    _, shares = scheduler_inputs(swept("vm.reservation", "host.background_tasks=1"))
    assert set(shares) == {f"vm{i}" for i in range(12)}
    assert all(value == pytest.approx(16 * 4 / 61) for value in shares.values())


def test_a_host_without_share_arithmetic_gets_the_note_without_a_share_of_the_host():
    """Linux's fair class weighs cgroups against each other and has no share of the host to
    name; shares of one cgroup weight (4000 and 4001 over 4 vCPUs: 100) get the note all the
    same, and a limit's identical rows the plainer one."""
    loaded = load_scenario(CONFIGS / "whatif" / "linux_host.toml",
                           ["vm.instances=1", 'sweep.key="vm.shares"', "sweep.values=[4000, 4001]"])
    assert scheduler_inputs(loaded)[1] is None
    assert no_effect_notes("vm.shares", [PointReport(4000, ROW), PointReport(4001, ROW)], loaded) == [
        "note: vm.shares 4000 .. 4001 changes no CPU entitlement (shares count only relative to "
        "the other VMs'), so these points ran the same"]
    assert no_effect_notes("vm.limit", [PointReport(3.9, ROW), PointReport(4, ROW)], loaded) == [
        "note: vm.limit 3.9 .. 4 CPUs gave identical results"]
