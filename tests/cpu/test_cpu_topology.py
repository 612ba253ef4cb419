"""Host topology: logical CPU numbering, sibling sets, core/socket mapping and HT rate."""

import pytest
from hypothesis import given, settings, strategies as st

from vsim.cpu.topology import Topology

shapes = st.tuples(st.integers(1, 4), st.integers(1, 8), st.integers(1, 4),
                   st.floats(0.05, 1.0, allow_nan=False))


def test_r710_shape_counts_and_sibling_pairs():
    topo = Topology(2, 4, 2, 0.62)
    assert topo.cores == 8
    assert topo.logical_cpus == 16
    assert [topo.siblings(i) for i in range(4)] == [(1,), (0,), (3,), (2,)]
    assert [topo.core_of(i) for i in range(16)] == [i // 2 for i in range(16)]
    assert [topo.socket_of(i) for i in range(16)] == [0] * 8 + [1] * 8


def test_without_hyperthreading_a_logical_cpu_is_a_core_and_has_no_siblings():
    topo = Topology(2, 4, 1, 0.62)
    assert topo.logical_cpus == topo.cores == 8
    assert all(topo.siblings(i) == () for i in range(8))
    assert [topo.core_of(i) for i in range(8)] == list(range(8))
    assert [topo.socket_of(i) for i in range(8)] == [0, 0, 0, 0, 1, 1, 1, 1]


@pytest.mark.parametrize("ht_rate", [0.5, 0.62, 1.0])
def test_rate_is_whole_core_alone_and_ht_rate_with_a_busy_sibling(ht_rate):
    topo = Topology(1, 1, 2, ht_rate)
    assert topo.rate(0) == 1.0
    assert topo.rate(1) == ht_rate
    assert 2 * topo.rate(1) == pytest.approx(2 * ht_rate)


@settings(max_examples=60, deadline=None)
@given(shapes)
def test_numbering_is_socket_major_then_core_then_thread(shape):
    sockets, cores, threads, ht = shape
    topo = Topology(sockets, cores, threads, ht)
    assert topo.cores == sockets * cores
    assert topo.logical_cpus == sockets * cores * threads
    lcpu = 0
    for s in range(sockets):
        for c in range(cores):
            for _t in range(threads):
                assert topo.socket_of(lcpu) == s
                assert topo.core_of(lcpu) == s * cores + c
                lcpu += 1
    assert lcpu == topo.logical_cpus


@settings(max_examples=60, deadline=None)
@given(shapes)
def test_siblings_are_the_other_adjacent_threads_of_the_same_core(shape):
    sockets, cores, threads, ht = shape
    topo = Topology(sockets, cores, threads, ht)
    for lcpu in range(topo.logical_cpus):
        sibs = topo.siblings(lcpu)
        assert lcpu not in sibs
        assert len(sibs) == threads - 1
        assert len(set(sibs)) == len(sibs)
        assert all(topo.core_of(s) == topo.core_of(lcpu) for s in sibs)
        assert all(0 <= s < topo.logical_cpus for s in sibs)
        # adjacency: the whole core's threads form one contiguous block
        block = sorted(sibs + (lcpu,))
        assert block == list(range(block[0], block[0] + threads))
        assert block[0] % threads == 0
        # symmetric relation
        assert all(lcpu in topo.siblings(s) for s in sibs)
    # every core has exactly `threads` logical CPUs and every socket `cores * threads`
    per_core = [0] * topo.cores
    per_socket = [0] * sockets
    for lcpu in range(topo.logical_cpus):
        per_core[topo.core_of(lcpu)] += 1
        per_socket[topo.socket_of(lcpu)] += 1
    assert per_core == [threads] * topo.cores
    assert per_socket == [cores * threads] * sockets


@settings(max_examples=30, deadline=None)
@given(st.floats(0.05, 1.0, allow_nan=False), st.integers(1, 3))
def test_rate_depends_only_on_whether_a_sibling_is_busy(ht, busy):
    topo = Topology(1, 1, 4, ht)
    assert topo.rate(0) == 1.0
    assert topo.rate(busy) == ht


def test_topology_is_immutable_and_hashable():
    topo = Topology(1, 2, 2, 0.6)
    with pytest.raises(Exception):
        topo.sockets = 3
    assert Topology(1, 2, 2, 0.6) == topo
    assert hash(Topology(1, 2, 2, 0.6)) == hash(topo)
