"""Uplink schedulers: registry, FIFO against the exact FIFO link, isolation and shares."""


import numpy as np
import pytest

from reference_fifo_link import FifoLink
from vsim.core.errors import InputError
from vsim.net.fluid.flows import Flows
from vsim.net.hclock.allocator import allocate
from vsim.net.hclock.tree import Node, Tree
from vsim.net.txpath.cost import PathCost, service_time
from vsim.net.uplink import SCHEDULERS, make_uplink_scheduler

GIGABIT = 1e9
FLOOD_IP = 264     # 880 Mb/s of 282-byte frames at 390 K packets/s (seed 000)


def rng(seed=1):
    return np.random.default_rng(seed)


def test_registry_names_and_unknown_name():
    assert {"fifo", "multiqueue", "netioc"} <= set(SCHEDULERS)
    with pytest.raises(ValueError, match="unknown uplink scheduler 'wfq'.*fifo"):
        make_uplink_scheduler("wfq", GIGABIT, 100, rng=rng())


def test_fifo_frames_match_the_exact_fifo_link():
    r = rng(2)
    sizes = r.choice([60, 1500, 576], size=20_000)
    times = np.cumsum(r.exponential(service_time(sizes, GIGABIT).mean() / 1.2, sizes.size))
    fifo = make_uplink_scheduler("fifo", GIGABIT, 50, rng=rng(), latency=1e-5)
    link = FifoLink(GIGABIT, buffer_packets=49, latency=1e-5)
    got = np.concatenate([fifo.transmit(t, s, 0, 0) for t, s in
                          zip(np.array_split(times, 40), np.array_split(sizes, 40))])
    want = np.concatenate([link.offer(t, s)[0] for t, s in
                           zip(np.array_split(times, 40), np.array_split(sizes, 40))])
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.allclose(got[~np.isnan(got)], want[~np.isnan(want)], rtol=0, atol=1e-12)
    assert fifo.frames_dropped == link.dropped > 0


def test_transmit_stage_cost_sets_the_service_of_small_frames():
    fifo = make_uplink_scheduler("fifo", GIGABIT, 10, rng=rng(), cost=PathCost(per_packet=2.75e-6))
    out = fifo.transmit([0.0, 0.0], [60, 1500], 0, 0)
    assert out == pytest.approx([2.75e-6, 2.75e-6 + 1538 * 8 / GIGABIT])


@pytest.mark.parametrize("times", [[0.0, 2e-3, 1e-3], [0.0, float("nan"), 1e-3], [1e-3, 1e-3, 5e-4]])
def test_frames_out_of_order_or_not_a_time_are_refused(times):
    fifo = make_uplink_scheduler("fifo", GIGABIT, 10, rng=rng())
    with pytest.raises(ValueError, match="sorted"):
        fifo.transmit(times, 200, 0, 0)


def test_frames_before_those_already_handed_are_refused():
    fifo = make_uplink_scheduler("fifo", GIGABIT, 10, rng=rng())
    fifo.transmit([1e-3, 1e-3], 200, 0, 0)
    with pytest.raises(ValueError, match="not earlier"):
        fifo.transmit([5e-4], 200, 0, 0)


def flood_and_voice(voice_port=0):
    return Flows.of([97_500] * 4 + [6_000], [FLOOD_IP] * 4 + [60], 0,
                    [1, 2, 3, 4, voice_port], discrete=[False] * 4 + [True])


def test_fifo_fluid_loses_the_same_fraction_of_every_flow():
    fifo = make_uplink_scheduler("fifo", GIGABIT, 1024, rng=rng(),
                                 cost=PathCost(per_packet=1 / 363_000))
    flows = Flows.of([100_000, 200_000, 90_000], [FLOOD_IP, 100, 1000], 0, [1, 2, 3])
    fifo.set_flows(0.0, flows)
    work = flows.pps * service_time(flows.ip_bytes, GIGABIT, fifo.cost)
    kept = fifo.flow_rates / flows.pps
    assert np.allclose(kept, 1 / work.sum())
    fifo.advance(5.0)
    lost = 1 - fifo.fluid_accepted_work / fifo.fluid_offered_work
    assert lost == pytest.approx(1 - 1 / work.sum(), rel=2e-3)


def test_elastic_flows_take_what_the_rigid_ones_leave():
    fifo = make_uplink_scheduler("fifo", GIGABIT, 1024, rng=rng())
    tcp_pps = GIGABIT / (1538 * 8)
    flows = Flows.of([tcp_pps, tcp_pps, 20_000], [1500, 1500, 1000], 0, [1, 2, 3],
                     elastic=[True, True, False])
    fifo.set_flows(0.0, flows)
    udp_share = 20_000 * 1038 * 8 / GIGABIT
    assert fifo.flow_rates[:2] == pytest.approx([(1 - udp_share) / 2 * tcp_pps] * 2)
    fifo.advance(1.0)
    assert fifo.fluid_accepted_work == pytest.approx(fifo.fluid_offered_work)


