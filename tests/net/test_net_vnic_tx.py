"""The hypervisor transmit path of a vNIC: ring, transmit world, coalesced wakeups."""

import math

import numpy as np
import pytest
import simpy
from hypothesis import HealthCheck, given, settings, strategies as st

from vsim.cpu.machine import Machine
from vsim.cpu.policies import make_policy
from vsim.cpu.topology import Topology
from vsim.cpu.world import Group, World
from vsim.guest.measuring_client import MeasuringClient
from vsim.net.uniform_fifo import UniformFifo
from vsim.net.vnic_tx import VnicTransmit

IP_BYTES = 60


def in_flight(path):
    """Measured packets posted on the path that the client has not yet seen delivered or lost."""
    return path.measured_posted - path.client.recorded()


class _SubmitSpy:
    """The machine as the vNIC sees it, noting when its transmit world is woken."""

    def __init__(self, machine, world, wakes):
        self.machine = machine
        self.world = world
        self.wakes = wakes

    def submit(self, world, work, on_done):
        if world is self.world:
            self.wakes.append(self.machine.env.now)
        self.machine.submit(world, work, on_done)


class Path:
    """One logical CPU (optionally shared with a CPU-bound hog), a vNIC and an uplink."""

    def __init__(self, *, ring_size=512, tx_cost=3e-6, rx_cost=3e-6, wake_rate_hz=4000.0,
                 hog_shares=None, uplink_buffer=1024, lcpus=1):
        self.env = simpy.Environment()
        self.machine = Machine(self.env, Topology(1, lcpus, 1, 1.0), make_policy("proportional_share"))
        tx_group = Group("vnic-tx", cosched=False)
        self.world = World("vnic-tx", tx_group)
        self.machine.add_group(tx_group)
        if hog_shares is not None:
            hog = Group("hog", shares=hog_shares)
            World("hog.0", hog)
            self.machine.add_group(hog)
            self.machine.submit(hog.worlds[0], 1.0, lambda _w: 1.0)
        self.uplink = UniformFifo(1e9, uplink_buffer, 1e-5, IP_BYTES)
        self.client = MeasuringClient(5e-5)
        self.vnic = VnicTransmit(self.env, self.machine, self.world, self.uplink, self.client,
                                 tx_cost=tx_cost, rx_cost=rx_cost, ring_size=ring_size,
                                 wake_rate_hz=wake_rate_hz)
        self.measured_posted = 0
        self.wakes = []
        self.vnic.machine = _SubmitSpy(self.machine, self.world, self.wakes)

    def post_at(self, t, count, tick=None, check=None, monitored=None):
        """Post ``count`` frames at ``t``; with a ``tick``, the last ``monitored`` (all by default)
        are recorded by the client."""
        if monitored is None:
            monitored = count if tick is not None else 0

        def fire(_event):
            self.measured_posted += monitored
            self.vnic.post(self.env.now, count, self.env.now, tick, monitored)
            if check is not None:
                check()
        self.env.timeout(t).callbacks.append(fire)

    def conserved(self):
        v = self.vnic
        assert v.posted == self.uplink.offered + v.ring_drops + v.in_ring
        assert 0 <= v.in_ring <= v.ring_size
        queued = v.pending_frames + sum(count for count, _, _ in v.job)
        assert v.in_ring == queued


posts = st.lists(st.tuples(st.floats(0.0, 2e-3), st.integers(1, 40), st.integers(0, 8)),
                 min_size=1, max_size=60)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(posts, st.integers(1, 64), st.sampled_from([1e-6, 3e-6, 2e-5]),
       st.sampled_from([1000.0, 4000.0, math.inf]), st.sampled_from([None, 1000.0, 1e6]))
def test_posted_is_forwarded_plus_ring_drops_plus_queued(schedule, ring, cost, rate, hog):
    path = Path(ring_size=ring, tx_cost=cost, rx_cost=cost, wake_rate_hz=rate, hog_shares=hog)
    t = 0.0
    for tick, (gap, count, monitored) in enumerate(schedule):
        t += gap
        monitored = min(monitored, count)
        path.post_at(t, count, tick if monitored else None, check=path.conserved,
                     monitored=monitored)
    # probe between posts too
    for k in range(1, 200):
        path.env.timeout(k * 1e-3).callbacks.append(lambda _e: path.conserved())
    path.env.run(until=t + 1.0)
    path.conserved()
    v = path.vnic
    assert v.posted == sum(count for _, count, _ in schedule)
    # long after the last post everything accepted by the ring has been forwarded
    assert v.in_ring == 0
    assert v.posted == path.uplink.offered + v.ring_drops
    # and every monitored frame was recorded once, received or lost
    streams, send, recv = path.client.arrays()
    assert len(streams) == path.measured_posted
    assert in_flight(path) == 0


