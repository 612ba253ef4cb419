"""htb's fluid sharing: rates first, then borrowing by prio and quantum up to the ceils."""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from vsim.net.uplink.htb_allocator import allocate
from vsim.net.uplink.htb_tree import HtbClass, HtbTree

LINK = 1e7
TOL = 1e-6 * LINK


@st.composite
def leaves(draw, budget, top, prios=(0,), prefix="l"):
    """Leaf classes whose rates add up to at most ``budget``, ceils up to ``top``."""
    n = draw(st.integers(2, 5))
    weights = np.array(draw(st.lists(st.floats(0.05, 1.0), min_size=n, max_size=n)))
    rates = weights / weights.sum() * budget * draw(st.floats(0.1, 1.0))
    out = []
    for i, rate in enumerate(rates):
        ceil = rate + draw(st.floats(0.0, 1.0)) * (top - rate)
        out.append(HtbClass(f"{prefix}{i}", float(rate), ceil=float(ceil),
                            quantum=float(draw(st.integers(1000, 20_000))),
                            prio=draw(st.sampled_from(prios))))
    return out


def demand_for(draw, names):
    kinds = st.one_of(st.just(math.inf), st.just(0.0), st.floats(0.0, 1.5 * LINK))
    return {name: draw(kinds) for name in names}


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_one_level_rates_ceils_and_quantum_shares(data):
    kids = data.draw(leaves(LINK, LINK))
    tree = HtbTree([HtbClass("root", LINK, children=tuple(kids))])
    demand = demand_for(data.draw, tree.leaves)
    got = allocate(tree, demand)
    rate = np.array([tree.rate[n] for n in tree.leaves])
    ceil = np.array([tree.ceil[n] for n in tree.leaves])
    want = np.array([demand[n] for n in tree.leaves])
    quantum = np.array([tree.quantum[n] for n in tree.leaves])
    alloc = np.array([got[n] for n in tree.leaves])
    # every class gets what it asks up to its rate, and never more than its ceil or its demand
    assert np.all(alloc >= np.minimum(want, rate) - TOL)
    assert np.all(alloc <= np.minimum(want, ceil) + TOL)
    # the root cannot borrow: the classes together send at most its rate
    assert alloc.sum() <= LINK + TOL and got["root"] == pytest.approx(alloc.sum())
    unsatisfied = alloc < np.minimum(want, ceil) - TOL
    if unsatisfied.any():
        # nothing is left idle while a class wants more ...
        assert alloc.sum() == pytest.approx(LINK, rel=1e-9)
        # ... and the borrowed part is shared in proportion to quantum among those that want more
        extra = (alloc - np.minimum(want, rate)) / quantum
        level = extra[unsatisfied]
        assert np.allclose(level, level[0], rtol=1e-6, atol=1e-6)
        assert np.all(extra[~unsatisfied] <= level[0] + 1e-6)


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_a_higher_prio_number_borrows_only_what_the_lower_ones_leave(data):
    kids = data.draw(leaves(LINK, LINK, prios=(0, 1)))
    tree = HtbTree([HtbClass("root", LINK, children=tuple(kids))])
    demand = demand_for(data.draw, tree.leaves)
    got = allocate(tree, demand)
    extra = {n: got[n] - min(demand[n], tree.rate[n]) for n in tree.leaves}
    if any(extra[n] > TOL for n in tree.leaves if tree.prio[n] == 1):
        for n in tree.leaves:
            if tree.prio[n] == 0:
                assert got[n] == pytest.approx(min(demand[n], tree.ceil[n]), abs=TOL)


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_two_levels_respect_every_ceil_and_fill_the_root(data):
    split = data.draw(st.floats(0.2, 0.8))
    inner = []
    for name, share in (("A", split), ("B", 1 - split)):
        rate = share * LINK
        ceil = rate + data.draw(st.floats(0.0, 1.0)) * (LINK - rate)
        kids = data.draw(leaves(rate, ceil, prefix=name))
        inner.append(HtbClass(name, rate, ceil=ceil, children=tuple(kids)))
    tree = HtbTree([HtbClass("root", LINK, children=tuple(inner))])
    demand = demand_for(data.draw, tree.leaves)
    got = allocate(tree, demand)
    for name in tree.by_name:
        assert got[name] <= tree.ceil[name] + TOL
        under = tree.leaves_under(name)
        assert got[name] == pytest.approx(sum(got[leaf] for leaf in under), abs=TOL)
        if name in tree.leaves:
            assert got[name] >= min(demand[name], tree.rate[name]) - TOL
            assert got[name] <= demand[name] + TOL
    # a leaf that could take more under every ceil on its way means the root is full
    for leaf in tree.leaves:
        path = [leaf, tree.parent[leaf]]
        room = min(min(demand[leaf], tree.ceil[leaf]) - got[leaf], tree.ceil[path[1]] - got[path[1]])
        if room > TOL:
            assert got["root"] == pytest.approx(LINK, rel=1e-9)


def test_rates_then_quantum_then_prio_in_numbers():
    tree = HtbTree([HtbClass("root", 10e6, children=(
        HtbClass("a", 2e6, ceil=10e6, quantum=1000), HtbClass("b", 3e6, ceil=10e6, quantum=3000),
        HtbClass("c", 1e6, ceil=2e6, prio=1)))])
    backlogged = allocate(tree, {"a": math.inf, "b": math.inf, "c": math.inf})
    # 4 Mb/s left over the rates goes to a and b (prio 0) a quarter and three quarters
    assert backlogged == pytest.approx({"root": 10e6, "a": 3e6, "b": 6e6, "c": 1e6})
    light = allocate(tree, {"a": 1e6, "b": 7e6, "c": math.inf})
    # b is satisfied; what it leaves goes to c, up to c's ceil
    assert light == pytest.approx({"root": 10e6, "a": 1e6, "b": 7e6, "c": 2e6})


def test_an_inner_class_lends_before_the_root_and_the_link_caps_the_total():
    tree = HtbTree([HtbClass("root", 10e6, children=(
        HtbClass("A", 4e6, ceil=10e6, children=(HtbClass("a1", 1e6, ceil=10e6),
                                                 HtbClass("a2", 1e6, ceil=10e6, quantum=3000))),
        HtbClass("b", 6e6)))])
    got = allocate(tree, {"a1": math.inf, "a2": math.inf, "b": 1e6})
    # A lends its 2 Mb/s spare to a1 and a2 (quantum 12 500 against 3000), the root its 5 Mb/s
    assert got["A"] == pytest.approx(9e6) and got["b"] == pytest.approx(1e6)
    assert got["a1"] + got["a2"] == pytest.approx(9e6)
    capped = allocate(tree, {"a1": math.inf, "a2": math.inf, "b": 1e6}, capacity=5e6)
    assert sum(capped[n] for n in ("a1", "a2", "b")) == pytest.approx(5e6)
