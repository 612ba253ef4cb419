"""An error at a key that ``--set`` set names the ``--set``; one at any other key names the file."""

import pickle
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from vsim.core.errors import InputError
from vsim.build.load import load_scenario
from vsim.config.override_source import assignment_summed, overriding_assignment

FIG2 = Path(__file__).resolve().parents[2] / "configs" / "voip-vsphere5" / "fig2.toml"

keys = st.lists(st.sampled_from(["vm", "host", "instances", "values", "x1"]), min_size=1, max_size=3).map(".".join)


@given(keys, st.text(max_size=5), st.lists(keys, max_size=3))
def test_the_last_assignment_of_a_key_is_blamed_for_it_and_what_lies_inside(key, value, others):
    assignments = [f"{key}=first", *[f"{other}=1" for other in others if other != key], f"{key}={value}"]
    assert overriding_assignment(key, assignments) == f"{key}={value}"
    assert overriding_assignment(f"{key}.inner", assignments) == f"{key}={value}"
    assert overriding_assignment(f"{key}[2]", assignments) == f"{key}={value}"
    assert overriding_assignment(f"{key}x", [f"{key}={value}"]) is None  # a longer name is another key


def test_a_bad_set_value_names_the_set_not_the_file():
    with pytest.raises(InputError) as caught:
        load_scenario(FIG2, ["vm.instances=abc"])
    assert caught.value.one_line() == "--set vm.instances=abc: vm.instances: expected an integer >= 0, got str 'abc'"


def test_a_check_inside_a_set_value_keeps_its_position():
    with pytest.raises(InputError) as caught:
        load_scenario(FIG2, ['sweep.values=[1, "a"]'])
    assert caught.value.one_line().startswith('--set sweep.values=[1, "a"]: sweep.values[1]: expected')


def test_a_file_error_still_names_the_file(tmp_path):
    config = tmp_path / "s.toml"
    config.write_text(FIG2.read_text().replace("vcpus = 4", "vcpus = 99", 1))
    with pytest.raises(InputError) as caught:
        load_scenario(config, ["vm.instances=1"])
    assert caught.value.source == str(config) and caught.value.where == "vm.vcpus"


FIG6 = Path(__file__).resolve().parents[2] / "configs" / "voip-vsphere5" / "fig6.toml"


def fig6_error(*overrides, path=FIG6):
    with pytest.raises(InputError) as caught:
        load_scenario(path, list(overrides))
    return caught.value


@pytest.mark.parametrize("assignment, where", [
    ("group.flood.traffic.params.arrivals=\"bursty\"", "group.flood.traffic.params.arrivals"),
    ("group.flood.vcpus=99", "group.flood.vcpus"),
    ("group.flood.traffic.kind=\"nope\"", "group.flood.traffic.kind"),
    ("netioc.node.flood.members=[\"nope\"]", "netioc.node.flood.members"),
])
def test_a_bad_set_value_in_a_named_table_names_the_set_and_the_table_by_name(assignment, where):
    error = fig6_error('host.uplink="netioc"', assignment)
    assert (error.source, error.where) == (f"--set {assignment}", where)


def test_an_error_in_a_named_table_of_the_file_names_the_table_by_name(tmp_path):
    config = tmp_path / "s.toml"
    config.write_text(FIG6.read_text().replace('members = ["flood"]', 'members = ["nope"]'))
    error = fig6_error(path=config)
    assert (error.source, error.where) == (str(config), "netioc.node.flood.members")


def test_a_traffic_start_after_its_stop_names_the_start_the_user_set():
    error = fig6_error("group.flood.traffic.active_from=0.95", "group.flood.traffic.active_until=0.9",
                       "group.flood.traffic.active_from=0.95")
    assert error.source == "--set group.flood.traffic.active_from=0.95"
    assert error.where == "group.flood.traffic.active_from"
    assert "active_from 0.95 must be before active_until 0.9" in error.expected


def test_a_vm_group_in_two_tree_nodes_is_named_with_the_node(tmp_path):
    config = tmp_path / "s.toml"
    config.write_text(FIG6.read_text().replace('members = ["flood"]', 'members = ["flood", "vm"]'))
    error = fig6_error(path=config)
    assert error.where == "netioc.node.flood.members"
    assert error.expected.endswith("'vm' is also a member of 'voip'")


def test_an_error_at_a_table_a_set_reached_into_names_the_file_with_the_set():
    """A misspelt table the assignment made: the file and the ``--set`` are named together."""
    error = fig6_error("group.flood.traffic.param.pps=1")
    assert error.source == f"{FIG6} with --set group.flood.traffic.param.pps=1"
    assert error.where == "group.flood.traffic.param"


def test_a_sum_over_named_tables_names_the_file_with_the_set_of_one_of_its_terms():
    """Reservations over 75 % of the uplink: the sum is the file's nodes and the ``--set``
    together, so both are named."""
    assignment = "netioc.node.voip.reservation_mbps=800"
    error = fig6_error('host.uplink="netioc"', assignment)
    assert error.source == f"{FIG6} with --set {assignment}"
    assert error.where == "netioc.node.reservation_mbps" and "75%" in error.expected


def test_a_set_of_another_key_is_not_blamed_for_a_sum():
    assert assignment_summed("netioc.node.reservation_mbps",
                             ["netioc.node.voip.shares=5", "group.voip.reservation_mbps=1"]) is None
    assert assignment_summed("reservation_mbps", ["netioc.node.voip.reservation_mbps=1"]) is None


PROTECT = FIG2.parents[1] / "whatif" / "protect_measured_vm.toml"


def test_a_refusal_resting_on_a_set_scheduler_names_the_file_with_that_set():
    with pytest.raises(InputError) as caught:
        load_scenario(PROTECT, ["host.scheduler=schedulers/linux_cfs"])
    assert caught.value.source == f"{PROTECT} with --set host.scheduler=schedulers/linux_cfs"
    assert caught.value.where == "measured_vm.reservation"


def test_a_refusal_resting_on_set_hyperthreading_names_the_file_with_that_set(tmp_path):
    config = tmp_path / "s.toml"
    config.write_text(FIG2.read_text().replace("vcpus = 4", "vcpus = 12", 1))
    with pytest.raises(InputError) as caught:
        load_scenario(config, ["host.hyperthreading=false", "run.seed=3"])
    assert caught.value.source == f"{config} with --set host.hyperthreading=false"
    assert caught.value.where == "vm.vcpus"
    with pytest.raises(InputError) as caught:  # a --set of the key at fault is blamed alone
        load_scenario(config, ["vm.vcpus=99"])
    assert caught.value.source == "--set vm.vcpus=99"


def test_a_set_the_refusal_does_not_rest_on_is_not_blamed():
    with pytest.raises(InputError) as caught:
        load_scenario(PROTECT, ["host.scheduler=schedulers/linux_cfs", "host.nic=nics/intel_82599_10gbe"])
    assert caught.value.source == f"{PROTECT} with --set host.scheduler=schedulers/linux_cfs"


def test_an_input_error_pickles_with_the_keys_it_rests_on():
    error = InputError("f.toml", "vm.vcpus", "expected fewer", depends_on=("host.model",))
    assert pickle.loads(pickle.dumps(error)).depends_on == ("host.model",)
