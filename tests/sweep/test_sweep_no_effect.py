"""Identical rows of a sweep get a note saying why: the swept value changed no entitlement."""

from pathlib import Path

import pytest

from vsim.scenario.load import load_scenario
from vsim.sweep.no_effect import is_cpu_setting, no_effect_notes, scheduler_inputs
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
