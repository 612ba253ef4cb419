"""The balancer's search: exact against trying every placement, on random small clusters."""

import itertools

from hypothesis import given, settings, strategies as st

from vsim.cluster.admission import Capacity, Demand, refusal
from vsim.cluster.placement import DEPTH, Unit, plan, waves

HOSTS = ("h1", "h2", "h3")


def _valid(capacities, units, hosts):
    """Whether ``hosts`` (one per unit) meets every reservation and rule."""
    for name, capacity in capacities.items():
        demands = [d for unit, host in zip(units, hosts) if host == name for d in unit.demands]
        if refusal(capacity, demands) is not None:
            return False
    for i, unit in enumerate(units):
        if unit.allowed is not None and hosts[i] not in unit.allowed:
            return False
        if any(hosts[j] == hosts[i] for j in unit.apart):
            return False
    moved = any(unit.current is not None and host != unit.current for unit, host in zip(units, hosts))
    return not moved or waves(capacities, units, hosts) is not None


def _cost(units, hosts):
    moved = [i for i, unit in enumerate(units) if unit.current is not None and hosts[i] != unit.current]
    return len(moved), sum(units[i].memory for i in moved)


def _best(capacities, units):
    """The least cost of every valid placement, by trying them all (None: none is valid)."""
    costs = [_cost(units, hosts) for hosts in itertools.product(list(capacities), repeat=len(units))
             if _valid(capacities, units, hosts)]
    return min(costs) if costs else None


@st.composite
def clusters(draw):
    n_hosts = draw(st.integers(1, 3))
    names = HOSTS[:n_hosts]
    capacities = {name: Capacity(draw(st.sampled_from([2.0, 4.0, 12.0])), draw(st.sampled_from([5e9, 7.5e9])),
                                 draw(st.integers(1, 2))) for name in names}
    units = []
    n_units = draw(st.integers(1, 5))
    for i in range(n_units):
        demands = tuple(Demand(draw(st.sampled_from([0.0, 1.0, 2.0])),
                               draw(st.sampled_from([0.0, 1e9, 3e9, 4.5e9, 7.5e9])))
                        for _ in range(draw(st.integers(1, 2))))
        current = draw(st.sampled_from((None,) + names))
        allowed = draw(st.sampled_from([None, (current,) if current else None, (names[0],)]))
        apart = frozenset(j for j in range(i) if draw(st.booleans()) and draw(st.booleans()))
        held = None if current is None or draw(st.booleans()) else tuple(
            Demand(d.cpu, d.bandwidth / 2) for d in demands)  # a faulted unit holds less than it wants
        units.append(Unit((f"vm{i}",), demands, draw(st.sampled_from([1024.0, 2048.0])), current,
                          allowed, apart, held))
    # apart_from is symmetric
    units = [Unit(u.vms, u.demands, u.memory, u.current, u.allowed,
                  u.apart | frozenset(j for j, v in enumerate(units) if i in v.apart), u.held)
             for i, u in enumerate(units)]
    return capacities, units


@settings(max_examples=400)
@given(clusters())
def test_the_search_meets_every_reservation_when_a_placement_does_and_says_so_when_none_does(cluster):
    capacities, units = cluster
    found = plan(capacities, units)
    best = _best(capacities, units)
    assert found.found == (best is not None), found.reason
    if found.found:
        assert _valid(capacities, units, found.hosts)
        assert _cost(units, found.hosts) == best  # fewest moves, then least memory moved
        assert len(found.moves) == best[0]
    else:
        assert found.reason


def test_a_fault_moves_the_unit_listed_last_when_moving_either_costs_the_same():
    capacities = {"host1": Capacity(24, 7.5e9, 1), "host2": Capacity(24, 7.5e9, 1)}
    units = [Unit(("vm1",), (Demand(0, 7.5e9),), 2048, "host1"),
             Unit(("vm3",), (Demand(),), 2048, "host1"),
             Unit(("vm2",), (Demand(0, 4.5e9),), 2048, "host1")]
    found = plan(capacities, units)
    assert found.found and found.moves == ((2, "host1", "host2"),)


