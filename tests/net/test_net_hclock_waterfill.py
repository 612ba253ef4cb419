"""Water-filling against its defining properties."""

import numpy as np
from hypothesis import given, strategies as st

from vsim.net.hclock.waterfill import waterfill

positive = st.floats(0.01, 100.0)
caps = st.one_of(st.floats(0.0, 50.0), st.just(np.inf))


@given(st.floats(0.0, 200.0), st.lists(st.tuples(positive, caps), min_size=1, max_size=12))
def test_waterfill_hands_out_what_it_can_in_proportion_under_caps(amount, parts):
    weights = np.array([w for w, _ in parts])
    cap = np.array([c for _, c in parts])
    x = waterfill(amount, weights, cap)
    assert np.all(x >= -1e-12) and np.all(x <= cap + 1e-9)
    assert abs(x.sum() - min(amount, cap.sum())) <= 1e-9 * max(1.0, amount)
    free = x < cap - 1e-9
    if free.sum() >= 2:
        level = x[free] / weights[free]
        assert np.allclose(level, level[0], rtol=1e-9)
    # a capped part is capped below the level of the free ones
    if free.any():
        level = (x[free] / weights[free])[0]
        assert np.all(cap[~free] / weights[~free] <= level * (1 + 1e-9) + 1e-9)


def test_waterfill_example():
    assert np.allclose(waterfill(10.0, [1, 1, 2], [1, np.inf, np.inf]), [1, 3, 6])
