"""The claims file: its studies' names, and the band check."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vsim.config.claims import in_band, load_claims, study_names


def test_study_names_are_the_claims_studies_each_once_sorted():
    names = study_names()
    assert names == tuple(sorted(set(names)))
    assert set(names) == {claim.study for claim in load_claims()}
    assert {"voip-vsphere5", "netioc-vsphere6"} <= set(names)


@given(st.floats(-10, 10, allow_nan=False), st.floats(-10, 10, allow_nan=False),
       st.floats(-10, 10, allow_nan=False))
def test_a_number_is_in_band_between_its_ends(value, low, high):
    assert in_band(value, [low, high]) == (low <= value <= high)


@pytest.mark.parametrize("value, band, inside", [
    (None, [0, 1], False), (float("nan"), [0, 1], False),
    ([0.5, 2.0], [[0, 1], [1, 3]], True), ([0.5, 4.0], [[0, 1], [1, 3]], False),
    ([0.5], [[0, 1], [1, 3]], False),
])
def test_null_nan_and_lists_of_values(value, band, inside):
    assert in_band(value, band) == inside
