"""The first-order IIR filter y_k = b0 x_k - a1 y_{k-1}, evaluated as ``scipy.signal.lfilter``
evaluates it, operation for operation, so the result is the same to the last bit.

``lfilter([b0], [1, a1], x)`` runs the transposed direct form II with the numerator padded to
the denominator's length (b = [b0, 0]): each output is y_k = b0 x_k + z (operands in that
order, which fixes even the sign of a NaN), then the one delay becomes z = x_k * 0 - y_k a1, from z = 0 before the first sample. The same IEEE double
operations in the same order give the same bits (the filter's C loop is compiled for the
baseline x86-64, without fused multiply-adds); ``tests/metrics/test_metrics_first_order.py``
compares the two on random series. Doing it here spares every process that computes a jitter
the ~0.6 s import of ``scipy.signal``. The module is compiled (``vsim.native``): the loop over
one series then runs on C doubles, the same IEEE operations in the same order, some ten times
faster than the interpreter's, which computes a voice run's summary.

The recurrence is sequential, so it cannot be vectorised along one series without changing
the rounding; ``first_order_filter_rows`` instead steps many independent series at once, one
numpy operation per sample index across all of them.
"""

from typing import Any, Final, List

import numpy as np

_BLOCK: Final = 64  # steps copied side by side at a time


def first_order_filter(x: Any, b0: float, a1: float) -> Any:
    """``lfilter([b0], [1.0, a1], x)`` of one 1-D float series, bit for bit."""
    values = np.asarray(x, dtype=float)
    if values.ndim != 1:
        raise ValueError(f"first_order_filter takes a 1-D series, got shape {values.shape}")
    b0, a1 = float(b0), float(a1)  # a NumPy scalar computes as a Python float would, but slower
    samples: List[float] = values.tolist()
    out: List[float] = [0.0] * len(samples)
    z = 0.0
    for index in range(len(samples)):
        sample = samples[index]
        y = b0 * sample + z
        z = sample * 0.0 - y * a1
        out[index] = y
    return np.array(out, dtype=float)


def first_order_filter_rows(rows: Any, b0: float, a1: float) -> Any:
    """``lfilter([b0], [1.0, a1], row)`` of each row of a 2-D float64 array, in place.

    ``rows`` (one independent series a row, time along the row) is overwritten with the
    outputs; shorter series may be padded at the end (a sample affects only those after it).
    One step of the recurrence is taken for every row at once, on the column of that step;
    the columns are copied ``_BLOCK`` at a time into a buffer with each step's samples side by
    side, so a step reads contiguous memory however many rows there are.
    """
    if rows.ndim != 2 or rows.dtype != np.float64:
        raise ValueError("first_order_filter_rows takes a 2-D float64 array")
    b0, a1 = float(b0), float(a1)
    z = np.zeros(rows.shape[0])
    scratch = np.empty(rows.shape[0])
    with np.errstate(all="ignore"):  # as lfilter: non-finite samples propagate, silently
        for start in range(0, rows.shape[1], _BLOCK):
            block = np.ascontiguousarray(rows[:, start:start + _BLOCK].T)
            kept = block * 0.0  # x_k * 0: 0, or NaN where x_k is not finite
            block *= b0  # b0 x_k: elementwise, the same bits as step by step
            for y, kept_k in zip(block, kept):
                np.add(y, z, out=y)
                np.multiply(y, a1, out=scratch)
                np.subtract(kept_k, scratch, out=z)
            rows[:, start:start + _BLOCK] = block.T
    return rows
