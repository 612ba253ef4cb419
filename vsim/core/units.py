"""Units. Simulation time is in seconds, sizes in bytes, rates in bits/s."""

MS = 1e-3
US = 1e-6
KBPS = 1e3
MBPS = 1e6
GBPS = 1e9
BITS_PER_BYTE = 8


def ms(value):
    """Milliseconds to seconds."""
    return value * MS


def to_ms(seconds):
    """Seconds to milliseconds."""
    return seconds / MS
