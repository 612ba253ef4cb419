"""Units. Simulation time is in seconds, sizes in bytes, rates in bits/s."""

BITS_PER_BYTE = 8


def to_ms(seconds):
    """Seconds to milliseconds, for reports (the model itself works in seconds)."""
    return seconds * 1e3
