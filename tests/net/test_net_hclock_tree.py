"""NetIOC tree validation: what NetIOC refuses is refused with a one-line InputError."""

import math

import pytest

from vsim.core.errors import InputError
from vsim.net.hclock.tree import RESERVABLE_FRACTION, Node, Tree

G = 1e9


def test_seventy_five_percent_reservable_accepted_and_more_refused():
    pool = Node("pool", kind="pool", reservation=15 * G,
                children=(Node("vm1", reservation=7.5 * G), Node("vm2")))
    Tree([Node("vm", kind="class", reservation=15 * G, children=(pool,))], 20 * G)
    assert RESERVABLE_FRACTION == 0.75
    with pytest.raises(InputError, match=r"75%.*2e\+10"):
        Tree([Node("vm", kind="class", reservation=15.1 * G)], 20 * G)


@pytest.mark.parametrize("node, pattern", [
    (Node("a", kind="class", reservation=2 * G, limit=1 * G), "a.limit.*at least the reservation"),
    (Node("p", kind="pool"), "p: a resource pool holding at least one port"),
    (Node("a", kind="class", shares=0), "a.shares: a positive number"),
    (Node("a", kind="class", shares=-5), "a.shares: a positive number"),
    (Node("a", kind="class", limit=0), "a.limit: a positive number"),
    (Node("a", kind="class", reservation=-1), "a.reservation: a non-negative"),
    (Node("a", kind="class", reservation=math.nan), "a.reservation"),
    (Node("a", kind="class", children=(Node("x", reservation=1 * G),)), "a.reservation: at least the sum"),
    (Node("a", kind="queue"), "kind one of"),
])
def test_bad_nodes_are_refused_naming_the_node(node, pattern):
    with pytest.raises(InputError, match=pattern) as err:
        Tree([node], 10 * G, source="net.toml")
    assert str(err.value).startswith("net.toml: ")
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("capacity", [0, -1, math.inf, math.nan])
def test_capacity_must_be_positive_and_finite(capacity):
    with pytest.raises(InputError, match="capacity"):
        Tree([Node("a", kind="class")], capacity)


def test_names_are_unique_and_leaves_listed_in_order():
    with pytest.raises(InputError, match="used once"):
        Tree([Node("a", kind="class"), Node("a", kind="class")], G)
    tree = Tree([Node("vm", kind="class", children=(Node("p1"), Node("p2"))),
                 Node("nfs", kind="class")], G)
    assert tree.leaves == ["p1", "p2", "nfs"]
