"""Named random streams.

Every component draws from its own ``numpy.random.Generator``, derived from the
run seed and the component's *name* (not its creation order). Adding a
component, or creating components in another order, therefore never shifts the
numbers another component sees.
"""

import hashlib

import numpy as np


def _name_key(name):
    digest = hashlib.sha256(name.encode("utf-8")).digest()
    return tuple(int.from_bytes(digest[i:i + 4], "little") for i in range(0, 16, 4))


class RandomStreams:
    """Factory of independent generators keyed by component name."""

    def __init__(self, seed):
        if not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
        self.seed = int(seed)

    def stream(self, name):
        """The generator for ``name``; the same name always gives the same sequence."""
        sequence = np.random.SeedSequence(entropy=self.seed, spawn_key=_name_key(name))
        return np.random.Generator(np.random.PCG64(sequence))
