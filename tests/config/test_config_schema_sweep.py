"""The keys a [sweep] may vary, and its values checked as the key is."""

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vsim.core.errors import InputError
from vsim.build.load import load_scenario
from vsim.config.schema_models import HostModel
from vsim.config.schema_sections import GroupSection, HostSection, NetiocNodeSection, VmSection
from vsim.config.schema_sweep import SweepSection, sweep_field, sweepable_keys
from vsim.config.typed import from_dict


@pytest.mark.parametrize("key, field", [
    ("vm.instances", (VmSection, "instances")),
    ("host.uplink", (HostSection, "uplink")),  # a choice
    ("params.host.ht_rate", (HostModel, "ht_rate")),
    ("group.netperf.count", (GroupSection, "count")),
    ("netioc.node.voip.reservation_mbps", (NetiocNodeSection, "reservation_mbps")),
    ("host.scheduler", (HostSection, "scheduler")),  # a model: each point loads its models
    ("vm.affinity", None),  # a list, not a number
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


FIG6 = Path(__file__).resolve().parents[2] / "configs" / "voip-vsphere5" / "fig6.toml"


def test_a_sweep_varies_a_traffic_sources_number_parameter():
    loaded = load_scenario(FIG6, ['sweep.key="group.flood.traffic.params.pps"',
                                  "sweep.values=[1000.0, 50000.0]"])
    point = loaded.with_value("group.flood.traffic.params.pps", 50000.0)
    assert point.scenario.group[0].traffic.params == {"pps": 50000.0, "ip_bytes": 264,
                                                      "arrivals": "poisson"}
    assert loaded.scenario.group[0].traffic.params["pps"] == 97500.0  # the loaded one unchanged
    with pytest.raises(InputError) as caught:  # "on" alone: the source's own check, by the group's name
        loaded.with_value("group.flood.traffic.params.on", 0.5)
    assert caught.value.where == "group.flood.traffic.params.off"


@pytest.mark.parametrize("overrides, where, words", [
    (["sweep.values=[1000.0, -1.0]"], "sweep.values[1]", "group.flood.traffic.params.pps"),
    (["sweep.values=[true]"], "sweep.values[0]", "an integer or a number"),
    (['sweep.key="group.flood.traffic.params.ppps"', "sweep.values=[1]"], "sweep.values[0]",
     "a parameter of udp_flood"),
])
def test_a_swept_traffic_parameter_is_checked_by_its_source_at_every_point(overrides, where, words):
    with pytest.raises(InputError) as caught:
        load_scenario(FIG6, ['sweep.key="group.flood.traffic.params.pps"', *overrides])
    assert caught.value.where == where and words in caught.value.expected, caught.value.one_line()


def test_an_unsweepable_key_gets_a_short_error_naming_the_forms():
    with pytest.raises(InputError) as caught:
        from_dict(SweepSection, {"key": "group.flood.traffic.kind", "values": [1]}, source="t", path="sweep")
    assert "group.NAME.traffic.params.KEY" in caught.value.expected
    assert len(caught.value.expected) < 400
