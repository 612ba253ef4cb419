"""htb as an uplink: filters, per-class queues served at the sharing's rates, isolation."""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from vsim.core.errors import InputError
from vsim.net.fluid.flows import Flows
from vsim.net.txpath.cost import PathCost
from vsim.net.uplink import make_uplink_scheduler
from vsim.net.uplink.htb_allocator import allocate
from vsim.net.uplink.htb_tree import HtbClass, HtbTree
from vsim.net.frames import MIN_PAYLOAD, wire_bytes
from vsim.net.uplink.tc_bytes import skb_len

VOICE_PORT, FLOOD_PORT, BULK_PORT = 5004, 9000, 9001


def probe_tree():
    """A probe's veth shaped to 10 Mb/s: voice guaranteed 1 Mb/s first, two bulk classes."""
    return HtbTree([HtbClass("root", 10e6, children=(
        HtbClass("voice", 1e6, ceil=10e6, prio=0),
        HtbClass("flood", 3e6, ceil=10e6, prio=1, quantum=1500),
        HtbClass("bulk", 3e6, ceil=8e6, prio=1, quantum=4500)))], source="probe.toml")


def htb(limit=100, port_leaf=None, **kwargs):
    port_leaf = port_leaf or {VOICE_PORT: "voice", FLOOD_PORT: "flood", BULK_PORT: "bulk"}
    return make_uplink_scheduler("htb", math.inf, limit, tree=probe_tree(),
                                 rng=np.random.default_rng(1), port_leaf=port_leaf, **kwargs)


def pps(bps, ip):
    return bps / 8 / skb_len(ip)


def test_fluid_rates_are_the_htb_sharing_in_skb_bytes():
    sched = htb()
    offered = {"voice": 0.2e6, "flood": 20e6, "bulk": 20e6}
    flows = Flows.of([pps(offered["voice"], 200), pps(20e6, 1000), pps(20e6, 1486)],
                     [200, 1000, 1486], 0, [VOICE_PORT, FLOOD_PORT, BULK_PORT])
    sched.set_flows(0.0, flows)
    want = allocate(probe_tree(), offered)
    got = sched.flow_rates * 8 * skb_len(flows.ip_bytes)
    assert got == pytest.approx([want["voice"], want["flood"], want["bulk"]])
    # voice whole; 9.8 - 6 = 3.8 Mb/s borrowed by flood and bulk, 1 : 3 by quantum
    assert want["flood"] == pytest.approx(3e6 + 0.95e6) and want["bulk"] == pytest.approx(3e6 + 2.85e6)


def test_voice_beside_a_flood_leaves_at_once_and_the_flood_loses_the_rest():
    sched = htb()
    sched.set_flows(0.0, Flows.of([pps(20e6, 1000), 50.0], [1000, 160], 0,
                                  [FLOOD_PORT, VOICE_PORT], discrete=[False, True]))
    voice = np.arange(0.0, 1.0, 0.02)
    delay = np.concatenate([sched.transmit([t], 160, 0, VOICE_PORT) - t for t in voice])
    # its own class is idle between frames: the bucket lets each frame straight through
    assert np.array_equal(delay, np.zeros(voice.size))
    # the flood gets the rest of the 10 Mb/s and loses what is beyond it once its queue is full;
    # it borrows, so its cburst also left at once on top of what its 100 places hold
    sched.advance(1.0)
    flood = 10e6 - 50 * skb_len(160) * 8
    backlog = (100 * skb_len(1000) + probe_tree().cburst["flood"]) * 8
    assert sched.fluid_accepted_work * sched.reference_bps == pytest.approx(flood + backlog, rel=1e-3)


