"""Field metadata of the config dataclasses: bounds, unit and meaning in one dict.

``vsim.config.typed`` reads the dict of each dataclass field (``min``,
``max``, ``min_exclusive``, ``max_exclusive``, ``unit``, ``doc``) to check a
value and to describe the key; these helpers spell the two bounds most
numbers take.
"""


def positive(unit=None, doc=""):
    """Metadata of a number above 0, in ``unit``, meaning ``doc``."""
    return {"min": 0, "min_exclusive": True, "unit": unit, "doc": doc}


def non_negative(unit=None, doc=""):
    """Metadata of a number at least 0, in ``unit``, meaning ``doc``."""
    return {"min": 0, "unit": unit, "doc": doc}
