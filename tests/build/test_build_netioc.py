"""A scenario's [netioc] tables as the uplink's NetIOC tree."""

import math
from pathlib import Path

import pytest

from vsim.core.errors import InputError
from vsim.net.hclock.allocator import allocate
from vsim.build.load import load_scenario
from vsim.build.netioc import netioc_tree

ROOT = Path(__file__).resolve().parents[2]
FIG6 = ROOT / "configs" / "voip-vsphere5" / "fig6.toml"

NESTED = '''
[[netioc.node]]
name = "vm"
kind = "class"
shares = 100.0
reservation_mbps = 600.0

[[netioc.node]]
name = "gold"
kind = "pool"
parent = "vm"
reservation_mbps = 500.0
limit_mbps = 900.0

[[netioc.node]]
name = "voice"
kind = "port"
parent = "gold"
reservation_mbps = 100.0
members = ["vm"]

[[netioc.node]]
name = "bulk"
kind = "port"
parent = "vm"
shares = 25.0
members = ["flood"]
'''


def nested(tmp_path, old="", new=""):
    text = FIG6.read_text()
    text = text[:text.index("[[netioc.node]]")] + NESTED.replace(old, new) + \
        text[text.index("[client]"):]
    path = tmp_path / "nested.toml"
    path.write_text(text)
    return load_scenario(path)


def test_fig6_tree_has_two_equal_pools():
    loaded = load_scenario(FIG6)
    tree, leaf_of = netioc_tree(loaded.scenario, 1e9, "fig6")
    assert tree.leaves == ["voip", "flood"]
    assert leaf_of == {"vm": "voip", "flood": "flood"}
    rates = allocate(tree, {"voip": math.inf, "flood": math.inf})
    assert rates["voip"] == pytest.approx(5e8) and rates["flood"] == pytest.approx(5e8)


def test_flat_nodes_nest_by_parent_with_rates_in_mbps(tmp_path):
    loaded = nested(tmp_path)
    tree, leaf_of = netioc_tree(loaded.scenario, 1e9, "nested")
    (vm,) = tree.nodes
    gold = tree.by_name["gold"]
    assert [child.name for child in vm.children] == ["gold", "bulk"]
    assert (gold.reservation, gold.limit, vm.shares) == (5e8, 9e8, 100.0)
    assert tree.by_name["bulk"].limit == math.inf
    assert leaf_of == {"vm": "voice", "flood": "bulk"}


@pytest.mark.parametrize("old, new, key, words", [
    ("reservation_mbps = 600.0", "reservation_mbps = 800.0", "netioc.node.reservation_mbps",
     "totalling at most 750 Mb/s (75% of the 1000 Mb/s uplink), got 800 Mb/s"),
    ("reservation_mbps = 500.0", "reservation_mbps = 700.0", "netioc.node.vm.reservation_mbps",
     "at least the sum of its children's reservations (700 Mb/s), got 600 Mb/s"),
    ("reservation_mbps = 100.0", "reservation_mbps = 550.0", "netioc.node.gold.reservation_mbps",
     "at least the sum of its children"),
    ("limit_mbps = 900.0", "limit_mbps = 400.0", "netioc.node.gold.limit_mbps",
     "at least the reservation 500 Mb/s, got 400 Mb/s"),
    ('parent = "gold"', 'parent = "silver"', "netioc.node.voice.parent", "listed before it"),
])
def test_what_netioc_refuses_names_the_node(tmp_path, old, new, key, words):
    with pytest.raises(InputError) as info:
        nested(tmp_path, old, new)
    assert info.value.where == key and words in info.value.expected, str(info.value)


def test_a_cpu_bound_group_needs_no_leaf_and_runs_beside_the_tree(tmp_path):
    text = (ROOT / "configs" / "netioc-vsphere6" / "exp3_netioc.toml").read_text()
    text = text[:text.index("[sweep]")] + '[[group]]\nname = "hog"\ncount = 1\nvcpus = 2\nworkload = "cpu_bound"\n'
    path = tmp_path / "hog.toml"
    path.write_text(text)
    loaded = load_scenario(path)
    assert [group.name for group in loaded.scenario.group][-1] == "hog"
