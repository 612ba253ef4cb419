"""Per-frame sending: the same departures as lone frames through ``transmit``."""

import copy

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from vsim.net.fluid.flows import Flows
from vsim.net.hclock.tree import Node, Tree
from vsim.net.uplink import frame_lanes, make_uplink_scheduler

TEN_GIGABIT = 1e10
PORTS = 6


BULK_PORT = 99


def multiqueue():
    """Four queues; a bulk flow on port ``BULK_PORT`` fills one of them, so frames of the others
    may wait for its frames on the wire (drawn at random)."""
    scheduler = make_uplink_scheduler("multiqueue", TEN_GIGABIT, 4096, rng=np.random.default_rng(5),
                                      latency=1e-5)
    scheduler.set_flows(0.0, Flows.of([300_000.0, 20_000.0], [1500, 116], [1, 2],
                                      [BULK_PORT, 0], discrete=[False, True]))
    return scheduler


def frame_ports(scheduler):
    """``PORTS`` ports whose frames share no queue with the bulk flow of ``multiqueue()``."""
    if scheduler.n_queues == 1:
        return np.arange(PORTS)
    candidates = np.arange(BULK_PORT)
    queues = scheduler.queue_index(candidates, candidates)
    bulk = scheduler.queue_index(np.array([1]), np.array([BULK_PORT]))[0]
    return candidates[queues != bulk][:PORTS]


def netioc(hold=19.3e-6):
    tree = Tree([Node("vm", kind="class", children=(Node("ports", kind="port"),))], TEN_GIGABIT)
    return make_uplink_scheduler("netioc", TEN_GIGABIT, 4096, rng=np.random.default_rng(5),
                                 latency=1e-5, tree=tree,
                                 port_leaf={p: "ports" for p in range(PORTS)},
                                 completion_hold=hold)


def fifo():
    return make_uplink_scheduler("fifo", TEN_GIGABIT, 4096, rng=np.random.default_rng(5),
                                 latency=1e-5)


def fifo_beside_fluid(share=0.6):
    """A FIFO a bulk flow's fluid flows into at ``share`` of its rate (frames of 1500 bytes
    counted against a limit in packets), so frames wait behind the fluid they find."""
    scheduler = fifo()
    pps = share * TEN_GIGABIT / (1538 * 8)
    scheduler.set_flows(0.0, Flows.of([pps], [1500], [1], [BULK_PORT]))
    return scheduler


def multiqueue_beside_frames():
    """Four queues; frames declared on port ``BULK_PORT`` keep another queue busy, with no
    fluid packet there to wait out on the wire."""
    scheduler = make_uplink_scheduler("multiqueue", TEN_GIGABIT, 4096, rng=np.random.default_rng(5),
                                      latency=1e-5)
    scheduler.set_flows(0.0, Flows.of([200_000.0], [1500], [1], [BULK_PORT], discrete=[True]))
    return scheduler


SCHEDULERS = {"multiqueue": multiqueue, "netioc": netioc, "fifo": fifo,
              "fifo beside fluid": fifo_beside_fluid,
              "multiqueue beside frames": multiqueue_beside_frames}
LARGEST_WORK = 1538 * 8 / TEN_GIGABIT
"""Link time of the largest frame the tests send."""

frames = st.lists(st.tuples(st.floats(0, 3e-6), st.integers(0, PORTS - 1),
                            st.sampled_from([116, 600, 1500])), min_size=1, max_size=60)


def _lay_out(scheduler, drawn):
    gaps, ports, sizes = (np.array(column) for column in zip(*drawn))
    ports = frame_ports(scheduler)[ports]
    times = 1e-3 + np.cumsum(gaps)
    queues = scheduler.queue_index(np.zeros(ports.size, dtype=np.int64), ports)
    return times, ports, sizes.astype(float), queues


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(SCHEDULERS)), frames)
def test_lanes_send_as_lone_frames_through_transmit(name, drawn):
    scheduler = SCHEDULERS[name]()
    reference = copy.deepcopy(scheduler)
    times, ports, sizes, queues = _lay_out(scheduler, drawn)
    lanes = scheduler.frame_lanes(queues, times.size, 1.0, LARGEST_WORK)
    assert lanes is not None
    work = scheduler.work(sizes)
    got = [lanes.send(t, q, w) for t, q, w in zip(times.tolist(), queues.tolist(), work.tolist())]
    want = [float(reference.transmit(times[i:i + 1], sizes[i:i + 1], 0, ports[i:i + 1])[0])
            for i in range(times.size)]
    assert got == want
    lanes.close(times, queues, work, scheduler.units(sizes))
    assert scheduler.frames_offered == reference.frames_offered == times.size
    assert scheduler.frames_in_system(times[-1]) == reference.frames_in_system(times[-1])
    if name in ("multiqueue", "fifo beside fluid", "multiqueue beside frames"):
        # the stream is where the lone frames left it
        assert scheduler.rng.random() == reference.rng.random()
    later = float(times[-1]) + 1e-6  # and the queues hold what they hold after the lone frames
    assert scheduler.transmit(np.array([later]), np.array([116.0]), 0, ports[:1]) == \
        reference.transmit(np.array([later]), np.array([116.0]), 0, ports[:1])


