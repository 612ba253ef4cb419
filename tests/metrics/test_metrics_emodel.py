"""Tests of the G.107 E-model against its closed forms and its published points."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vsim.metrics import emodel

G729_IE, G729_BPL = 11.0, 19.0
DELAYS = st.floats(min_value=0.0, max_value=1000.0, allow_nan=False)
# G.107's talker echo dips slightly below zero under 4.5 ms; every real path is longer
PATH_DELAYS = st.floats(min_value=4.5, max_value=1000.0, allow_nan=False)
LOSSES = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
BURSTS = st.floats(min_value=1.0, max_value=10.0, allow_nan=False)


def listener_echo_at_zero_delay():
    """G.107's Idle with Tr = 0: Rle = 10.5 (WEPL + 7), Idle = (Ro - Rle)/2 + sqrt(((Ro - Rle)/2)^2 + 169)."""
    half = (94.77 - 10.5 * (110 + 7)) / 2
    return half + math.sqrt(half ** 2 + 169)


def test_no_impairment_gives_g107s_best_narrowband_rating():
    r = emodel.rating(0.0, 0.0, ie=0.0, bpl=25.1)
    assert r == pytest.approx(94.77 - 1.41 - listener_echo_at_zero_delay(), abs=1e-12)
    assert listener_echo_at_zero_delay() == pytest.approx(0.149, abs=1e-3)
    assert round(r, 1) == 93.2


@pytest.mark.parametrize("r, score", [(93.2, 4.41), (50.0, 2.575), (90.0, 4.34), (70.0, 3.60),
                                      (60.0, 3.10), (100.0, 4.5), (0.0, 1.0)])
def test_mos_at_g107_annex_b_points(r, score):
    assert emodel.mos(r) == pytest.approx(score, abs=5e-3)


def test_mos_cubic_in_the_open_range():
    r = 80.0
    assert emodel.mos(r) == pytest.approx(1 + 0.035 * r + r * (r - 60) * (100 - r) * 7e-6, abs=1e-12)


@given(st.floats(min_value=-50, max_value=150, allow_nan=False))
def test_mos_stays_on_its_scale(r):
    assert 1.0 <= emodel.mos(r) <= 4.5


@given(st.floats(min_value=-50, max_value=150, allow_nan=False),
       st.floats(min_value=-50, max_value=150, allow_nan=False))
def test_mos_is_non_decreasing_in_r(a, b):
    low, high = sorted((a, b))
    assert emodel.mos(low) <= emodel.mos(high) + 1e-12


@given(st.floats(min_value=0, max_value=95), st.floats(min_value=1, max_value=50), BURSTS)
def test_effective_impairment_without_loss_is_the_codecs(ie, bpl, burst):
    assert emodel.effective_equipment_impairment(ie, bpl, 0.0, burst) == ie


def test_effective_impairment_closed_form_for_g729():
    # 11 + 84 * 2 / (2 + 19) = 19 exactly at 2 % random loss
    assert emodel.effective_equipment_impairment(G729_IE, G729_BPL, 2.0) == pytest.approx(19.0)
    # bursty loss at the same rate impairs more: 11 + 84 * 2 / (1 + 19)
    assert emodel.effective_equipment_impairment(G729_IE, G729_BPL, 2.0, 2.0) == pytest.approx(19.4)


def test_burst_ratio_below_one_counts_as_random():
    assert (emodel.effective_equipment_impairment(G729_IE, G729_BPL, 5.0, 0.5)
            == emodel.effective_equipment_impairment(G729_IE, G729_BPL, 5.0, 1.0))


def test_all_packets_lost_leaves_the_floor_of_95():
    assert emodel.effective_equipment_impairment(G729_IE, G729_BPL, 100.0) == pytest.approx(
        11 + 84 * 100 / 119)


@pytest.mark.parametrize("delay", [0.0, 50.0, 99.9, 100.0])
def test_no_absolute_delay_impairment_up_to_100_ms(delay):
    assert emodel.absolute_delay_impairment(delay) == 0.0


def test_absolute_delay_impairment_closed_form_at_200_ms():
    # X = log2(200 / 100) = 1: Idd = 25 ((2)^(1/6) - 3 (1 + 3^-6)^(1/6) + 2)
    expected = 25 * (2 ** (1 / 6) - 3 * (1 + 3 ** -6) ** (1 / 6) + 2)
    assert emodel.absolute_delay_impairment(200.0) == pytest.approx(expected, rel=1e-12)


