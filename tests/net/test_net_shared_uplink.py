"""The shared uplink: frames handed over spaced, counted per second, flows integrated."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from vsim.net.frames import serialization_time
from vsim.net.hclock.tree import Node, Tree
from vsim.net.shared_uplink import DELAY_BIN, SharedUplink
from vsim.net.txpath.cost import PathCost
from vsim.net.uplink import make_uplink_scheduler

GIGABIT = 1e9
VOICE_IP = 60


def fifo(limit=1024, per_packet=0.0, latency=0.0, seed=1):
    return SharedUplink(make_uplink_scheduler(
        "fifo", GIGABIT, limit, rng=np.random.default_rng(seed), cost=PathCost(per_packet),
        latency=latency))


def test_frames_leave_spaced_and_end_at_the_job_end():
    uplink = fifo(latency=1e-5)
    port = uplink.add_port("vm0")
    uplink.begin(10.0)
    departures = uplink.send(port, 2.0, 5, 6e-6, VOICE_IP)
    handed = 2.0 - 6e-6 * np.arange(4, -1, -1)
    service = serialization_time(VOICE_IP, GIGABIT)
    assert departures == pytest.approx(handed + service + 1e-5, abs=1e-12)
    assert uplink.sent == 5 and uplink.dropped == 0
    assert uplink.busy_time == pytest.approx(5 * service)
    mean, p99 = uplink.delay_stats()
    assert abs(mean - (service + 1e-5)) <= DELAY_BIN and abs(p99 - (service + 1e-5)) <= DELAY_BIN


def test_frames_are_never_handed_before_earlier_ones():
    uplink = fifo()
    port = uplink.add_port("vm0")
    uplink.begin(10.0)
    uplink.send(port, 1.0, 3, 0.0, VOICE_IP)
    departures = uplink.send(port, 1.0 + 1e-6, 10, 1e-6, VOICE_IP)  # would start at 0.999991
    assert np.all(np.diff(departures) > 0) and departures[0] > 1.0


def test_a_full_queue_drops_and_the_drops_are_counted_in_their_second():
    uplink = fifo(limit=4)
    port = uplink.add_port("vm0")
    uplink.begin(3.0)
    departures = uplink.send(port, 1.5, 10, 0.0, VOICE_IP)
    assert np.isnan(departures).tolist() == [False] * 4 + [True] * 6  # four places in all
    assert uplink.offered_per_s[port].tolist() == [0, 10, 0]
    assert uplink.dropped_per_s[port].tolist() == [0, 6, 0]
    assert (uplink.sent, uplink.dropped) == (4, 6)


def test_a_burst_across_a_second_is_binned_frame_by_frame():
    uplink = fifo()
    port = uplink.add_port("vm0")
    uplink.begin(3.0)
    uplink.send(port, 2.25, 5, 0.125, VOICE_IP)  # frames at 1.75 .. 2.25
    assert uplink.offered_per_s[port].tolist() == [0, 2, 3]


def test_flows_are_integrated_over_the_rates_in_force():
    uplink = fifo()
    port = uplink.add_port("flood")
    flow = uplink.add_flow(port, 1000, 1)
    uplink.begin(10.0)
    uplink.set_rate(0.0, flow, 0.0)
    uplink.set_rate(2.0, flow, 50_000.0)  # 408 Mb/s of frames: under the link
    uplink.set_rate(6.0, flow, 0.0)
    offered, delivered = uplink.flow_packets(10.0)
    assert offered == pytest.approx([200_000.0]) and delivered == pytest.approx([200_000.0])


def test_an_overloaded_flow_is_delivered_at_the_stage_ceiling():
    per_packet = 2.6e-6
    uplink = fifo(per_packet=per_packet)
    flow = uplink.add_flow(uplink.add_port("flood"), 264, 1)
    uplink.begin(10.0)
    uplink.set_rate(0.0, flow, 500_000.0)
    offered, delivered = uplink.flow_packets(4.0)
    assert offered[0] == pytest.approx(2_000_000.0)
    # what the stage served, plus the 1024 packets the full queue holds, which leave after
    assert delivered[0] == pytest.approx(4.0 / per_packet + 1024)


def test_netioc_keeps_a_ports_frames_out_of_a_flooded_leaf():
    tree = Tree([Node("voice", "class"), Node("flood", "class")], GIGABIT)
    scheduler = make_uplink_scheduler("netioc", GIGABIT, 64, rng=np.random.default_rng(1),
                                      cost=PathCost(2.6e-6), tree=tree,
                                      port_leaf={0: "voice", 1: "flood"})
    uplink = SharedUplink(scheduler)
    voice, flood = uplink.add_port("vm0"), uplink.add_port("flood0")
    flow = uplink.add_flow(flood, 264, 1)
    uplink.begin(5.0)
    uplink.set_rate(0.0, flow, 500_000.0)
    lost = sum(np.count_nonzero(np.isnan(uplink.send(voice, 1.0 + k * 0.005, 30, 6e-6, VOICE_IP)))
               for k in range(100))
    assert lost == 0
    assert uplink.dropped_per_s[voice].sum() == 0 and uplink.offered_per_s[voice].sum() == 3000


def test_the_closed_form_engine_is_refused():
    assert SharedUplink.supports_closed_form() is False


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.floats(0.0, 0.01), st.integers(1, 40), st.floats(0.0, 2e-5)),
                min_size=1, max_size=30),
       st.integers(2, 64))
def test_every_frame_is_counted_once(bursts, limit):
    uplink = fifo(limit=limit, per_packet=2e-6)
    port = uplink.add_port("vm0")
    uplink.begin(2.0)
    t, handed, lost = 0.5, 0, 0
    for gap, count, spacing in bursts:
        t += gap + count * spacing
        departures = uplink.send(port, t, count, spacing, VOICE_IP)
        handed += count
        lost += int(np.count_nonzero(np.isnan(departures)))
    assert uplink.offered_per_s[port].sum() == handed == uplink.sent + uplink.dropped
    assert uplink.dropped_per_s[port].sum() == lost == uplink.dropped
    assert uplink.delays.sum() == uplink.sent


def test_delivered_packets_are_binned_per_second_across_changes():
    uplink = fifo()
    flow = uplink.add_flow(uplink.add_port("flood"), 1000, 1)
    uplink.begin(4.0)
    uplink.set_rate(0.0, flow, 0.0)
    uplink.set_rate(0.5, flow, 1000.0)
    uplink.set_rate(2.25, flow, 3000.0)
    offered, delivered = uplink.flow_packets(4.0)
    assert uplink.delivered_per_s[flow].tolist() == pytest.approx([500.0, 1000.0, 2500.0, 3000.0])
    assert uplink.delivered_per_s[flow].sum() == pytest.approx(delivered[0])


@given(st.floats(0.05, 0.95), st.integers(46, 1500), st.integers(1, 50))
def test_the_link_is_busy_for_every_frame_sent_the_bulk_fluid_included(load, ip_bytes, frames):
    uplink = fifo()
    port, vm = uplink.add_port("flood"), uplink.add_port("vm")
    flow = uplink.add_flow(port, ip_bytes, 1)
    uplink.begin(10.0)
    uplink.set_rate(1.0, flow, load / serialization_time(ip_bytes, 1e9))
    uplink.send(vm, 1.0, frames, 1e-3, 60)
    uplink.set_rate(3.0, flow, 0.0)
    voice = uplink.sent * serialization_time(60, 1e9)
    assert uplink.busy_time == pytest.approx(2.0 * load + voice, rel=1e-6)


class _LateSource:
    """A lagging source that records the times it is told to catch up to, and hands the
    uplink a frame of its own while catching up (which must not make it catch up again)."""

    def __init__(self, uplink, port):
        self.uplink, self.port, self.calls = uplink, port, []

    def catch_up(self, t):
        self.calls.append(t)
        self.uplink.transmit_frames(np.array([t - 1e-3]), np.array([float(VOICE_IP)]),
                                    np.array([0]), np.array([self.port]))
        self.uplink.set_rate(t, 0, 0.0)


def test_a_lagging_source_catches_up_before_anything_else_reaches_the_scheduler():
    uplink = fifo()
    port = uplink.add_port("vm0")
    uplink.add_flow(port, VOICE_IP, 1)
    uplink.begin(10.0)
    late = _LateSource(uplink, port)
    uplink.add_lagging_source(late)
    uplink.send(port, 1.0, 3, 6e-6, VOICE_IP)
    uplink.set_rate(2.0, 0, 100.0)
    uplink.flow_packets(3.0)
    uplink.settle(4.0)
    assert late.calls == [1.0, 2.0, 3.0, 4.0]
    assert uplink.scheduler.frames_offered == 3 + 4


def test_a_burst_overlapping_one_already_handed_is_spread_not_bunched():
    """Two transmit worlds forwarding at once: the second burst's first frames fall before the
    last frame of the first. They are spread evenly from that frame to the burst's end, each
    at its own instant. (They were all moved to that one instant: a burst the transmit world
    never makes, which a full queue mostly dropped.)"""
    uplink = fifo()
    first, second = uplink.add_port("vm0"), uplink.add_port("vm1")
    uplink.begin(10.0)
    handed = []
    transmit = uplink.scheduler.transmit

    def spy(times, *args):
        handed.append(np.array(times))
        return transmit(times, *args)
    uplink.scheduler.transmit = spy
    uplink.send(first, 1.0, 100, 3e-6, VOICE_IP)
    uplink.send(second, 1.0 + 1e-4, 100, 3e-6, VOICE_IP)  # would start 197 us before 1.0
    times = handed[1]
    assert times[0] == 1.0 and times[-1] == 1.0 + 1e-4
    assert np.diff(times) == pytest.approx(np.full(99, 1e-4 / 99))


def _on_off_flood(uplink, on, off, pps, until, ip_bytes=1000):
    """A flood of ``pps`` packets/s in ``on`` bursts with ``off`` silences up to ``until``."""
    port = uplink.add_port("flood")
    flow = uplink.add_flow(port, ip_bytes, 1)
    uplink.begin(until)
    t = 0.0
    while t < until:
        uplink.set_rate(t, flow, pps)
        uplink.set_rate(t + on, flow, 0.0)
        t += on + off
    return flow, uplink.flow_packets(until)


@pytest.mark.parametrize("on, off", [(5e-5, 9.5e-4), (0.01, 0.01)])
def test_an_on_off_flood_is_delivered_from_its_backlog_while_silent(on, off):
    """A queue keeps serving what it holds when its source falls silent: an on/off flood whose
    mean rate fits the link and whose bursts fit the queue loses nothing."""
    link_pps = GIGABIT / 8 / (1000 + 38)
    mean = 0.9 * link_pps
    flow, (offered, delivered) = _on_off_flood(fifo(limit=1000), on, off, mean * (on + off) / on, 1.0)
    assert offered[flow] == pytest.approx(mean, rel=1e-9)
    assert delivered[flow] == pytest.approx(offered[flow], rel=1e-6)


def test_an_on_off_flood_beyond_the_queue_delivers_the_link_and_the_queue_it_filled():
    """On at twice the link for 10 ms, off for 10 ms, 100 places: each cycle delivers the link
    rate's 10 ms (the rest dropped at the full queue) plus the 100 packets that drain after."""
    link_pps = GIGABIT / 8 / (1000 + 38)
    cycles = 50
    flow, (offered, delivered) = _on_off_flood(fifo(limit=100), 0.01, 0.01, 2 * link_pps, 0.02 * cycles)
    assert delivered[flow] == pytest.approx(cycles * (0.01 * link_pps + 100), rel=1e-3)