def voice_tree():
    flood = tuple(Node(f"f{i}") for i in range(1, 5))
    return Tree([Node("vm", kind="class", children=(
        Node("voice", kind="pool", children=(Node("v",),)),
        Node("flood", kind="pool", children=flood)))], GIGABIT)


def netioc(seed=1, **kwargs):
    return make_uplink_scheduler(
        "netioc", GIGABIT, 1024, rng=rng(seed), cost=PathCost(per_packet=1 / 363_000),
        tree=voice_tree(), port_leaf={0: "v", 1: "f1", 2: "f2", 3: "f3", 4: "f4"}, **kwargs)


def voice_ticks(scheduler, duration, spacing=2.75e-6, seed=3):
    r = rng(seed)
    ticks = np.arange(0.0, duration, 0.02) + r.uniform(0, 1e-3, int(round(duration / 0.02)))
    sent = []
    for t in ticks:
        times = t + np.arange(120) * spacing
        sent.append(scheduler.transmit(times, 60, 0, 0) - times)
    return np.concatenate(sent)


def test_netioc_isolates_voice_from_the_flood_and_fifo_does_not():
    sched = netioc()
    sched.set_flows(0.0, flood_and_voice())
    delay = voice_ticks(sched, 2.0)
    assert not np.isnan(delay).any()
    # the voice pool is served at half the link while it has frames: 120 frames in 0.66 ms
    assert np.max(delay) < 120 * 2 * 2.76e-6 + 1e-4
    fifo = make_uplink_scheduler("fifo", GIGABIT, 1024, rng=rng(),
                                 cost=PathCost(per_packet=1 / 363_000))
    fifo.set_flows(0.0, flood_and_voice())
    assert np.isnan(voice_ticks(fifo, 2.0)).mean() > 0.05


def test_netioc_fluid_rates_are_the_allocation():
    sched = netioc()
    sched.set_flows(0.0, flood_and_voice())
    work = service_time(FLOOD_IP, GIGABIT, sched.cost)
    voice_work = 6000 * service_time(60, GIGABIT, sched.cost)
    each = (1 - voice_work) / 4
    assert sched.flow_rates[:4] == pytest.approx([each / work] * 4)
    sched.advance(3.0)
    lost = 1 - sched.fluid_accepted_work / sched.fluid_offered_work
    fill = 1024 * work / (97_500 * work - each)      # each flood port's queue filling up
    assert lost == pytest.approx((1 - each / (97_500 * work)) * (1 - fill / 3.0), rel=1e-6)


def test_packet_shares_follow_the_fluid_allocation_within_one_percent():
    """Three ports offering frames (Poisson) at 0.6 of the link each: the frames they get
    through over a long run are the hClock allocation's rates, in the bytes NetIOC counts
    (Ethernet header and IP packet) of what the link carries of them."""
    tree = Tree([Node("vm", kind="class", reservation=3e8, children=(
        Node("a", shares=25, reservation=3e8), Node("b", shares=50), Node("c", shares=100)))],
        GIGABIT)
    sched = make_uplink_scheduler("netioc", GIGABIT, 200, rng=rng(4), tree=tree,
                                  port_leaf={1: "a", 2: "b", 3: "c"})
    work = service_time(1000, GIGABIT)
    pps = 0.6 / work
    sched.set_flows(0.0, Flows.of([pps] * 3, 1000, 0, [1, 2, 3], discrete=True))
    r = rng(5)
    duration, warmup = 0.1, 0.01
    times = [np.sort(r.uniform(0, duration, r.poisson(pps * duration))) for _ in range(3)]
    ports = np.concatenate([np.full(t.size, p) for t, p in zip(times, (1, 2, 3))])
    arrival = np.concatenate(times)
    order = np.argsort(arrival, kind="stable")
    departures = np.empty(arrival.size)
    for chunk in np.array_split(order, 200):
        departures[chunk] = sched.transmit(arrival[chunk], 1000, 0, ports[chunk])
    window = (departures > warmup) & (departures <= duration)
    got = np.array([np.count_nonzero(window & (ports == p))
                    for p in (1, 2, 3)]) * work / (duration - warmup)
    counted = (1000 + 14) * 8 / (work * GIGABIT)      # counted bits per bit of link time
    want = allocate(tree, {n: pps * (1000 + 14) * 8 for n in "abc"}, GIGABIT * counted)
    expected = np.array([want[n] for n in "abc"]) / (GIGABIT * counted)
    assert got == pytest.approx(expected, rel=0.01)


def test_multiqueue_spreads_ports_and_shares_equally_when_all_are_busy():
    sched = make_uplink_scheduler("multiqueue", GIGABIT, 100, rng=rng(), queues=4)
    index = sched.queue_index(np.zeros(64, int), np.arange(64))
    assert np.bincount(index, minlength=4).min() >= 12
    busy = Flows.of([1e6] * 64, 1500, 0, np.arange(64))
    sched.set_flows(0.0, busy)
    assert sched.rates == pytest.approx([0.25] * 4)
    light = Flows.of([1000.0, 1e6], 1500, 0, [0, 1])
    sched.set_flows(1.0, light)
    q = sched.queue_index(np.zeros(2, int), np.array([0, 1]))
    assert q[0] != q[1]
    # a nearly idle queue is served fast while it has frames; the busy one takes the rest
    assert sched.rates[q[1]] == pytest.approx(1 - 1000 * service_time(1500, GIGABIT))
    assert sched.rates[q[0]] == pytest.approx(0.5)


