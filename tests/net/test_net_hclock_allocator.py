"""The hClock allocation: its defining properties on random trees, and the study's Fig 2."""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from vsim.core.errors import InputError
from vsim.net.hclock.allocator import allocate
from vsim.net.hclock.tree import Node, Tree

G = 1e9
CAPACITY = 10 * G
RTOL = 1e-9


@st.composite
def trees(draw):
    """Random two- and three-level trees with reservations inside the 75 % cap, and demands."""
    n_classes = draw(st.integers(1, 4))
    budget = 0.75 * CAPACITY * draw(st.floats(0.0, 1.0))
    class_res = np.array(draw(st.lists(st.floats(0.0, 1.0), min_size=n_classes,
                                       max_size=n_classes)))
    class_res = class_res / max(class_res.sum(), 1e-12) * budget
    classes, demands = [], {}
    for c in range(n_classes):
        n_ports = draw(st.integers(0, 4))
        port_res = np.array(draw(st.lists(st.floats(0.0, 1.0), min_size=n_ports, max_size=n_ports)))
        port_res = port_res / max(port_res.sum(), 1e-12) * class_res[c] * draw(st.floats(0.0, 1.0))
        ports = []
        for p in range(n_ports):
            res = float(port_res[p])
            limit = draw(st.one_of(st.just(math.inf), st.floats(1.0, 1.5).map(
                lambda f, r=res: max(r, 1e6) * f * draw(st.floats(1.0, 20.0)))))
            name = f"c{c}p{p}"
            ports.append(Node(name, shares=draw(st.sampled_from([25.0, 50.0, 100.0, 7.0])),
                              reservation=res, limit=limit))
            demands[name] = draw(st.one_of(st.just(math.inf), st.just(0.0),
                                           st.floats(0.0, 2.0).map(lambda f: f * CAPACITY / 4)))
        children = tuple(ports)
        if ports and draw(st.booleans()):
            children = (Node(f"c{c}pool", kind="pool", reservation=float(port_res.sum()),
                             children=tuple(ports)),)
        climit = draw(st.one_of(st.just(math.inf), st.floats(1.0, 3.0).map(
            lambda f, r=class_res[c]: max(r, 1e8) * f)))
        node = Node(f"c{c}", kind="class", shares=draw(st.sampled_from([25.0, 50.0, 100.0])),
                    reservation=float(class_res[c]), limit=climit, children=children)
        if not ports:
            demands[node.name] = draw(st.one_of(st.just(math.inf), st.floats(0.0, 1.0).map(
                lambda f: f * CAPACITY)))
        classes.append(node)
    available = CAPACITY * draw(st.one_of(st.just(1.0), st.floats(0.05, 1.0)))
    return Tree(classes, CAPACITY), demands, available


def effective_demand(node, demands):
    if node.children:
        return min(node.limit, sum(effective_demand(c, demands) for c in node.children))
    return min(node.limit, demands.get(node.name, 0.0))


def close_le(a, b):
    return a <= b * (1 + RTOL) + 1e-3


def check_level(children, amount, rates, demands):
    got = np.array([rates[c.name] for c in children])
    want = np.array([effective_demand(c, demands) for c in children])
    res = np.array([c.reservation for c in children])
    shares = np.array([c.shares for c in children])
    assert close_le(got.sum(), amount)
    # work-conserving: everything the parent got is handed out or nobody wants more
    assert got.sum() == pytest.approx(min(amount, want.sum()), rel=1e-7, abs=1e-3)
    assert all(close_le(g, w) for g, w in zip(got, want))
    assert all(close_le(g, c.limit) for g, c in zip(got, children))
    floors = np.minimum(res, want)
    if floors.sum() <= amount * (1 + RTOL):
        # reservations met (up to what the traffic wants) ...
        assert np.all(got >= floors * (1 - 1e-7) - 1e-3)
        # ... and the rest shared by shares among those still wanting more
        open_ = got < want * (1 - 1e-7) - 1e-3
        if open_.sum() >= 2:
            level = (got[open_] - floors[open_]) / shares[open_]
            assert np.allclose(level, level[0], rtol=1e-6, atol=1e-3)
    else:
        # not enough for the reservations: in proportion to them, nobody above its reservation
        assert np.all(got <= floors * (1 + 1e-7) + 1e-3)
        open_ = (got < floors * (1 - 1e-7) - 1e-3) & (res > 0)
        if open_.sum() >= 2:
            level = got[open_] / res[open_]
            assert np.allclose(level, level[0], rtol=1e-6)
    for child in children:
        if child.children:
            check_level(child.children, rates[child.name], rates, demands)


