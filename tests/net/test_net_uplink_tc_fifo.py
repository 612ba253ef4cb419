"""pfifo and bfifo: the kernel's limits, frame by frame, against a per-packet reference."""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from benchmark_scripts import load_benchmark
from reference_fifo_link import FifoLink
from vsim.net.fluid.flows import Flows
from vsim.net.txpath.cost import PathCost, service_time
from vsim.net.uplink import make_uplink_scheduler
from vsim.net.uplink.tc_bytes import skb_len

GIGABIT = 1e9


def kernel_fifo(times, ip_bytes, limit, unit, service):
    """Per packet, as sch_fifo.c: the link takes the head when it is free; an arrival is
    queued if qlen < limit (pfifo) or backlog + skb_len <= limit (bfifo), counting only
    the packets waiting, not the one the link is sending."""
    waiting = []                 # (index, skb bytes) in order
    busy_until = -math.inf
    out = np.full(len(times), np.nan)

    def serve_until(t):
        nonlocal busy_until
        while waiting and busy_until <= t:
            i, _ = waiting.pop(0)
            busy_until = max(busy_until, times[i]) + service[i]
            out[i] = busy_until

    for i, t in enumerate(times):
        serve_until(t)
        size = skb_len(ip_bytes[i])
        if unit == "packets":
            fits = len(waiting) < limit
        else:
            fits = sum(b for _, b in waiting) + size <= limit
        if fits:
            waiting.append((i, size))
            serve_until(t)
    serve_until(math.inf)
    return out


def random_traffic(seed, n, load, sizes):
    r = np.random.default_rng(seed)
    ip = r.choice(sizes, size=n).astype(float)
    mean = float(np.mean(service_time(ip, GIGABIT)))
    gaps = r.exponential(mean / load, n) * (r.random(n) < 0.7)   # some frames come in bursts
    return np.cumsum(gaps) + r.uniform(0, 1e-9, n).cumsum(), ip


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), limit=st.integers(1, 40), load=st.floats(0.5, 3.0),
       unit=st.sampled_from(["packets", "bytes"]), cost=st.sampled_from([0.0, 3e-6]))
def test_frames_are_dropped_and_delayed_exactly_as_the_kernel_fifo(seed, limit, load, unit, cost):
    times, ip = random_traffic(seed, 600, load, [46, 200, 1000, 1500])
    if unit == "bytes":
        limit *= 700
    name = "pfifo" if unit == "packets" else "bfifo"
    sched = make_uplink_scheduler(name, GIGABIT, limit, unit, rng=np.random.default_rng(0),
                                  cost=PathCost(per_packet=cost))
    got = np.concatenate([sched.transmit(t, s, 0, 0) for t, s in
                          zip(np.array_split(times, 7), np.array_split(ip, 7))])
    want = kernel_fifo(times, ip, limit, unit, sched.work(ip))
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.allclose(got[~np.isnan(got)], want[~np.isnan(want)], rtol=0, atol=1e-12)


def test_pfifo_is_the_fifo_link_with_that_many_waiting_places():
    r = np.random.default_rng(3)
    ip = r.choice([60, 576, 1500], size=5000).astype(float)
    times = np.cumsum(r.exponential(float(np.mean(service_time(ip, GIGABIT))) / 1.5, ip.size))
    pfifo = make_uplink_scheduler("pfifo", GIGABIT, 20, rng=np.random.default_rng(0))
    link = FifoLink(GIGABIT, buffer_packets=20)
    got, want = pfifo.transmit(times, ip, 0, 0), link.offer(times, ip)[0]
    assert np.array_equal(np.isnan(got), np.isnan(want)) and np.isnan(got).sum() > 100
    assert np.allclose(got[~np.isnan(got)], want[~np.isnan(want)], rtol=0, atol=1e-12)


