"""Window-limited TCP senders keep their window beyond the bandwidth-delay product queued at
their bottleneck: a frame sharing that queue waits for it, a frame of a queue of its own
does not (``UplinkScheduler.standing``)."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from vsim.net.fluid.flows import Flows
from vsim.net.frames import serialization_time
from vsim.net.hclock.tree import Node, Tree
from vsim.net.uplink import make_uplink_scheduler

RATE = 10e9
MTU = 1500


def lone_delay(uplink, port, at=1.0):
    """Uplink delay of one 1500-byte frame from ``port`` handed at ``at``."""
    return float(uplink.transmit(np.array([at]), MTU, 9, port)[0] - at)


@settings(deadline=None, max_examples=40)
@given(streams=st.integers(1, 12), window=st.floats(5.0, 200.0), rtt=st.floats(1e-6, 2e-4))
def test_a_frame_behind_window_limited_streams_waits_for_their_windows_beyond_the_path(
        streams, window, rtt):
    uplink = make_uplink_scheduler("fifo", RATE, 100_000, rng=np.random.default_rng(1))
    line = 1 / serialization_time(MTU, RATE)
    uplink.set_flows(0.0, Flows.of([line] * streams, MTU, 1, list(range(1, streams + 1)),
                                   elastic=True, in_flight=window, rtt=rtt))
    rate = uplink.flow_rates[0]  # each stream's equal share of the link
    queued = streams * max(0.0, window - rate * rtt)
    service = float(serialization_time(MTU, RATE))
    # the frame waits for the queued packets and its own service; a wire rest at most one more
    assert lone_delay(uplink, 0) == pytest.approx(queued * service + service, abs=service * 1.001)


def test_without_a_window_a_stream_never_queues():
    uplink = make_uplink_scheduler("fifo", RATE, 4096, rng=np.random.default_rng(1))
    line = 1 / serialization_time(MTU, RATE)
    uplink.set_flows(0.0, Flows.of([line] * 3, MTU, 1, [1, 2, 3], elastic=True))
    assert not uplink.standing.any()
    assert lone_delay(uplink, 0) < 2 * float(serialization_time(MTU, RATE))


def test_the_standing_backlog_is_at_most_the_queue_limit():
    uplink = make_uplink_scheduler("fifo", RATE, 100, rng=np.random.default_rng(1))
    line = 1 / serialization_time(MTU, RATE)
    uplink.set_flows(0.0, Flows.of([line] * 4, MTU, 1, [1, 2, 3, 4], elastic=True,
                                   in_flight=1000.0, rtt=1e-5))
    assert uplink.standing[0] == pytest.approx(100 * float(serialization_time(MTU, RATE)))


def test_per_port_queues_keep_a_port_out_of_the_others_backlog():
    tree = Tree([Node("vm", "class", children=(Node("bulk", "port", shares=600.0),
                                                Node("web", "port", shares=50.0)))], RATE)
    uplink = make_uplink_scheduler("netioc", RATE, 4096, rng=np.random.default_rng(1), tree=tree,
                                   port_leaf={0: "web", 1: "bulk", 2: "bulk"})
    line = 1 / serialization_time(MTU, RATE)
    uplink.set_flows(0.0, Flows.of([line, line], MTU, 1, [1, 2], elastic=True,
                                   in_flight=45.0, rtt=5e-5))
    bulk, web = (int(uplink.queue_index(np.array([1]), np.array([port]))[0]) for port in (1, 0))
    assert uplink.standing[bulk] > 0 and uplink.standing[web] == 0
    fifo = make_uplink_scheduler("fifo", RATE, 4096, rng=np.random.default_rng(1))
    fifo.set_flows(0.0, Flows.of([line, line], MTU, 1, [1, 2], elastic=True, in_flight=45.0,
                                 rtt=5e-5))
    service = float(serialization_time(MTU, RATE))
    # the web port's frame takes its own leaf's rate and may wait out a bulk frame on the wire
    assert lone_delay(uplink, 0) == pytest.approx(service / uplink.rates[web], abs=1.001 * service)
    assert lone_delay(fifo, 0) > 2 * (45 - line / 2 * 5e-5) * service
