"""Flat tree tables: children found by parent, leaves carrying VM groups, members on leaves only."""

from pathlib import Path
from types import SimpleNamespace

import pytest

from vsim.core.errors import InputError
from vsim.build.load import load_scenario
from vsim.config.tree_tables import check_tree_tables, tree_layout

ROOT = Path(__file__).resolve().parents[2]


def node(name, parent=None, members=()):
    return SimpleNamespace(name=name, parent=parent, members=members)


def test_children_and_leaves_follow_the_parents():
    children, by_name, leaf_of = tree_layout(
        [node("root"), node("voice", "root", ("vm",)), node("bulk", "root", ("flood", "nfs"))], "htb", "f")
    assert children == {"root": ["voice", "bulk"], "voice": [], "bulk": []}
    assert set(by_name) == {"root", "voice", "bulk"}
    assert leaf_of == {"vm": "voice", "flood": "bulk", "nfs": "bulk"}


@pytest.mark.parametrize("config, key", [("configs/validation/net_htb.toml", "htb"),
                                         ("configs/voip-vsphere5/fig6.toml", "netioc")])
def test_members_on_a_node_with_children_name_the_table(config, key):
    with pytest.raises(InputError, match=rf"{key}.node\[0\].members: expected members on a leaf only"):
        tree_layout([node("root", members=("vm",)), node("leaf", "root")], key, config)
    assert load_scenario(ROOT / config).scenario  # the committed trees are well formed


@pytest.mark.parametrize("nodes, where", [
    ([node("root"), node("leaf", "root", ("vm",))], None),
    ([node("leaf", "root"), node("root")], "htb.node[0].parent"),  # a child before its parent
    ([node("root"), node("root")], "htb.node[1].name"),
    ([node("a", members=("vm",)), node("b", members=("vm",))], "htb.node[1].members"),  # vm on two nodes
])
def test_flat_tables_list_each_name_once_and_parents_first(nodes, where):
    if where is None:
        check_tree_tables(nodes, "f", "htb")
        return
    with pytest.raises(InputError) as info:
        check_tree_tables(nodes, "f", "htb")
    assert info.value.where == where