def test_a_burst_fills_a_bfifo_by_skb_bytes_behind_the_frame_being_sent():
    bfifo = make_uplink_scheduler("bfifo", GIGABIT, 3000, "bytes", rng=np.random.default_rng(0))
    # 986-byte IP packets are 1000 bytes at the qdisc: one on the wire, three waiting
    out = bfifo.transmit(np.zeros(6), 986, 0, 0)
    assert np.isnan(out).tolist() == [False] * 4 + [True] * 2
    assert out[0] == pytest.approx(service_time(986, GIGABIT))


def test_a_flood_loses_what_the_link_cannot_serve():
    pfifo = make_uplink_scheduler("pfifo", GIGABIT, 1000, rng=np.random.default_rng(0))
    served = 1 / float(service_time(1000, GIGABIT))
    pfifo.set_flows(0.0, Flows.of([1.5 * served], 1000, 0, 0))
    assert pfifo.flow_rates == pytest.approx([served])
    pfifo.advance(1.0)
    fill = 1001 / (0.5 * served)     # the queue's 1000 places and the one on the wire
    lost = 1 - pfifo.fluid_accepted_work / pfifo.fluid_offered_work
    assert lost == pytest.approx(1 / 3 * (1 - fill), rel=1e-6)


def test_a_fifo_that_could_never_queue_and_a_wrong_unit_are_refused():
    with pytest.raises(ValueError, match="never queues"):
        make_uplink_scheduler("pfifo", math.inf, 100, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="counts bytes"):
        make_uplink_scheduler("bfifo", GIGABIT, 3000, rng=np.random.default_rng(0))
    # on a veth, a per-frame transmit cost is what makes a queue
    veth = make_uplink_scheduler("pfifo", math.inf, 1, rng=np.random.default_rng(0),
                                 cost=PathCost(per_packet=1e-6))
    assert np.isnan(veth.transmit(np.zeros(3), 100, 0, 0)).tolist() == [False, False, True]


def test_voice_beside_a_flood_below_the_rate_loses_as_the_kernel_fifo_does():
    """validation/net_pfifo's load on a 2 Mbit/s pfifo of 50: a flood of 92 % of the link alone and
    ten voice frames every 20 ms together overload it. Drop-tail drops the excess from both, so
    the voice loses as the per-packet kernel FIFO with a Poisson flood says (about 15 %), not the
    whole excess (about 57 %), within four standard errors of one-second batches."""
    duration, flood_pps, flood_ip, voice_ip = 30.0, 215.9, 1028.0, 60.0
    uplink = make_uplink_scheduler("pfifo", 2e6, 50, rng=np.random.default_rng(31))
    uplink.set_flows(0.0, Flows.of([flood_pps, 500.0], [flood_ip, voice_ip], [1, 0], [1, 0],
                                   discrete=[False, True]))
    bursts = np.arange(0.0, duration, 0.02)[:, None] + 0.0003 + 55e-6 * np.arange(10)[None, :]
    got = np.concatenate([uplink.transmit(b, voice_ip, 0, 0) for b in bursts])
    r = np.random.default_rng(32)
    flood = np.sort(r.uniform(0.0, duration, r.poisson(flood_pps * duration)))
    times = np.concatenate((bursts.ravel(), flood))
    ip = np.concatenate((np.full(bursts.size, voice_ip), np.full(flood.size, flood_ip)))
    order = np.argsort(times, kind="stable")
    want = np.empty(times.size)
    want[order] = kernel_fifo(times[order], ip[order], 50, "packets", service_time(ip[order], 2e6))
    lost = [np.isnan(x[:bursts.size]).reshape(int(duration), -1).mean(axis=1) for x in (got, want)]
    se = math.hypot(*(b.std(ddof=1) / math.sqrt(b.size) for b in lost))
    assert abs(lost[0].mean() - lost[1].mean()) < 4 * se
    assert lost[1].mean() < 0.3


