"""Units. Simulation time is in seconds, sizes in bytes, rates in bits/s.

Reports give times in milliseconds: ``to_ms`` converts one time, ``mean_ms``
and ``p99_ms`` summarise an array of times, None when it is empty (a report
field with nothing to summarise is null, not a number).
"""

import numpy as np

BITS_PER_BYTE = 8


def to_ms(seconds):
    """Seconds to milliseconds, for reports (the model itself works in seconds)."""
    return seconds * 1e3


def mean_ms(seconds):
    """The mean of an array of times in seconds, in milliseconds; None when it is empty."""
    return to_ms(float(seconds.mean())) if seconds.size else None


def p99_ms(seconds):
    """The 99th percentile (NumPy's linear interpolation) of an array of times in seconds,
    in milliseconds; None when it is empty."""
    return to_ms(float(np.percentile(seconds, 99))) if seconds.size else None
