"""The sip-jvm-gc recipe's readings of a sweep: where a curve crosses its bound, the capacity."""

from hypothesis import given, strategies as st

from vsim.experiments.sip_jvm_gc import first_crossing


def test_the_crossing_is_linear_between_the_points_around_it():
    assert first_crossing([(10, 5.0), (20, 5.0), (30, 45.0), (40, 85.0)], 25.0) == 25.0


def test_no_crossing_when_the_curve_never_rises_above_or_starts_above():
    assert first_crossing([(10, 5.0), (20, 6.0)], 25.0) is None
    assert first_crossing([(10, 30.0), (20, 60.0)], 25.0) is None


@given(st.lists(st.floats(0, 1e3), min_size=2, max_size=12), st.floats(1, 500), st.floats(0, 100))
def test_a_stricter_bound_never_gives_a_higher_rate(ys, bound, tighter):
    """The capacity search is monotone: lowering the bound never raises the rate found."""
    points = [(10.0 * (i + 1), y) for i, y in enumerate(ys)]
    loose, strict = first_crossing(points, bound), first_crossing(points, max(0.0, bound - tighter))
    if loose is not None and strict is not None:
        assert strict <= loose + 1e-9