net_pfifo_reference = load_benchmark("net_pfifo_reference")


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), limit=st.integers(1, 40), load=st.floats(0.5, 3.0))
def test_a_pfifo_under_tbf_is_the_kernels_token_queue_packet_by_packet(seed, limit, load):
    """Under tbf the rate charges skb_len and the packet waiting for tokens holds one of the
    pfifo's places: exactly the per-packet tbf + pfifo of benchmarks/net_pfifo_reference.py
    with an empty bucket, frame by frame."""
    rate = 2e6
    r = np.random.default_rng(seed)
    ip = r.choice([60.0, 200.0, 1028.0, 1486.0], size=500)
    mean = float(np.mean(skb_len(ip))) * 8 / rate
    times = np.cumsum(r.exponential(mean / load, ip.size) * (r.random(ip.size) < 0.7))
    pfifo = make_uplink_scheduler("pfifo", rate, limit, rng=np.random.default_rng(0), shaper="tbf")
    got = np.concatenate([pfifo.transmit(t, s, 0, 0) for t, s in
                          zip(np.array_split(times, 5), np.array_split(ip, 5))])
    want = net_pfifo_reference.tbf_pfifo(times, skb_len(ip), rate, burst=0, limit=limit)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.allclose(got[~np.isnan(got)], want[~np.isnan(want)], rtol=0, atol=1e-12)


def test_under_tbf_a_packet_costs_its_skb_len_and_the_waiting_head_counts():
    tbf = make_uplink_scheduler("pfifo", 2e6, 3, rng=np.random.default_rng(0), shaper="tbf")
    wire = make_uplink_scheduler("pfifo", 2e6, 3, rng=np.random.default_rng(0))
    # a 60-byte RTP packet: 74 bytes at the qdisc, 98 on an Ethernet wire
    assert tbf.work(60.0) == pytest.approx(74 * 8 / 2e6)
    assert wire.work(60.0) == pytest.approx(98 * 8 / 2e6)
    # a burst of six: three places in all under tbf, three behind the frame on the wire
    assert np.isnan(tbf.transmit(np.zeros(6), 60.0, 0, 0)).tolist() == [False] * 3 + [True] * 3
    assert np.isnan(wire.transmit(np.zeros(6), 60.0, 0, 0)).tolist() == [False] * 4 + [True] * 2
    with pytest.raises(ValueError, match="shaper"):
        make_uplink_scheduler("pfifo", 2e6, 3, rng=np.random.default_rng(0), shaper="htb")
    with pytest.raises(ValueError, match="finite rate"):
        make_uplink_scheduler("pfifo", math.inf, 3, rng=np.random.default_rng(0), shaper="tbf")


@settings(max_examples=30, deadline=None)
@given(ip=st.sampled_from([60.0, 200.0, 1028.0, 1486.0]), overload=st.floats(1.05, 3.0),
       limit=st.integers(1, 200))
def test_under_tbf_a_flood_loses_the_excess_of_its_skb_bytes(ip, overload, limit):
    """Drop-tail under a fluid overload: once the queue is full, the loss is
    (offered - capacity) / offered with both counted in the bytes tbf charges, skb_len."""
    rate = 2e6
    served = rate / (8 * skb_len(ip))
    pfifo = make_uplink_scheduler("pfifo", rate, limit, rng=np.random.default_rng(0), shaper="tbf")
    pfifo.set_flows(0.0, Flows.of([overload * served], ip, 0, 0))
    assert pfifo.flow_rates == pytest.approx([served])
    duration = 100.0
    pfifo.advance(duration)
    fill = limit / ((overload - 1) * served)   # the limit's places, the waiting head among them
    lost = 1 - pfifo.fluid_accepted_work / pfifo.fluid_offered_work
    assert lost == pytest.approx((overload - 1) / overload * (1 - fill / duration), rel=1e-6)


def net_pfifo_under_tbf(seed, duration, arrivals):
    """validation/net_pfifo's bottleneck (tbf at 2 Mbit/s over a pfifo of 50) with its flood of
    215.9 packets/s of 1028 B declared ``arrivals`` (90 % of the tokens alone) beside ten 60 B
    voice frames 55 µs apart every 20 ms (15 % more): (scheduler, voice bursts)."""
    uplink = make_uplink_scheduler("pfifo", 2e6, 50, rng=np.random.default_rng(seed), shaper="tbf")
    uplink.declare_arrivals(1, 1, arrivals)
    uplink.set_flows(0.0, Flows.of([215.9, 500.0], [1028.0, 60.0], [1, 0], [1, 0],
                                   discrete=[False, True]))
    bursts = np.arange(0.0, duration, 0.02)[:, None] + 0.0003 + 55e-6 * np.arange(10)[None, :]
    return uplink, bursts