@settings(max_examples=80, deadline=None)
@given(trees())
def test_allocation_properties_on_random_trees(case):
    tree, demands, available = case
    rates = allocate(tree, demands, available)
    check_level(tree.nodes, available, rates, demands)


def three_vms(reservations, capacity=20 * G):
    ports = tuple(Node(f"vm{i + 1}", shares=50, reservation=r * G) for i, r in enumerate(reservations))
    pool = Node("pool", kind="pool", reservation=15 * G, children=ports)
    return Tree([Node("vm", kind="class", reservation=15 * G, children=(pool,))], capacity)


GOODPUT = 9.4 * G
"""The three VMs' TCP goodput at line rate on one 10 GbE uplink (seed 001)."""


def test_fig2_equal_shares_and_reservation_for_vm1():
    tree = three_vms([0, 0, 0])
    busy = {f"vm{i}": math.inf for i in (1, 2, 3)}
    equal = allocate(tree, busy, GOODPUT)
    assert [equal[f"vm{i}"] / G for i in (1, 2, 3)] == pytest.approx([3.13] * 3, abs=0.01)
    step_a = allocate(three_vms([7.5, 0, 0]), busy, GOODPUT)
    assert step_a["vm1"] / G == pytest.approx(8.13, abs=0.01)      # paper 8.1
    assert step_a["vm2"] / G == pytest.approx(0.63, abs=0.01)      # paper 0.6


def test_fig2_after_the_migrations():
    host1 = Tree([Node("vm", kind="class", reservation=7.5 * G, children=(
        Node("vm1", reservation=7.5 * G), Node("vm3")))], 10 * G)
    rates = allocate(host1, {"vm1": math.inf, "vm3": math.inf}, GOODPUT)
    assert (rates["vm1"] / G, rates["vm3"] / G) == pytest.approx((8.45, 0.95))   # paper 8.4, 0.9
    host2 = Tree([Node("vm", kind="class", reservation=7.5 * G, children=(
        Node("vm2", reservation=4.5 * G), Node("vm3", reservation=3 * G)))], 10 * G)
    rates = allocate(host2, {"vm2": math.inf, "vm3": math.inf}, GOODPUT)
    assert (rates["vm2"] / G, rates["vm3"] / G) == pytest.approx((5.45, 3.95))   # paper 5.4, 3.9


def test_unused_reservation_goes_to_others_and_limits_cap():
    tree = Tree([Node("vm", kind="class", reservation=6 * G, children=(
        Node("a", reservation=5 * G), Node("b", reservation=1 * G, limit=2 * G), Node("c")))],
        10 * G)
    rates = allocate(tree, {"a": 1 * G, "b": math.inf, "c": math.inf})
    assert rates["a"] == pytest.approx(1 * G)
    assert rates["b"] == pytest.approx(2 * G)
    assert rates["c"] == pytest.approx(7 * G)


def test_short_capacity_goes_in_proportion_to_reservations():
    tree = Tree([Node("a", kind="class", reservation=3 * G), Node("b", kind="class", reservation=1 * G),
                 Node("c", kind="class")], 10 * G)
    rates = allocate(tree, {"a": math.inf, "b": math.inf, "c": math.inf}, available=2 * G)
    assert (rates["a"], rates["b"], rates["c"]) == pytest.approx((1.5 * G, 0.5 * G, 0.0))


def test_a_light_leaf_backlogged_is_served_at_its_share():
    """A leaf given infinite demand gets the rate it is served at while backlogged (its GPS
    rate), whatever it offers on average."""
    tree = Tree([Node("voice", kind="class"), Node("flood", kind="class")], G)
    assert allocate(tree, {"voice": math.inf, "flood": math.inf})["voice"] == pytest.approx(G / 2)


@pytest.mark.parametrize("demands, pattern", [
    ({"nope": 1.0}, "demands.nope: the name of a leaf"),
    ({"a": -1.0}, "demands.a: a non-negative rate"),
    ({"a": math.nan}, "demands.a"),
])
def test_bad_demands_are_refused(demands, pattern):
    tree = Tree([Node("a", kind="class")], G, source="scenario.toml")
    with pytest.raises(InputError, match=pattern):
        allocate(tree, demands)