@pytest.mark.parametrize("name", ["fifo", "multiqueue", "netioc"])
def test_frames_sent_are_delivered_dropped_or_queued(name):
    kwargs = {"tree": voice_tree(), "port_leaf": {0: "v", 1: "f1", 2: "f2", 3: "f3", 4: "f4"}} \
        if name == "netioc" else {}
    sched = make_uplink_scheduler(name, GIGABIT, 64, rng=rng(6),
                                  cost=PathCost(per_packet=1 / 363_000), **kwargs)
    sched.set_flows(0.0, flood_and_voice())
    r = rng(7)
    sent, departures = 0, []
    for t in np.arange(0.0, 0.3, 0.002):
        times = t + np.sort(r.uniform(0, 1e-3, 50))
        ports = r.integers(0, 5, 50)
        departures.append(sched.transmit(times, 200, 0, ports))
        sent += 50
    end = 0.3
    sched.advance(end)
    d = np.concatenate(departures)
    delivered = np.count_nonzero(d <= end)
    queued = sched.frames_in_system(end)
    assert sent == sched.frames_offered == delivered + sched.frames_dropped + queued
    assert np.count_nonzero(np.isnan(d)) == sched.frames_dropped


@pytest.mark.parametrize("name", ["fifo", "multiqueue", "netioc"])
def test_same_seed_same_output(name):
    def run():
        kwargs = {"tree": voice_tree(), "port_leaf": {0: "v", 1: "f1", 2: "f2", 3: "f3", 4: "f4"}} \
            if name == "netioc" else {}
        sched = make_uplink_scheduler(name, GIGABIT, 256, rng=rng(8),
                                      cost=PathCost(per_packet=1 / 363_000), **kwargs)
        sched.set_flows(0.0, flood_and_voice())
        return voice_ticks(sched, 0.4)
    assert np.array_equal(run(), run(), equal_nan=True)


def test_frames_must_come_in_time_order():
    fifo = make_uplink_scheduler("fifo", GIGABIT, 10, rng=rng())
    fifo.transmit([1.0], 100, 0, 0)
    with pytest.raises(ValueError, match="sorted"):
        fifo.transmit([0.5], 100, 0, 0)
    with pytest.raises(ValueError, match="not mapped"):
        netioc().transmit([0.0], 100, 0, 9)


def test_a_port_mapped_to_no_leaf_is_refused_naming_it():
    tree = Tree([Node("vm", kind="class", children=(Node("a"),))], GIGABIT, source="net.toml")
    with pytest.raises(InputError, match=r"net.toml: port_leaf.7: a leaf of the NetIOC tree.*'b'"):
        make_uplink_scheduler("netioc", GIGABIT, 10, rng=rng(), tree=tree, port_leaf={7: "b"})


@pytest.mark.parametrize("name", ["multiqueue", "netioc"])
@pytest.mark.parametrize("seed", range(6))
def test_a_port_s_lone_frames_leave_in_order_and_each_is_counted_somewhere(name, seed):
    """A frame may wait for another queue's frame on the wire. That wait was drawn per call and
    added to the departure alone, so a port's next frame could overtake it, and while it waited
    it counted neither as delivered nor as in the system."""
    kwargs = {"tree": voice_tree(), "port_leaf": {0: "v", 1: "f1", 2: "f2", 3: "f3", 4: "f4"}} \
        if name == "netioc" else {"queues": 2}
    sched = make_uplink_scheduler(name, GIGABIT, 1000, rng=rng(seed), **kwargs)
    other = 1 if name == "netioc" else next(
        port for port in (1, 2, 3) if sched.queue_index(np.zeros(1, int), np.array([port]))[0]
        != sched.queue_index(np.zeros(1, int), np.array([0]))[0])
    sched.set_flows(0.0, Flows.of([0.45 / service_time(1500, GIGABIT)], [1500], 0, [other]))
    times = 1e-3 + np.arange(400) * 2e-7
    departures = np.array([sched.transmit([t], 60, 0, 0)[0] for t in times])
    assert np.all(np.diff(departures) >= 0)
    for end in np.linspace(times[-1], departures.max(), 25):  # the queues know no earlier times
        sched.advance(end)
        assert np.count_nonzero(departures <= end) + sched.frames_in_system(end) == len(times)


def test_frames_of_one_netioc_pass_leave_a_wire_time_apart():
    """Frames waiting at their port for one dispatch went to the wire together, faster than it
    sends them."""
    sched = netioc(completion_hold=20e-6)
    first = sched.transmit([0.0], 1500, 0, 1)[0]
    rest = sched.transmit([2e-6, 4e-6, 6e-6], 1500, 0, 1)
    wire = sched.work(1500)
    signal = first + 20e-6  # the first frame's completion, held 20 us
    assert rest == pytest.approx(signal + wire * np.arange(1, 4))