def test_none_found_says_why():
    capacities = {"host1": Capacity(24, 7.5e9, 1), "host2": Capacity(24, 7.5e9, 1)}
    alone = plan(capacities, [Unit(("big",), (Demand(0, 8e9),), 2048, None)])
    assert not alone.found and alone.reason.startswith("big fits no host even alone (host1: 8 Gb/s")
    three = [Unit((f"vm{i}",), (Demand(0, 5e9),), 2048, None) for i in range(3)]
    assert "the VMs' ports reserve 15 Gb/s, the hosts' uplinks 15 Gb/s" not in plan(capacities, three).reason
    assert plan(capacities, three).reason == ("no placement of the 3 VMs on the 2 hosts meets every "
                                              "reservation (every placement tried)")
    four = [Unit((f"vm{i}",), (Demand(0, 5e9),), 2048, None) for i in range(4)]
    assert plan(capacities, four).reason == "the VMs' ports reserve 20 Gb/s, the hosts' uplinks 15 Gb/s for VM traffic"


def test_a_search_over_its_budget_says_it_gave_up():
    capacities = {name: Capacity(24, 7.5e9, 1) for name in ("a", "b", "c")}
    units = [Unit((f"vm{i}",), (Demand(0, 2.2e9),), 2048, None) for i in range(10)]
    found = plan(capacities, units, budget=50)
    assert not found.found and "gave up" in found.reason


def test_two_full_hosts_cannot_swap_vms_at_once_but_can_one_after_the_other():
    capacities = {"host1": Capacity(24, 7.5e9, 1), "host2": Capacity(24, 7.5e9, 1)}
    gbps = lambda *rates: tuple(Demand(0, r * 1e9) for r in rates)
    # host1 holds 2.5 + 1, host2 2.5 (wanting 6) + 4.5: swapping vm2 and vm4 ends valid, but
    # neither host can take its newcomer before the other has left
    units = [Unit(("vm1",), gbps(2.5), 2048, "host1"), Unit(("vm2",), gbps(1), 2048, "host1"),
             Unit(("vm3",), gbps(6), 2048, "host2", held=gbps(2.5)), Unit(("vm4",), gbps(4.5), 2048, "host2")]
    assert waves(capacities, units, ["host2", "host1", "host1", "host1"]) is None
    assert waves(capacities, units, ["host1", "host2", "host2", "host1"]) is None
    # vm3 moves first holding its 2.5, then vm1, and vm3's 6 fits once vm1 has gone
    steps = waves(capacities, units, ["host2", "host1", "host1", "host2"])
    assert steps == (((2, gbps(2.5)),), ((0, gbps(2.5)),))
    found = plan(capacities, units)
    assert found.found and found.hosts == ("host2", "host1", "host1", "host2") and found.waves == steps


def test_a_search_over_its_budget_falls_back_on_moving_vms_one_by_one():
    """vm0 (6 Gb/s wanted, 1 held) cannot stay beside vm1's 2; with no budget the search finds
    nothing, and the greedy placement moves vm1 (listed last) to host2, where it fits."""
    capacities = {"host1": Capacity(24, 7.5e9, 1), "host2": Capacity(24, 7.5e9, 1)}
    units = [Unit(("vm0",), (Demand(0, 6e9),), 2048, "host1", held=(Demand(0, 1e9),)),
             Unit(("vm2",), (Demand(0, 5e9),), 2048, "host2"),
             Unit(("vm1",), (Demand(0, 2e9),), 2048, "host1")]
    exact = plan(capacities, units)
    assert exact.how == "exact" and exact.hosts == ("host1", "host2", "host2")
    quick = plan(capacities, units, budget=0)
    assert quick.found and quick.how == "greedy" and _valid(capacities, units, quick.hosts)
    assert quick.moves == ((2, "host1", "host2"),)


@settings(max_examples=300)
@given(clusters())
def test_a_greedy_placement_meets_every_reservation_and_rule(cluster):
    capacities, units = cluster
    quick = plan(capacities, units, budget=0)
    if quick.found:
        assert quick.how == "greedy" and _valid(capacities, units, quick.hosts)
        assert waves(capacities, units, quick.hosts) == quick.waves


def test_more_units_than_the_search_takes_are_placed_greedily():
    capacities = {"host1": Capacity(24, 7.5e9, 1), "host2": Capacity(24, 7.5e9, 1)}
    units = [Unit((f"vm{i}",), (Demand(0, 1e7),), 512, None) for i in range(DEPTH + 1)]
    found = plan(capacities, units)
    assert found.found and found.how == "greedy" and "too many to try" in found.how_found()
    assert _valid(capacities, units, found.hosts)
    assert abs(found.hosts.count("host1") - found.hosts.count("host2")) <= 1  # the least loaded first
