"""Tests of keys that reach a table of an array of tables by its name."""

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vsim.core.errors import InputError
from vsim.build.load import load_scenario
from vsim.config.named_tables import NAMED_ARRAYS, NamedKey, named_where, split_named_key, with_named_value
ROOT = Path(__file__).resolve().parents[2]
NAMES = st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True)


@given(st.sampled_from(NAMED_ARRAYS), NAMES, st.lists(NAMES, min_size=1, max_size=3))
def test_a_named_key_splits_into_array_name_and_keys_and_back(array, name, rest):
    key = ".".join([array, name, *rest])
    named = split_named_key(key)
    assert named == NamedKey(array, name, tuple(rest))
    assert named.text() == key


@pytest.mark.parametrize("key", ["vm.instances", "group.flood", "group", "netioc.node.voip",
                                 "params.host.ht_rate", "netioc.nodes.voip.shares"])
def test_keys_that_name_no_table_of_an_array_are_not_named_keys(key):
    assert split_named_key(key) is None


VOICE_BESIDE_FLOOD = ROOT / "configs" / "whatif" / "voice_beside_flood.toml"


def test_the_named_table_alone_changes_in_a_typed_scenario():
    scenario = load_scenario(VOICE_BESIDE_FLOOD).scenario
    changed = with_named_value(scenario, split_named_key("netioc.node.flood.shares"), 80.0,
                               "x.toml", "sweep.key")
    assert [node.shares for node in changed.netioc.node] == [50.0, 80.0]
    assert [node.shares for node in scenario.netioc.node] == [50.0, 50.0]
    assert changed.group == scenario.group


def test_an_unknown_name_in_a_typed_scenario_names_the_tables_there():
    scenario = load_scenario(VOICE_BESIDE_FLOOD).scenario
    with pytest.raises(InputError) as info:
        with_named_value(scenario, split_named_key("group.voip.count"), 2, "x.toml", "sweep.key")
    assert info.value.where == "sweep.key" and "tables (flood), got 'group.voip.count'" in str(info.value)
    assert "did you mean" not in str(info.value)


def test_a_misspelt_name_suggests_the_close_one():
    scenario = load_scenario(VOICE_BESIDE_FLOOD).scenario
    with pytest.raises(InputError) as info:
        with_named_value(scenario, split_named_key("group.flod.count"), 2, "x.toml", "sweep.key")
    assert info.value.expected.startswith("did you mean 'flood'? expected group.NAME.KEY")


@given(st.sampled_from(NAMED_ARRAYS), st.lists(NAMES, min_size=1, max_size=4), st.data())
def test_an_indexed_table_is_spelled_by_its_name_when_the_name_reaches_it(array, names, data):
    index = data.draw(st.integers(0, len(names) - 1))
    key = data.draw(st.sampled_from(["count", "traffic.params.pps", "members", "name"]))
    where = f"{array}[{index}].{key}"
    unique = names.count(names[index]) == 1
    expected = f"{array}.{names[index]}.{key}" if unique and key != "name" else where
    assert named_where(where, {array: names}) == expected
    assert named_where(f"{array}[{len(names)}].{key}", {array: names}) == f"{array}[{len(names)}].{key}"
    assert named_where("vm.instances", {array: names}) == "vm.instances"
