"""htb class tree: tc's defaults and what is refused, naming the class."""

import pytest

from vsim.core.errors import InputError
from vsim.net.uplink.htb_tree import HtbClass, HtbTree


def test_defaults_are_tcs_and_the_kernels():
    tree = HtbTree([HtbClass("root", 10e6, children=(HtbClass("a", 1e6), HtbClass("b", 5e3, prio=3)))])
    assert tree.leaves == ["a", "b"]
    assert tree.ceil == {"root": 10e6, "a": 1e6, "b": 5e3}
    assert tree.quantum == {"a": 12_500, "b": 1000}
    assert tree.prio == {"a": 0, "b": 3}
    assert tree.depth == {"root": 0, "a": 1, "b": 1}
    assert tree.burst["a"] == tree.cburst["a"] == pytest.approx(1600.000125)
    assert HtbTree([HtbClass("a", 1e6, ceil=8e9, burst=30_000)]).cburst["a"] == pytest.approx(1601)
    assert tree.leaves_under("root") == ["a", "b"]


@pytest.mark.parametrize("classes, where, expected", [
    ([HtbClass("a", 2e6, ceil=1e6)], "a.ceil", "at least the class's rate"),
    ([HtbClass("a", 0)], "a.rate", "positive finite"),
    ([HtbClass("r", 1e6, children=(HtbClass("a", 1e5), HtbClass("a", 1e5)))], "r.a", "used once"),
    ([HtbClass("r", 1e6, limit=10, children=(HtbClass("a", 1e5),))], "r.limit", "leaf classes"),
    ([HtbClass("r", 1e6, children=(HtbClass("a", 1e5, prio=8),))], "r.a.prio", "0..7"),
    ([HtbClass("a", 1e6, limit=0)], "a.limit", "positive"),
    ([HtbClass("a", 1e6, cburst=0)], "a.cburst", "positive bytes"),
])
def test_bad_classes_are_refused_naming_the_class(classes, where, expected):
    with pytest.raises(InputError, match=rf"tc.toml: {where}: .*{expected}"):
        HtbTree(classes, source="tc.toml")


def test_quantum_and_prio_of_an_inner_class_are_taken_and_change_nothing():
    """tc takes them on an inner class and the kernel uses only the leaves' own."""
    plain = HtbTree([HtbClass("r", 1e6, children=(HtbClass("a", 1e5), HtbClass("b", 2e5)))])
    given = HtbTree([HtbClass("r", 1e6, quantum=1500, prio=3, children=(HtbClass("a", 1e5), HtbClass("b", 2e5)))])
    assert (given.quantum, given.prio, given.leaves) == (plain.quantum, plain.prio, plain.leaves)
