"""Weighted water-filling: share an amount by weights, each part under a cap.

The building block of every fluid allocation in the uplink model: part ``i``
gets ``min(cap_i, level * weight_i)`` with the one ``level`` that hands out
``min(amount, sum(caps))``, so parts below their cap stay in proportion to
their weights and what a capped part cannot use goes to the others.
"""

import numpy as np


def waterfill(amount, weights, caps):
    """Parts of ``amount`` in proportion to ``weights``, part ``i`` at most ``caps[i]``.

    ``weights`` are positive, ``caps`` non-negative (``inf`` allowed),
    ``amount`` non-negative. Sorting by ``cap / weight`` gives the order in
    which parts reach their caps; the level is found in one pass.
    """
    weights = np.asarray(weights, dtype=float)
    caps = np.asarray(caps, dtype=float)
    if weights.size == 0:
        return np.zeros(0)
    if np.sum(caps) <= amount:
        return caps.copy()
    ratio = caps / weights
    order = np.argsort(ratio, kind="stable")
    sorted_caps = caps[order]
    sorted_weights = weights[order]
    capped_before = np.concatenate(([0.0], np.cumsum(sorted_caps)[:-1]))
    weight_after = np.cumsum(sorted_weights[::-1])[::-1]
    # level if parts 0..k-1 are capped and parts k.. are not
    levels = (amount - capped_before) / weight_after
    fits = levels <= ratio[order]
    k = int(np.argmax(fits))
    level = levels[k]
    return np.minimum(caps, level * weights)
