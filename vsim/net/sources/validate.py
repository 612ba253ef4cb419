"""Checks shared by the traffic sources: a bad parameter is an ``InputError``
naming the source file and the parameter."""

import math

from vsim.core.errors import InputError


def positive(value, name, source, where, allow_inf=False):
    """``value`` as a float, refused unless positive (and finite unless ``allow_inf``)."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 \
        and not math.isnan(value) and (allow_inf or math.isfinite(value))
    if not ok:
        raise InputError(source, f"{where}.{name}",
                         f"a positive {'' if allow_inf else 'finite '}number, got {value!r}")
    return float(value)


def non_negative(value, name, source, where):
    """``value`` if it is a finite number >= 0, else an ``InputError`` naming ``name``."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0 \
        and math.isfinite(value)
    if not ok:
        raise InputError(source, f"{where}.{name}", f"a non-negative finite number, got {value!r}")
    return float(value)
