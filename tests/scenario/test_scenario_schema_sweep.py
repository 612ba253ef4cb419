"""The keys a [sweep] may vary, and its values checked as the key is."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vsim.core.errors import InputError
from vsim.scenario.schema_models import HostModel
from vsim.scenario.schema_sections import GroupSection, HostSection, NetiocNodeSection, VmSection
from vsim.scenario.schema_sweep import SweepSection, sweep_field, sweepable_keys
from vsim.scenario.typed import from_dict


@pytest.mark.parametrize("key, field", [
    ("vm.instances", (VmSection, "instances")),
    ("host.uplink", (HostSection, "uplink")),  # a choice
    ("params.host.ht_rate", (HostModel, "ht_rate")),
    ("group.netperf.count", (GroupSection, "count")),
    ("netioc.node.voip.reservation_mbps", (NetiocNodeSection, "reservation_mbps")),
    ("vm.workload", None),  # a model's name, not a number
    ("group.netperf.name", None),
    ("group.two words.count", None),
    ("nowhere.instances", None),
])
def test_sweep_field_of_a_key(key, field):
    assert sweep_field(key) == field


def test_sweepable_keys_are_the_tables_scalars_and_the_model_parameters():
    keys = sweepable_keys()
    assert {"vm.instances", "measured_vm.shares", "client.measuring_conference",
            "params.scheduler.quantum"} <= set(keys)
    assert not any(key.startswith(("run.", "sweep.", "group.")) for key in keys)


def problem(data):
    try:
        from_dict(SweepSection, data, source="s.toml", path="sweep")
    except InputError as error:
        return error.where
    return None


@given(st.lists(st.integers(-2, 30), max_size=6))
def test_instance_values_are_counts_each_once(values):
    where = problem({"key": "vm.instances", "values": values})
    if not values:
        assert where == "sweep.values"
    elif any(v < 0 for v in values):
        assert where == f"sweep.values[{next(i for i, v in enumerate(values) if v < 0)}]"
    elif len(set(values)) != len(values):
        assert where == "sweep.values"
    else:
        assert where is None


def test_an_unknown_key_is_refused_at_the_key():
    assert problem({"key": "vm.instance", "values": [1]}) == "sweep.key"