@settings(max_examples=60, deadline=None)
@given(frames)
def test_the_quiet_run_ends_at_the_first_frame_finding_its_queue_busy(drawn):
    scheduler = fifo()
    times, ports, sizes, queues = _lay_out(scheduler, drawn)
    work = scheduler.work(sizes)
    one_by_one = copy.deepcopy(scheduler).frame_lanes(queues, times.size, 1.0)
    lanes = scheduler.frame_lanes(queues, times.size, 1.0)
    assert lanes.predictable
    sojourn = lanes.lone_sojourn(queues, work)
    departures = [one_by_one.send(t, q, w) for t, q, w in zip(times.tolist(), queues.tolist(),
                                                               work.tolist())]
    waited = np.array(departures) != times + sojourn + lanes.latency
    taken = lanes.take_quiet(times, queues, work)
    assert taken == (int(np.argmax(waited)) if waited.any() else times.size)
    # the lanes stand where sending the taken frames one at a time leaves them
    replay = copy.deepcopy(fifo()).frame_lanes(queues, times.size, 1.0)
    for t, q, w in zip(times[:taken].tolist(), queues[:taken].tolist(), work[:taken].tolist()):
        replay.send(t, q, w)
    later = float(times[-1]) + 1e-7
    assert lanes.send(later, 0, 1e-7) == replay.send(later, 0, 1e-7)


def test_no_lanes_with_a_limit_within_reach():
    scheduler = make_uplink_scheduler("fifo", TEN_GIGABIT, 10, rng=np.random.default_rng(5))
    assert scheduler.frame_lanes(np.array([0]), 10, 1.0) is not None
    assert scheduler.frame_lanes(np.array([0]), 11, 1.0) is None


def test_lanes_beside_fluid_only_below_the_queues_rate_and_with_the_frames_work_known():
    one = np.array([0])
    assert fifo_beside_fluid(0.6).frame_lanes(one, PORTS, 1.0, LARGEST_WORK) is not None
    assert fifo_beside_fluid(0.6).frame_lanes(one, PORTS, 1.0) is None  # work unknown
    assert fifo_beside_fluid(1.0).frame_lanes(one, PORTS, 1.0, LARGEST_WORK) is None


@pytest.mark.parametrize("share, fits", [(0.5, True), (0.8, False)])
def test_lanes_beside_fluid_count_the_fluid_the_frames_may_hold_back(share, fits):
    """Ten frames of the largest size may hold back up to (10 + 1) frames' work / (1 - share)
    of fluid, in 1500-byte packets: 22 at half the rate, 55 at 0.8, against 40 places
    less the frames' own 10."""
    scheduler = make_uplink_scheduler("fifo", TEN_GIGABIT, 40, rng=np.random.default_rng(5))
    pps = share * TEN_GIGABIT / (1538 * 8)
    scheduler.set_flows(0.0, Flows.of([pps], [1500], [1], [BULK_PORT]))
    lanes = scheduler.frame_lanes(np.array([0]), 10, 1.0, LARGEST_WORK)
    assert (lanes is not None) == fits


@settings(max_examples=40, deadline=None)
@given(st.floats(0.05, 0.95), frames)
def test_frames_sent_through_lanes_beside_fluid_are_never_ones_transmit_drops(share, drawn):
    """Where the lanes are given, no frame they send is one the queue would drop: its limit
    (here a tight one) holds the frames and the fluid they hold back."""
    scheduler = make_uplink_scheduler("fifo", TEN_GIGABIT, 200, rng=np.random.default_rng(5))
    pps = share * TEN_GIGABIT / (1538 * 8)
    scheduler.set_flows(0.0, Flows.of([pps], [1500], [1], [BULK_PORT]))
    reference = copy.deepcopy(scheduler)
    times, ports, sizes, queues = _lay_out(scheduler, drawn)
    lanes = scheduler.frame_lanes(queues, times.size, 1.0, LARGEST_WORK)
    if lanes is None:
        return
    want = reference.transmit(times, sizes, 0, ports)
    assert not np.isnan(want).any()


