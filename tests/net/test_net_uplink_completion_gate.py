import numpy as np
import pytest
from hypothesis import given, strategies as st

from vsim.net.uplink.completion_gate import CompletionGate


@given(st.lists(st.floats(0, 1), min_size=1, max_size=30))
def test_without_a_hold_every_frame_goes_at_once(times):
    times = np.sort(times)
    assert np.array_equal(CompletionGate(0.0).dispatch(times, 1e-7, False), times)


def test_frames_within_the_hold_wait_for_the_completion_signal():
    gate = CompletionGate(10e-6)
    out = gate.dispatch(np.array([0.0, 5e-6, 50e-6]), 1e-6, False)
    # the first goes at once; the second waits for its completion (1 us + 10 us hold)
    assert out == pytest.approx([0.0, 11e-6, 50e-6])


@given(st.lists(st.floats(0, 1e-3), min_size=1, max_size=30), st.floats(0, 50e-6))
def test_dispatch_never_precedes_arrival_and_keeps_order(times, hold):
    times = np.sort(times)
    out = CompletionGate(hold).dispatch(times, 1e-7, False)
    assert np.all(out >= times) and np.all(np.diff(out) >= 0)


@given(st.lists(st.floats(0, 1e-3), min_size=1, max_size=40), st.floats(1e-6, 50e-6),
       st.lists(st.integers(1, 40), max_size=5), st.booleans())
def test_frames_handed_in_parts_are_dispatched_as_when_handed_at_once(times, hold, cuts, sending):
    times = np.sort(times)
    whole = CompletionGate(hold).dispatch(times, 1e-7, sending)
    gate = CompletionGate(hold)
    parts = [gate.dispatch(part, 1e-7, sending) for part in np.split(times, sorted(set(cuts)))]
    assert np.array_equal(np.concatenate(parts), whole)


def test_a_frame_arriving_before_a_planned_pass_joins_its_batch():
    gate = CompletionGate(10e-6)
    gate.dispatch(np.array([0.0, 1e-6]), 1e-6, False)  # the second waits for the pass at 11 us
    assert gate.dispatch_one(5e-6, 1e-6, False) == pytest.approx(11e-6)
    # the batch now holds two frames: its completion comes 2 us + 10 us after the pass
    assert (gate.pass_at, gate.batch) == pytest.approx((11e-6, 2e-6))
