"""tbf: token-bucket departures against a per-packet bucket, burst after idle, long-run rate."""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from vsim.net.fluid.flows import Flows
from vsim.net.uplink import make_uplink_scheduler
from vsim.net.uplink.tbf import tbf_limit_for_latency
from vsim.net.uplink.tc_bytes import skb_len


def kernel_tbf(times, lengths, rate, burst, limit):
    """Per packet, as sch_tbf.c on a veth: tokens (bytes) accrue at ``rate`` up to ``burst``;
    the head leaves when the bucket holds its length; an arrival joins the bfifo if the bytes
    still waiting plus its own fit in ``limit``."""
    tokens, checked = float(burst), -math.inf
    last = -math.inf
    out = np.full(len(times), np.nan)
    for i, (t, length) in enumerate(zip(times, lengths)):
        accepted = np.flatnonzero(~np.isnan(out[:i]))
        waiting = lengths[accepted][out[accepted] > t].sum()
        if length > burst or waiting + length > limit:
            continue
        start = max(t, last)
        have = min(burst, tokens + rate / 8 * (start - checked))
        leave = start if have >= length else checked + (length - tokens) / (rate / 8)
        tokens = min(burst, tokens + rate / 8 * (leave - checked)) - length
        checked = last = out[i] = leave
    return out


def tbf(rate=1e6, burst=5000, limit=30_000, **kwargs):
    return make_uplink_scheduler("tbf", math.inf, limit, "bytes", rate=rate, burst=burst,
                                 rng=np.random.default_rng(0), **kwargs)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), rate=st.floats(1e5, 1e8), burst=st.integers(1500, 60_000),
       load=st.floats(0.2, 0.9))