def test_talker_echo_closed_form_at_150_ms():
    # TERV = 65 - 40 log10(16 / 2) (the exp term vanishes), Re = 80 + 2.5 (TERV - 14)
    terv = 65 - 40 * math.log10(8)
    diff = 94.77 - (80 + 2.5 * (terv - 14))
    expected = (diff / 2 + math.sqrt(diff ** 2 / 4 + 100) - 1) * (1 - math.exp(-150))
    assert emodel.talker_echo_impairment(150.0) == pytest.approx(expected, rel=1e-12)
    assert emodel.talker_echo_impairment(0.0) == 0.0


def test_delay_impairment_sums_its_three_parts():
    d = 250.0
    assert emodel.delay_impairment(d) == pytest.approx(
        emodel.talker_echo_impairment(d) + emodel.listener_echo_impairment(2 * d)
        + emodel.absolute_delay_impairment(d), rel=1e-12)


def cole_rosenbluth(d):
    """The straight-line fit of G.107's Id: 0.024 d + 0.11 (d - 177.3) H(d - 177.3)."""
    return 0.024 * d + 0.11 * (d - 177.3) * (d > 177.3)


@pytest.mark.parametrize("delay", [0.0, 50.0, 100.0, 150.0, 177.3, 200.0, 250.0, 300.0, 400.0])
def test_delay_impairment_near_the_piecewise_fit(delay):
    assert abs(emodel.delay_impairment(delay) - cole_rosenbluth(delay)) < 3.5


def test_delay_impairment_steepens_past_the_fits_knee():
    """The fit's slope rises from 0.024 to 0.134 per ms at 177.3 ms; G.107's too, about as much."""
    before = (emodel.delay_impairment(170.0) - emodel.delay_impairment(120.0)) / 50
    after = (emodel.delay_impairment(280.0) - emodel.delay_impairment(230.0)) / 50
    assert before < 0.06 and 0.1 < after < 0.17


@given(PATH_DELAYS, PATH_DELAYS, LOSSES, BURSTS)
def test_rating_never_rises_with_delay(a, b, loss, burst):
    low, high = sorted((a, b))
    assert (emodel.rating(high, loss, G729_IE, G729_BPL, burst)
            <= emodel.rating(low, loss, G729_IE, G729_BPL, burst) + 1e-9)


@given(LOSSES, LOSSES, DELAYS, BURSTS)
def test_rating_never_rises_with_loss(a, b, delay, burst):
    low, high = sorted((a, b))
    assert (emodel.rating(delay, high, G729_IE, G729_BPL, burst)
            <= emodel.rating(delay, low, G729_IE, G729_BPL, burst) + 1e-9)


@given(PATH_DELAYS, LOSSES, BURSTS)
def test_rating_is_at_most_the_best_case(delay, loss, burst):
    assert emodel.rating(delay, loss, G729_IE, G729_BPL, burst) <= emodel.rating(0, 0, 0, G729_BPL)


@pytest.mark.parametrize("call", [
    lambda: emodel.rating(-1.0, 0.0, G729_IE, G729_BPL),
    lambda: emodel.rating(float("nan"), 0.0, G729_IE, G729_BPL),
    lambda: emodel.rating(10.0, 1.5, G729_IE, G729_BPL),
    lambda: emodel.effective_equipment_impairment(G729_IE, 0.0, 1.0),
])
def test_impossible_inputs_are_refused(call):
    with pytest.raises(ValueError):
        call()


# --------------------------------------------------------------- burst ratio
def test_no_loss_and_only_loss_have_burst_ratio_one():
    assert emodel.burst_ratio([[False] * 10]) == 1.0
    assert emodel.burst_ratio([[True] * 10]) == 1.0
    assert emodel.burst_ratio([]) == 1.0


def test_burst_ratio_closed_form():
    # 4 lost of 20 in one run of 4: mean run 4, random loss gives 1 / (1 - 0.2) = 1.25
    flags = [False] * 8 + [True] * 4 + [False] * 8
    assert emodel.burst_ratio([flags]) == pytest.approx(4 / 1.25)
    # isolated losses: runs of 1 -> 1 * (1 - p)
    spread = [True, False, False, False] * 5
    assert emodel.burst_ratio([spread]) == pytest.approx(1 - 0.25)


def test_burst_ratio_runs_do_not_join_across_streams():
    one = [False, False, True, True]
    two = [True, True, False, False]
    # two runs of 2 (not one run of 4), p = 0.5
    assert emodel.burst_ratio([one, two]) == pytest.approx(2 * 0.5)


@given(st.lists(st.lists(st.booleans(), max_size=40), max_size=5))
def test_burst_ratio_matches_counted_runs(streams):
    runs = sum(sum(1 for i, x in enumerate(s) if x and (i == 0 or not s[i - 1])) for s in streams)
    lost = sum(sum(s) for s in streams)
    packets = sum(len(s) for s in streams)
    expected = 1.0 if lost in (0, packets) else lost / runs * (1 - lost / packets)
    assert emodel.burst_ratio(streams) == pytest.approx(expected)
