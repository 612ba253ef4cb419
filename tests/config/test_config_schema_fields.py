"""Field bounds: ``positive`` takes numbers above 0, ``non_negative`` numbers from 0 on."""

from dataclasses import dataclass, field

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vsim.core.errors import InputError
from vsim.config.schema_fields import non_negative, positive
from vsim.config.typed import check_field, describe


@dataclass(frozen=True)
class Bounded:
    """Two times with the two bounds."""

    above_zero: float = field(metadata=positive("s", "a time above zero"))
    from_zero: float = field(metadata=non_negative("s", "a time from zero"))


def accepted(name, value):
    try:
        check_field(Bounded, name, value, source="t.toml", path=name)
    except InputError as error:
        assert error.where == name and "expected" in error.expected
        return False
    return True


@given(st.floats(-1e9, 1e9, allow_nan=False))
def test_positive_takes_exactly_the_numbers_above_zero(value):
    assert accepted("above_zero", value) == (value > 0)


@given(st.floats(-1e9, 1e9, allow_nan=False))
def test_non_negative_takes_exactly_the_numbers_from_zero(value):
    assert accepted("from_zero", value) == (value >= 0)


@pytest.mark.parametrize("bound", [positive, non_negative])
def test_unit_and_meaning_reach_the_description(bound):
    meta = bound("Mb/s", "a rate")
    assert meta["unit"] == "Mb/s" and meta["doc"] == "a rate" and meta["min"] == 0
    rows = {key: doc for key, _, _, doc in describe(Bounded)}
    assert rows == {"above_zero": "a time above zero", "from_zero": "a time from zero"}
