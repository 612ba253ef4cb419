"""Admission: packing port reservations into uplinks, and a host's refusals."""

import itertools

from hypothesis import given, settings, strategies as st

from vsim.cluster.admission import Capacity, Demand, pack, pool_overdraft, refusal, within


def _brute_pack(capacity, bins, sizes):
    """Whether some assignment of ``sizes`` to ``bins`` keeps every bin within ``capacity``."""
    for where in itertools.product(range(bins), repeat=len(sizes)):
        loads = [0.0] * bins
        for b, size in zip(where, sizes):
            loads[b] += size
        if all(within(load, capacity) for load in loads):
            return True
    return False


@settings(max_examples=300)
@given(st.integers(1, 3), st.lists(st.sampled_from([0.0, 1.0, 2.0, 2.5, 3.0, 4.5, 5.0, 7.5]), max_size=6),
       st.sampled_from([5.0, 7.5, 10.0]))
def test_pack_finds_a_packing_exactly_when_one_exists(bins, sizes, capacity):
    where = pack(capacity, bins, sizes)
    assert (where is not None) == _brute_pack(capacity, bins, sizes)
    if where is not None:
        loads = [sum(s for s, b in zip(sizes, where) if b == k) for k in range(bins)]
        assert all(within(load, capacity) for load in loads) and all(0 <= b < bins for b in where)


def test_reservations_adding_up_exactly_to_the_capacity_are_admitted():
    assert within(7.5e9 + 4.5e9 + 3e9, 15e9)
    assert pool_overdraft(15e9, [7.5e9, 4.5e9, 3e9]) == 0
    assert pool_overdraft(15e9, [7.5e9, 4.5e9, 4e9]) == 1e9


def test_a_host_refuses_what_its_uplink_or_cores_cannot_hold_and_says_what():
    host = Capacity(cpu=12, port_bandwidth=7.5e9, uplinks=1)
    assert refusal(host, [Demand(bandwidth=7.5e9), Demand(bandwidth=3e9)]) == \
        "10.5 Gb/s of port reservations on an uplink reserving 7.5 Gb/s for VM traffic"
    assert refusal(host, [Demand(cpu=8), Demand(cpu=5)]) == "13 CPUs reserved of its 12"
    assert refusal(host, [Demand(bandwidth=4.5e9), Demand(bandwidth=3e9)]) is None
    two = Capacity(cpu=12, port_bandwidth=5e9, uplinks=2)
    assert refusal(two, [Demand(bandwidth=4e9), Demand(bandwidth=4e9)]) is None
    assert "do not fit its 2 uplinks" in refusal(two, [Demand(bandwidth=4e9)] * 3)


def test_unreserved_ports_spread_over_the_uplinks():
    assert pack(5.0, 2, [0.0, 0.0, 0.0, 0.0]) == [0, 1, 0, 1]
    assert pack(5.0, 2, [4.0, 0.0, 0.0]) == [0, 1, 0]