def test_a_frame_s_queue_link_time_and_latency_are_the_scheduler_s():
    """What request/response chains ask of the uplink before sending: each frame's queue (NetIOC:
    its port's leaf), its link time and size in the limit's unit, and the latency beyond."""
    tree = Tree([Node("voice", "class"), Node("rr", "class")], GIGABIT)
    scheduler = make_uplink_scheduler("netioc", GIGABIT, 64, rng=np.random.default_rng(1),
                                      cost=PathCost(2.6e-6), tree=tree, latency=3e-5,
                                      port_leaf={0: "voice", 1: "rr", 2: "rr"})
    uplink = SharedUplink(scheduler)
    ports, classes = np.array([0, 1, 2]), np.array([0, 1, 2])
    assert uplink.frame_queues(classes, ports).tolist() == \
        scheduler.queue_index(classes, ports).tolist()
    assert len(set(uplink.frame_queues(classes, ports)[1:].tolist())) == 1
    sizes = np.array([60.0, 1500.0])
    assert uplink.frame_work(sizes).tolist() == scheduler.work(sizes).tolist()
    assert float(uplink.frame_work(1500.0)) > float(uplink.frame_work(60.0)) > 0
    assert uplink.frame_units(sizes).tolist() == scheduler.units(sizes).tolist()
    assert uplink.latency == 3e-5
