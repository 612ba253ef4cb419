"""Checks shared by the traffic sources: a bad parameter is an ``InputError``
naming the source file and the parameter."""

import math
from typing import Any, Optional

from vsim.core.errors import InputError

IP_MAX = 65535
"""The largest IPv4 packet: its total-length field is 16 bits (RFC 791, section 3.1)."""

MAX_PPS = 1e9
"""The most packets a second a source may send: above any Ethernet link's minimum-size frame
rate (400 GbE carries 595 million 84-byte wire frames a second, IEEE 802.3bs), so a larger
rate is a mistake (bits or bytes a second given as packets), not a load a host can meet."""


def positive(value: Any, name: str, source: str, where: str, allow_inf: bool = False) -> float:
    """``value`` as a float, refused unless positive (and finite unless ``allow_inf``)."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 \
        and not math.isnan(value) and (allow_inf or math.isfinite(value))
    if not ok:
        raise InputError(source, f"{where}.{name}",
                         f"a positive {'' if allow_inf else 'finite '}number, got {value!r}")
    return float(value)


def packet_rate(value: Any, name: str, source: str, where: str) -> float:
    """``value`` as a float, refused unless a positive packet rate of at most ``MAX_PPS``."""
    rate = positive(value, name, source, where)
    if rate > MAX_PPS:
        raise InputError(source, f"{where}.{name}",
                         f"expected at most {MAX_PPS:.0e} packets/s (more than 400 GbE carries; "
                         f"a bit or byte rate given as packets?), got {value!r}")
    return rate


def non_negative(value: Any, name: str, source: str, where: str) -> float:
    """``value`` if it is a finite number >= 0, else an ``InputError`` naming ``name``."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0 \
        and math.isfinite(value)
    if not ok:
        raise InputError(source, f"{where}.{name}", f"a non-negative finite number, got {value!r}")
    return float(value)


def ip_packet(value: Any, name: str, source: str, where: str, headers: int) -> float:
    """``value`` as a float, refused unless an IPv4 packet of that many bytes can exist: at
    least its ``headers`` (IP and transport) and at most ``IP_MAX``."""
    size = positive(value, name, source, where)
    if not headers <= size <= IP_MAX:
        raise InputError(source, f"{where}.{name}",
                         f"expected IP packet bytes from {headers} (the headers) to {IP_MAX}, got {value!r}")
    return size


def whole(value: Any, name: str, source: str, where: str, low: int = 1,
          high: Optional[int] = None) -> int:
    """``value`` as an int, refused unless a whole number from ``low`` (to ``high``)."""
    ok = (isinstance(value, (int, float)) and not isinstance(value, bool)
          and math.isfinite(value) and value == int(value) and value >= low
          and (high is None or value <= high))
    if not ok:
        span = f"from {low} to {high}" if high is not None else f"of {low} or more"
        raise InputError(source, f"{where}.{name}", f"a whole number {span}, got {value!r}")
    return int(value)


def flag(value: Any, name: str, source: str, where: str) -> bool:
    """``value`` if it is true or false, else an ``InputError`` naming ``name``."""
    if not isinstance(value, bool):
        raise InputError(source, f"{where}.{name}", f"true or false, got {value!r}")
    return value


def text(value: Any, name: str, source: str, where: str) -> str:
    """``value`` if it is a non-empty string, else an ``InputError`` naming ``name``."""
    if not isinstance(value, str) or not value:
        raise InputError(source, f"{where}.{name}", f"a non-empty string, got {value!r}")
    return value