def test_monitored_frames_are_the_last_of_a_post_and_the_first_dropped():
    """A post of 6 frames whose last 3 are monitored meets a ring with room for 4: only the
    first monitored frame fits, and it leaves the uplink as the post's 4th frame."""
    path = Path(ring_size=4, tx_cost=1e-6, rx_cost=1e-6, wake_rate_hz=math.inf)
    path.post_at(0.001, 6, tick=0, monitored=3)
    path.env.run(until=0.01)
    streams, send, recv = path.client.arrays()
    assert list(streams) == [0, 1, 2]
    assert np.isnan(recv[1:]).all()
    service = path.uplink.service
    expected = 0.001 + 4 * 2e-6 + 4 * service + 1e-5 + 5e-5
    assert recv[0] == pytest.approx(expected, abs=1e-12)
    assert path.vnic.ring_drops == 2
    assert in_flight(path) == 0


def test_ring_overflow_drops_the_excess_of_a_post():
    path = Path(ring_size=8)
    path.post_at(0.0, 5)
    path.post_at(0.0, 6)  # the first 5 are still in the ring: room for 3
    path.env.run(until=0.01)
    v = path.vnic
    assert v.posted == 11
    assert v.ring_drops == 3
    assert path.uplink.offered == 8
    assert v.in_ring == 0


def test_full_ring_drops_a_whole_post():
    path = Path(ring_size=4)
    path.post_at(0.0, 4)
    path.post_at(0.0, 3)
    path.env.run(until=0.01)
    assert path.vnic.ring_drops == 3
    assert path.uplink.offered == 4


def test_frames_leave_after_the_transmit_world_has_processed_them():
    """Idle CPU, no coalescing: a post of n frames is forwarded n * (tx + rx) later."""
    path = Path(tx_cost=2e-6, rx_cost=3e-6, wake_rate_hz=math.inf)
    path.post_at(0.001, 4, tick=0)
    path.env.run(until=0.01)
    streams, send, recv = path.client.arrays()
    assert list(streams) == [0, 1, 2, 3]
    service = path.uplink.service
    expected = 0.001 + 4 * 5e-6 + service * np.arange(1, 5) + 1e-5 + 5e-5
    np.testing.assert_allclose(recv, expected, rtol=0, atol=1e-12)


def test_wakeups_are_rate_limited():
    path = Path(wake_rate_hz=4000.0)
    for k in range(2000):
        path.post_at(k * 5e-5, 2)
    path.env.run(until=0.2)
    gaps = np.diff(path.wakes)
    assert len(path.wakes) <= 0.1 * 4000 + 1
    assert gaps.min() >= 1 / 4000 - 1e-12
    assert path.vnic.in_ring == 0
    assert path.uplink.offered == 4000


def test_measured_frames_are_all_accounted_for_by_the_client():
    """Every measured frame posted is recorded as received or lost, once drained."""
    path = Path(ring_size=6)
    path.post_at(0.0, 4)
    path.post_at(0.0, 4, tick=0)  # room for 2 of the 4 measured frames
    path.post_at(0.005, 4, tick=1)
    path.env.run(until=0.05)
    streams, send, recv = path.client.arrays()
    assert len(streams) == path.measured_posted == 8
    lost = np.isnan(recv)
    assert lost.sum() == 2
    assert in_flight(path) == 0


def test_a_measured_post_dropped_whole_by_the_ring_leaves_nothing_in_flight():
    """A measured tick whose frames all meet a full ring is recorded as lost; the client
    must not keep counting it as in flight (it never reaches ``departed``)."""
    path = Path(ring_size=4)
    path.post_at(0.0, 4)
    path.post_at(0.0, 4, tick=7)  # ring full: all 4 measured frames dropped
    path.env.run(until=0.05)
    streams, send, recv = path.client.arrays()
    assert len(streams) == 4 and np.isnan(recv).all()
    assert in_flight(path) == 0