def test_a_burst_into_an_idle_class_passes_its_bucket_then_the_class_rate():
    sched = htb()          # no flows declared: bulk is alone
    got = sched.transmit(np.zeros(8), 1000, 0, BULK_PORT)
    # alone, bulk borrows up to its 8 Mb/s ceil: its cburst (tc's default, about 1600 bytes)
    # and each frame's own length on credit pass at once, then one frame per 1014 bytes at 8 Mb/s
    length, bucket = skb_len(1000), probe_tree().cburst["bulk"]
    want = np.maximum(0.0, (np.arange(8) * length - bucket) * 8 / 8e6)
    assert got == pytest.approx(want)
    assert np.count_nonzero(got == 0.0) == 2


def test_packet_rates_of_busy_classes_follow_the_sharing():
    sched = htb(limit=50)
    ip = 1000
    sched.set_flows(0.0, Flows.of([pps(6e6, ip)] * 3, ip, 0, [VOICE_PORT, FLOOD_PORT, BULK_PORT],
                                  discrete=True))
    r = np.random.default_rng(4)
    duration, warmup = 1.0, 0.1
    ports = np.array([VOICE_PORT, FLOOD_PORT, BULK_PORT])
    times = [np.sort(r.uniform(0, duration, r.poisson(pps(6e6, ip) * duration))) for _ in ports]
    port = np.concatenate([np.full(t.size, p) for t, p in zip(times, ports)])
    arrival = np.concatenate(times)
    order = np.argsort(arrival, kind="stable")
    departures = np.empty(arrival.size)
    for chunk in np.array_split(order, 100):
        departures[chunk] = sched.transmit(arrival[chunk], ip, 0, port[chunk])
    window = (departures > warmup) & (departures <= duration)
    got = np.array([np.count_nonzero(window & (port == p)) for p in ports]) \
        * skb_len(ip) * 8 / (duration - warmup)
    want = allocate(probe_tree(), {"voice": 6e6, "flood": 6e6, "bulk": 6e6})
    assert got == pytest.approx([want["voice"], want["flood"], want["bulk"]], rel=0.02)


def test_filters_then_default_and_unclassified_traffic_is_refused():
    sched = htb(default="bulk", class_leaf={7: "voice"})
    index = sched.queue_index(np.array([7, 0, 0]), np.array([1, FLOOD_PORT, 2]))
    assert [sched.leaves[i] for i in index] == ["voice", "flood", "bulk"]
    with pytest.raises(ValueError, match="no default class"):
        htb().transmit([0.0], 100, 0, 1234)
    with pytest.raises(InputError, match=r"probe.toml: port_leaf.1: a leaf class .*'root'"):
        htb(port_leaf={1: "root"})
    with pytest.raises(InputError, match=r"probe.toml: default: a leaf class"):
        htb(default="nobody")
    with pytest.raises(ValueError, match="transmit-stage cost"):
        htb(cost=PathCost(per_packet=1e-6))


def test_leaf_queues_count_packets_or_skb_bytes_with_the_head_waiting_for_tokens():
    # alone, the flood borrows: its cburst and a frame on credit pass at once, then three
    # frames (3000 skb bytes) wait for tokens and fill the queue, as in the kernel; the queue
    # knows the frames' size from the flow declared
    bucket, length = probe_tree().cburst["flood"], skb_len(986)
    want = np.isnan(kernel_leaf(np.zeros(7), length, 10e6, bucket, 3)).tolist()
    assert want == [False] * 5 + [True] * 2
    for limit, unit in ((3, "packets"), (3000, "bytes")):
        sched = htb(limit=limit, unit=unit)
        sched.set_flows(0.0, Flows.of([1.0], [986], 0, [FLOOD_PORT], discrete=[True]))
        assert np.isnan(sched.transmit(np.zeros(7), 986, 0, FLOOD_PORT)).tolist() == want


@settings(max_examples=60, deadline=None)
@given(root=st.floats(1e6, 20e9), shares=st.lists(st.tuples(st.floats(0.01, 1.0), st.floats(1.0, 5.0)),
                                                  min_size=1, max_size=3),
       loads=st.lists(st.tuples(st.floats(0.0, 4e6), st.integers(28, 1500)), min_size=3, max_size=3),
       link=st.sampled_from([1e9, 10e9]))