def test_voice_beside_a_paced_flood_under_tbf_loses_as_the_kernels_per_packet_queue():
    """The net_pfifo load through the pfifo under tbf, the flood paced as the probe paces it,
    against benchmarks/net_pfifo_reference.py's per-packet tbf + pfifo (5000 B bucket, skb_len,
    the head waiting for tokens counted) fed every packet with the flood evenly spaced: the
    voice's loss within four standard errors of one-second batches, its mean wait within 5 %,
    and the flood's loss within a point."""
    duration, period = 30.0, 1 / 215.9
    uplink, bursts = net_pfifo_under_tbf(41, duration, "paced")
    got = np.concatenate([uplink.transmit(b, 60.0, 0, 0) for b in bursts])
    uplink.advance(duration)
    flood = np.random.default_rng(42).random() * period + np.arange(0.0, duration, period)
    flood = flood[flood < duration]
    times = np.concatenate((bursts.ravel(), flood))
    size = skb_len(np.concatenate((np.full(bursts.size, 60.0), np.full(flood.size, 1028.0))))
    order = np.argsort(times, kind="stable")
    want = np.empty(times.size)
    want[order] = net_pfifo_reference.tbf_pfifo(times[order], size[order])
    lost = [np.isnan(x[:bursts.size]).reshape(int(duration), -1).mean(axis=1) for x in (got, want)]
    se = math.hypot(*(b.std(ddof=1) / math.sqrt(b.size) for b in lost))
    assert abs(lost[0].mean() - lost[1].mean()) < 4 * se
    assert 0.02 < lost[1].mean() < 0.12
    voice = bursts.ravel()
    assert np.nanmean(got - voice) == pytest.approx(np.nanmean(want[:voice.size] - voice), rel=0.05)
    flood_lost = 1 - uplink.fluid_accepted_work / uplink.fluid_offered_work
    assert flood_lost == pytest.approx(np.isnan(want[voice.size:]).mean(), abs=0.01)
    # drop-tail under overload: the skb bytes lost are what was offered beyond the token rate
    offered = uplink.fluid_offered_work + voice.size * float(uplink.work(60.0))
    accepted = uplink.fluid_accepted_work + np.count_nonzero(~np.isnan(got)) * float(uplink.work(60.0))
    assert 1 - accepted / offered == pytest.approx((offered - duration) / offered, abs=0.005)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), arrivals=st.sampled_from(["paced", "poisson"]),
       duration=st.floats(0.5, 5.0))
def test_under_tbf_the_jointly_overloaded_queue_conserves_packets(seed, arrivals, duration):
    """Voice frames sent = delivered + dropped + queued; the flood never gains; and the tokens
    never pass more skb bytes than their rate allows in the time."""
    uplink, bursts = net_pfifo_under_tbf(seed, duration, arrivals)
    got = np.concatenate([uplink.transmit(b, 60.0, 0, 0) for b in bursts])
    end = float(bursts.max())
    uplink.advance(end)
    queued = uplink.frames_in_system(end)
    delivered = int(np.count_nonzero(got <= end))
    assert uplink.frames_offered == got.size == delivered + uplink.frames_dropped + queued
    voice_work = float(uplink.work(60.0))
    offered = uplink.fluid_offered_work + got.size * voice_work
    accepted = uplink.fluid_accepted_work + np.count_nonzero(~np.isnan(got)) * voice_work
    served = accepted - uplink.queues[0].work
    assert served <= end * (1 + 1e-9)
    assert 0 <= uplink.fluid_accepted_work <= uplink.fluid_offered_work
    assert accepted <= offered