def test_zero_per_frame_cost_still_forwards_everything():
    """tx_cost = rx_cost = 0 is allowed by the vNIC model schema (non-negative). Frames
    posted while the transmit world is busy must still be forwarded."""
    path = Path(tx_cost=0.0, rx_cost=0.0)
    path.post_at(0.001, 10)
    path.post_at(0.001, 5)  # same instant: queued behind the running job
    path.post_at(0.0011, 7)
    path.post_at(0.01, 3)
    path.env.run(until=0.1)
    v = path.vnic
    assert v.posted == 25
    assert v.ring_drops == 0
    assert v.in_ring == 0
    assert path.uplink.offered == 25


def test_in_flight_counts_only_measured_frames_still_in_the_ring():
    """A measured tick half dropped by the ring: its 2 lost frames are recorded as lost
    at once, so only the 2 accepted frames are in flight until the transmit world
    forwards them."""
    path = Path(ring_size=6)
    seen = []
    path.post_at(0.0, 4)
    path.post_at(0.0, 4, tick=0, check=lambda: seen.append(in_flight(path)))
    path.env.run(until=0.05)
    streams, send, recv = path.client.arrays()
    assert np.isnan(recv).sum() == 2
    assert seen == [2]
    assert in_flight(path) == 0


def test_a_zero_cost_path_forwards_without_running_its_world():
    """No CPU cost per frame: every post reaches the uplink at once (at the unlimited wake rate),
    the transmit world never asks for a CPU, and a busy CPU delays nothing."""
    path = Path(tx_cost=0.0, rx_cost=0.0, wake_rate_hz=math.inf, hog_shares=1e6)
    for tick in range(5):
        path.post_at(0.001 * tick + 1e-4, 3, tick=tick)
    path.env.run(until=0.01)
    assert path.wakes == []
    assert path.uplink.offered == 15 and path.vnic.in_ring == 0
    assert path.world.used == 0.0
    path.conserved()


class _SendSpy:
    """An uplink scheduler's port as the vNIC sees it: notes each burst handed over."""

    def __init__(self):
        self.bursts = []

    def send(self, port, end, count, spacing, ip_bytes):
        self.bursts.append((end, count, spacing))
        return np.full(count, end)


def test_a_jobs_posts_reach_an_uplink_scheduler_as_one_spaced_sequence():
    """Two posts taken into one job: the world forwards the first post's frames, then the
    second's, so the first burst ends where the second begins. (Both were handed ending at the
    job's end, and the uplink moved the first one's frames to a single instant.)"""
    path = Path(wake_rate_hz=1000.0)
    spy = _SendSpy()
    path.vnic.uplink, path.vnic.port, path.vnic.ip_bytes = spy, 0, IP_BYTES
    path.post_at(1e-4, 10, tick=0)  # wakes the world at once
    path.post_at(5e-4, 20, tick=1)  # both wait for the next wake, 1 ms after the first: one job
    path.post_at(6e-4, 10, tick=2)
    path.env.run(until=0.01)
    cost = 6e-6
    assert [(count, spacing) for _, count, spacing in spy.bursts] == [(10, cost), (20, cost), (10, cost)]
    (_, _, _), (end2, n2, _), (end3, n3, _) = spy.bursts
    assert end3 == pytest.approx(1.1e-3 + 30 * cost)  # the job's end
    assert end2 == pytest.approx(end3 - n3 * cost, abs=1e-15)


def test_finish_job_empties_the_ring_of_the_job_and_returns_its_posts():
    """What the closed form plays without a scheduler: a wakeup takes the pending posts as a
    job, its end takes them out of the ring in the order posted, the frames posted since stay."""
    v = Path(ring_size=10).vnic
    v.accept(3, 0.0, tick=0, monitored=1)
    v.accept(4, 0.0, tick=1)
    assert v.wake_delay(1e-3) < 0  # never woken: it may wake at once
    v.woke(1e-3)
    assert v.wake_delay(1.1e-3) == pytest.approx(0.15e-3)  # 4000 wakeups/s at most
    assert v.take_job() == pytest.approx(7 * 6e-6)
    v.accept(5, 0.0, tick=2)  # 3 fit beside the job's 7
    assert v.finish_job() == [(3, 0, 1), (4, None, 0)]
    assert v.in_ring == 3 and v.pending_frames == 3
    assert v.finish_job() == [] and v.in_ring == 3
