"""vsim.net.fluid.in_system: the packets a fluid queue holds, as numpy arrays would hold them."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vsim.net.fluid.in_system import InSystem, numpy_sum

values = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)


@settings(max_examples=300)
@given(st.lists(values, max_size=400), st.data())
def test_numpy_sum_is_numpys_own_pairwise_sum(items, data):
    start = data.draw(st.integers(0, len(items)))
    assert numpy_sum(items, start) == float(np.array(items, dtype=float)[start:].sum())


def test_numpy_sum_differs_from_a_running_sum_where_numpy_does():
    """The test above could not tell a plain running sum apart on short lists; here the
    orders of addition give different doubles."""
    items = [0.1] * 9
    running = 0.0
    for x in items:
        running += x
    assert numpy_sum(items, 0) == float(np.array(items).sum()) != running


@settings(max_examples=200)
@given(st.lists(st.tuples(st.lists(st.floats(min_value=0.0, max_value=10.0), min_size=1, max_size=8),
                          st.floats(min_value=0.0, max_value=10.0)), max_size=12))
def test_admit_and_forget_keep_what_a_stable_argsort_keeps(steps):
    held = InSystem()
    dep, work, units = np.empty(0), np.empty(0), np.empty(0)
    for k, (departures, now) in enumerate(steps):
        new_work = [float(k) + i / 100 for i in range(len(departures))]
        new_units = [float(i) for i in range(len(departures))]
        held.admit(new_work, new_units, departures)
        order = np.argsort(np.concatenate((dep, departures)), kind="stable")
        dep = np.concatenate((dep, departures))[order]
        work = np.concatenate((work, new_work))[order]
        units = np.concatenate((units, new_units))[order]
        assert held.count_after(now) == int(np.count_nonzero(dep > now))
        cut = int(np.searchsorted(dep, now, side="right"))
        assert held.totals_after(now) == (float(work[cut:].sum()), float(units[cut:].sum()))
        assert held.next_departure_after(now) == (dep[cut] if cut < dep.size else np.inf)
        held.forget(now)
        dep, work, units = dep[cut:], work[cut:], units[cut:]
        assert (held.departures, held.work, held.units) == (dep.tolist(), work.tolist(), units.tolist())
        assert held.last_departure() == (dep[-1] if dep.size else -np.inf)