def test_the_classes_never_send_more_than_the_wire_carries(root, shares, loads, link):
    leaves = [HtbClass(f"c{i}", root * rate / len(shares), ceil=min(root, root * rate * ceil))
              for i, (rate, ceil) in enumerate(shares)]
    tree = HtbTree([HtbClass("root", root, children=tuple(leaves))], source="t.toml")
    ports = list(range(len(loads)))
    sched = make_uplink_scheduler("htb", link, 100, tree=tree, rng=np.random.default_rng(1),
                                  port_leaf={p: f"c{p % len(leaves)}" for p in ports})
    pps_offered = [pps for pps, _ in loads]
    ip = [ip for _, ip in loads]
    sched.set_flows(0.0, Flows.of(pps_offered, ip, 1, ports))
    wire_bps = float(np.sum(sched.flow_rates * 8 * np.asarray(wire_bytes(np.asarray(ip)))))
    assert wire_bps <= link * (1 + 1e-9)
    assert sched.flow_rates.sum() <= link / (8 * wire_bytes(MIN_PAYLOAD)) * (1 + 1e-9)


def kernel_leaf(arrivals, length, rate, bucket, limit):
    """A reference htb leaf, packet by packet: a FIFO of ``limit`` packets (the head waiting
    for tokens counts) in front of a token bucket of ``bucket`` bytes at ``rate`` b/s that lets
    a packet go while its tokens are not negative and charges it after; NaN where refused."""
    out = np.full(len(arrivals), np.nan)
    tokens, last, sent = float(bucket), 0.0, []
    for i, arrival in enumerate(arrivals):
        if sum(d > arrival for d in sent[-limit:]) >= limit:
            continue
        start = max(arrival, last)
        tokens = min(bucket, tokens + (start - last) * rate / 8)
        if tokens < 0:
            start += -tokens * 8 / rate
            tokens = 0.0
        tokens -= length
        last = start
        out[i] = start
        sent.append(start)
    return out


@pytest.mark.parametrize("rate, burst", [(0.1e6, 5000), (0.2e6, 3000), (0.1e6, 1600)])
def test_frames_overloading_their_class_fill_the_kernels_queue_and_wait_for_it(rate, burst):
    """Ten frames every 20 ms into a class of ``rate`` and bucket ``burst`` with 50 places,
    against the packet-by-packet reference: once the bucket is spent the class keeps only
    what its rate passes, and what it keeps waits for the full queue ahead of it."""
    tree = HtbTree([HtbClass("root", 2e6, children=(
        HtbClass("voice", rate, ceil=rate, burst=burst, cburst=burst, limit=50),
        HtbClass("flood", 1.5e6, ceil=2e6)))], source="t.toml")
    sched = make_uplink_scheduler("htb", math.inf, 1000, tree=tree, rng=np.random.default_rng(1),
                                  port_leaf={VOICE_PORT: "voice", FLOOD_PORT: "flood"})
    ip, frames_per_tick, period = 60, 10, 0.02
    sched.set_flows(0.0, Flows.of([frames_per_tick / period], [ip], 0, [VOICE_PORT], discrete=[True]))
    ticks = np.arange(0.0, 20.0, period)
    got = np.concatenate([sched.transmit(np.full(frames_per_tick, t), ip, 0, VOICE_PORT) for t in ticks])
    arrivals = np.repeat(ticks, frames_per_tick)
    want = kernel_leaf(arrivals, skb_len(ip), rate, burst, 50)
    late = arrivals >= 10.0
    for departures in (got, want):
        kept = ~np.isnan(departures[late])
        assert kept.mean() == pytest.approx(rate / 8 / skb_len(ip) * period / frames_per_tick, rel=0.02)
    assert np.nanmedian((got - arrivals)[late]) == pytest.approx(np.nanmedian((want - arrivals)[late]),
                                                                 rel=0.02)
