"""Deprecated: ``vsim.traces.detect``, the home of every trace format."""

import warnings

from vsim.traces.detect import read_any

__all__ = ["read_any"]
warnings.warn("vsim.validate.detect moved to vsim.traces.detect; import it from there "
              "(the old name goes in the next release)", DeprecationWarning, stacklevel=2)