def test_departures_are_the_kernel_buckets_when_nothing_overflows(seed, rate, burst, load):
    r = np.random.default_rng(seed)
    ip = r.choice([46, 200, 1000, 1486], size=400).astype(float)
    lengths = skb_len(ip)
    gaps = r.exponential(lengths.mean() * 8 / rate / load, ip.size) * (r.random(ip.size) < 0.5)
    times = np.cumsum(gaps)
    sched = tbf(rate, burst, limit=10**9)
    got = np.concatenate([sched.transmit(t, s, 0, 0) for t, s in
                          zip(np.array_split(times, 5), np.array_split(ip, 5))])
    want = kernel_tbf(times, lengths, rate, burst, 10**9)
    assert np.allclose(got, want, rtol=1e-12, atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(burst=st.integers(1500, 30_000), limit=st.integers(1500, 30_000), n=st.integers(1, 80),
       ip=st.sampled_from([46, 500, 1486]))
def test_a_burst_after_idle_passes_up_to_burst_bytes_at_once_then_the_rate(burst, limit, n, ip):
    sched = tbf(1e6, burst, limit)
    got = sched.transmit(np.full(n, 1.0), ip, 0, 0)
    want = kernel_tbf(np.full(n, 1.0), np.full(n, skb_len(ip), dtype=float), 1e6, burst, limit)
    kept = ~np.isnan(got)
    # at once: as many whole frames as the bucket holds
    assert np.count_nonzero(got[kept] == 1.0) == min(burst // skb_len(ip), kept.sum())
    # admission counts the bytes still waiting; the model is within one frame of the kernel
    assert abs(int(kept.sum()) - int((~np.isnan(want)).sum())) <= 1
    both = np.flatnonzero(kept & ~np.isnan(want))
    assert np.allclose(got[both], want[both], rtol=1e-12)


@settings(max_examples=30, deadline=None)
@given(rate=st.floats(1e5, 1e9), offered=st.floats(0.1, 5.0), ip=st.integers(46, 1486))
def test_a_fluid_gets_min_of_offered_and_rate_and_loses_the_excess(rate, offered, ip):
    sched = tbf(rate, 10_000, 50_000)
    pps_at_rate = rate / 8 / skb_len(ip)
    sched.set_flows(0.0, Flows.of([offered * pps_at_rate], ip, 0, 0))
    assert sched.flow_rates == pytest.approx([min(offered, 1.0) * pps_at_rate])
    end = 1000 * 60_000 * 8 / rate          # long beside the time the queue takes to fill
    sched.advance(end)
    lost = 1 - sched.fluid_accepted_work / sched.fluid_offered_work
    assert lost == pytest.approx(max(0.0, 1 - 1 / offered), abs=2e-3)


def test_peakrate_spaces_the_burst_by_the_peak_bucket():
    sched = tbf(1e6, 10_000, 60_000, peakrate=1e7, mtu=1000)
    got = sched.transmit(np.zeros(12), 986, 0, 0)
    # the peak bucket (one 1000-byte frame deep) lets one frame through every 0.8 ms, the
    # rate bucket (10 frames deep) holds out for ten, then 8 ms a frame
    want = np.maximum(np.arange(12) * 8e-4, (np.arange(12) + 1 - 10) * 8e-3)
    assert got == pytest.approx(want)


def test_frames_longer_than_the_bucket_are_dropped_and_counted():
    sched = tbf(1e6, 1000)
    out = sched.transmit([0.0, 0.1, 0.2], [986, 987, 100], 0, 0)
    assert np.isnan(out).tolist() == [False, True, False]
    assert sched.frames_offered == 3 and sched.frames_dropped == 1


def test_latency_sets_the_limit_as_tc_does():
    assert tbf_limit_for_latency(1e6, 5000, 0.05) == pytest.approx(125_000 * 0.05 + 5000)
    assert tbf_limit_for_latency(1e6, 5000, 0.05, peakrate=2e6, mtu=1500) == \
        pytest.approx(min(11_250, 250_000 * 0.05 + 1500))
    sched = make_uplink_scheduler("tbf", math.inf, None, "bytes", rate=1e6, burst=5000,
                                  queue_latency=0.05, rng=np.random.default_rng(0))
    assert sched.limit == pytest.approx(11_250)


def test_a_finite_link_takes_each_released_frame_for_its_wire_time():
    sched = make_uplink_scheduler("tbf", 1e7, 30_000, "bytes", rate=1e6, burst=3000,
                                  rng=np.random.default_rng(0))
    got = sched.transmit(np.zeros(4), 986, 0, 0)
    wire = 1024 * 8 / 1e7
    assert got == pytest.approx([wire, 2 * wire, 3 * wire, 8e-3 + wire])


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError, match="exactly one of limit"):
        make_uplink_scheduler("tbf", math.inf, None, "bytes", rate=1e6, burst=5000,
                              rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="counts bytes"):
        make_uplink_scheduler("tbf", math.inf, 100, rate=1e6, burst=5000, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="peakrate"):
        tbf(peakrate=1e5, mtu=1500)


@pytest.mark.parametrize("overhead, linklayer, burst, longest", [
    (0, "ethernet", 1514, 1514),
    (24, "ethernet", 1514, 1490),  # the overhead is charged too, so 24 bytes fewer fit
    (0, "atm", 1600, 1440),        # 30 whole cells of 53 bytes carry 30 x 48
    (10, "atm", 1600, 1430),
])
def test_a_packet_the_bucket_can_never_pay_for_is_dropped_on_arrival(overhead, linklayer, burst,
                                                                      longest):
    """sch_tbf.c's max_size: the bucket turned back into a length by psched_ns_t2l."""
    fits, too_long = longest - 14, longest - 13  # IP bytes whose skb_len is the longest, one more
    sched = tbf(burst=burst, overhead=overhead, linklayer=linklayer)
    got = sched.transmit([0.0, 1.0], [fits, too_long], 0, 0)
    assert not np.isnan(got[0]) and np.isnan(got[1])
    assert sched.oversize_dropped == 1 and sched.frames_dropped == 1


def test_with_a_peak_rate_the_mtu_bucket_bounds_the_packet_too():
    sched = tbf(burst=5000, peakrate=2e6, mtu=1500, overhead=20)
    got = sched.transmit([0.0, 1.0], [1480 - 14, 1481 - 14], 0, 0)
    assert not np.isnan(got[0]) and np.isnan(got[1])
