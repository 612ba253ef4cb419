"""Completion interrupts of a vNIC from the uplink's order of frames: closed forms and bounds."""

import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

from vsim.net.hclock.tree import Node, Tree
from vsim.net.shared_uplink import SharedUplink
from vsim.net.txpath.completions import CompletionInterrupts
from vsim.net.uplink import make_uplink_scheduler

TEN_G = 1e10
MTU = 1500
SERVICE = (MTU + 38) * 8 / TEN_G          # a full frame on the wire
LINE_PPS = 1 / SERVICE
HOLD = 33e-6
CAP = 4000.0
BURST = 45


def uplink(name, ports, quantum=8):
    """A SharedUplink of ``ports`` ports, each with one elastic 1500-byte flow."""
    params = {}
    if name == "netioc":
        tree = Tree([Node("vms", "port")], TEN_G)
        params = {"tree": tree, "port_leaf": {p: "vms" for p in range(ports)},
                  "quantum_frames": quantum}
    shared = SharedUplink(make_uplink_scheduler(name, TEN_G, 4096, rng=np.random.default_rng(1),
                                                **params))
    flows = [shared.add_flow(shared.add_port(f"vm{p}"), MTU, 1 + p, elastic=True)
             for p in range(ports)]
    shared.begin(1.0)
    for flow in flows:
        shared.set_rate(0.0, flow, LINE_PPS)
    return shared, flows


def interrupts(name, ports, quantum=8, burst=BURST):
    shared, flows = uplink(name, ports, quantum)
    return [CompletionInterrupts(shared, flow, burst, CAP, HOLD).rate() for flow in flows]


def test_whole_bursts_give_one_interrupt_per_burst_under_the_cap():
    # 12 ports on 4 queues, each port at its queue's share; 45-frame bursts last 55 µs, longer
    # than the hold, so every burst is signalled alone
    shared, flows = uplink("multiqueue", 12)
    rates = [CompletionInterrupts(shared, flow, BURST, CAP, HOLD).rate() for flow in flows]
    assert rates == pytest.approx([min(CAP, shared.frames_rate(flow) / BURST) for flow in flows])


def test_interleaving_cuts_bursts_into_quantum_runs():
    # 100 ports: a round of 8-frame runs takes 984 µs, far above the hold: batches of 8
    rates = interrupts("netioc", 100, quantum=8)
    assert rates == pytest.approx([min(CAP, LINE_PPS / 100 / 8)] * 100)


def test_runs_closer_than_the_hold_merge():
    # 2 ports, 1-frame runs: a round takes 2.46 µs, so 1 + floor(33 / 2.46) = 14 runs merge
    merged = 1 + math.floor(HOLD / (2 * SERVICE))
    rates = interrupts("netioc", 2, quantum=1)
    assert rates == pytest.approx([min(CAP, LINE_PPS / 2 / merged)] * 2)


def test_a_port_alone_keeps_its_bursts_under_netioc():
    assert interrupts("netioc", 1, quantum=1) == interrupts("multiqueue", 1)


def test_the_count_raised_adds_up_each_rate_over_the_time_it_held():
    """A flow's interrupts go with its rate and the other ports': the count follows the changes
    of any flow, at the times they happen."""
    shared, flows = uplink("netioc", 2, quantum=1)
    watched = CompletionInterrupts(shared, flows[0], BURST, 1e6, HOLD)  # no cap to hide the change
    together = watched.rate()  # two ports interleaving 1-frame runs
    shared.set_rate(0.25, flows[1], 0.0)
    alone = watched.rate()     # whole bursts again
    shared.set_rate(0.75, flows[0], 0.0)
    assert together != alone
    assert watched.raised(1.0) == pytest.approx(0.25 * together + 0.5 * alone)
    assert watched.raised(0.5) == pytest.approx(0.25 * together + 0.5 * alone)  # no going back


def test_a_silent_flow_raises_none():
    shared, flows = uplink("multiqueue", 3)
    shared.set_rate(0.5, flows[0], 0.0)
    assert CompletionInterrupts(shared, flows[0], BURST, CAP, HOLD).rate() == 0.0
    assert shared.backlogged_others(flows[1]) == 1


@given(st.integers(1, 120), st.integers(1, 64))
def test_interleaving_never_lowers_interrupts_and_the_cap_holds(ports, quantum):
    whole = interrupts("netioc", ports, quantum=BURST)
    cut = interrupts("netioc", ports, quantum)
    assert all(n >= d - 1e-9 for n, d in zip(cut, whole))
    assert max(cut) <= CAP


@given(st.integers(2, 120), st.integers(BURST, 200))
def test_a_quantum_of_a_whole_burst_keeps_the_bursts(ports, quantum):
    per_port = LINE_PPS / ports
    assert interrupts("netioc", ports, quantum) == pytest.approx([min(CAP, per_port / BURST)] * ports)
