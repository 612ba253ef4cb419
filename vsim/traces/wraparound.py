"""Counters that wrap around (RTP timestamps modulo 2^32, sequence numbers modulo 2^16) unwrapped.

Kept apart from the RTP stream statistics so that reading a trace's metrics
does not import scipy (the command line starts without it).
"""

import numpy as np

RTP_TIMESTAMP_MODULO = 1 << 32
RTP_SEQ_MODULO = 1 << 16


def unwrap(values, modulo):
    """Values extended past each wrap-around: steps taken as the shortest signed step modulo ``modulo``."""
    values = np.asarray(values).astype(np.int64)
    if not values.size:
        return values
    steps = np.diff(values) % modulo
    steps[steps >= modulo // 2] -= modulo
    return values[0] + np.concatenate(([0], np.cumsum(steps)))