def test_a_frame_finding_only_frames_of_other_queues_busy_draws_nothing():
    """Another queue busy with frames alone leaves no fluid packet's rest to wait out, so
    ``transmit`` draws nothing for it, as the lanes do not."""
    scheduler = multiqueue_beside_frames()
    ports = frame_ports(scheduler)
    assert scheduler._other_busy[scheduler.queue_index(ports[:1], ports[:1])[0]] > 0
    before = scheduler.rng.bit_generator.state
    scheduler.transmit(np.array([1e-3]), np.array([116.0]), 0, ports[:1])
    assert scheduler.rng.bit_generator.state == before


def paced_fifo(share, limit=60):
    """A FIFO of ``limit`` packets a fluid of 1500-byte packets flows into at ``share`` of its
    rate."""
    scheduler = make_uplink_scheduler("fifo", TEN_GIGABIT, limit, rng=np.random.default_rng(5))
    pps = share * TEN_GIGABIT / (1538 * 8)
    scheduler.set_flows(0.0, Flows.of([pps], [1500], [1], [BULK_PORT]))
    return scheduler


def test_lanes_beside_a_fluid_near_the_queues_rate_need_the_senders_spacing():
    """At 0.999 of the rate the fluid's bound alone is 2,000 frames' work against 60 places;
    one sender whose 1500-byte frames come at least 2 ms apart brings 0.06 % of the rate, less
    than the fluid leaves, and the bound from its spacing is a few frames'."""
    one = np.array([0])
    assert paced_fifo(0.999).frame_lanes(one, 1, 1.0, LARGEST_WORK) is None
    assert paced_fifo(0.999).frame_lanes(one, 1, 1.0, LARGEST_WORK, 2e-3, 1.0) is not None
    # frames every microsecond outrun what the fluid leaves: the excess counts up to ``until``
    assert paced_fifo(0.999).frame_lanes(one, 1, 1.0, LARGEST_WORK, 1e-6, 2e-6) is not None
    assert paced_fifo(0.999).frame_lanes(one, 1, 1.0, LARGEST_WORK, 1e-6, 1.0) is None


senders_frames = st.lists(st.lists(st.floats(0.0, 40e-6), min_size=1, max_size=30),
                          min_size=1, max_size=4)


@settings(max_examples=60, deadline=None)
@given(st.floats(0.9, 0.9999), st.floats(2e-6, 60e-6), st.sampled_from([116.0, 1500.0]),
       senders_frames)
def test_the_backlog_stays_under_the_bound_the_senders_spacing_gives(share, spacing, size,
                                                                      senders):
    """Senders of ``size``-byte frames at least ``spacing`` apart (plus drawn gaps) beside a
    fluid of 1500-byte packets: while the lanes send them, the queue's backlog never passes
    the bound ``fit`` counted (a small frame may wait out a whole fluid packet), and the
    queue itself drops none of them."""
    scheduler = paced_fifo(share, limit=4096)
    work = float(scheduler.work(size))
    arrivals = np.sort(np.concatenate([
        1e-3 + np.cumsum(spacing + np.array(gaps)) for gaps in senders]))
    until = float(arrivals[-1])
    queues = np.zeros(arrivals.size, dtype=np.int64)
    queue = scheduler.queues[0]
    bound = frame_lanes._paced_bound(queue, len(senders), work, spacing, until)
    reference = copy.deepcopy(scheduler)
    lanes = scheduler.frame_lanes(queues, len(senders), 1.0, work, spacing, until)
    assert lanes is not None
    for t in arrivals.tolist():
        lanes.send(t, 0, work)
        assert lanes.backlog[0] <= bound * (1 + 1e-12)
    sizes = np.full(arrivals.size, size)
    assert not np.isnan(reference.transmit(arrivals, sizes, 0, np.full(arrivals.size, 1))).any()


def test_a_gate_or_a_draw_makes_the_lanes_unpredictable():
    one_leaf = np.zeros(PORTS, dtype=np.int64)
    assert not netioc().frame_lanes(one_leaf, PORTS, 1.0).predictable
    assert netioc(hold=0.0).frame_lanes(one_leaf, PORTS, 1.0).predictable
    mq = multiqueue()
    ports = frame_ports(mq)
    assert not mq.frame_lanes(mq.queue_index(ports, ports), PORTS, 1.0).predictable
    idle = make_uplink_scheduler("multiqueue", TEN_GIGABIT, 4096, rng=np.random.default_rng(5))
    assert idle.frame_lanes(idle.queue_index(ports, ports), PORTS, 1.0).predictable


def test_schedulers_sending_frames_their_own_way_have_no_lanes():
    tbf = make_uplink_scheduler("tbf", TEN_GIGABIT, 100_000, "bytes",
                                rng=np.random.default_rng(5), rate=1e9, burst=10_000)
    assert tbf.frame_lanes(np.array([0]), 1, 1.0) is None
