"""``vsim sweep``'s ``--vary``, ``--design``, ``--points`` and ``--design-seed``: a [sweep]
table written on the command line.

Each ``--vary KEY=V1,V2,...`` lists a key's values (each read as a TOML value, as ``--set``
reads them: ``true``, ``12``, ``0.5``, a model's name), and ``--vary KEY=LOW:HIGH`` gives a
range for the random, lhs and sobol designs. Given once or more, the options replace the
config's [sweep] with ``[[sweep.axis]]`` tables in the order given (the first is the figures'
x axis), checked as the config's would be, but blamed on ``--vary``.
"""

from vsim.config.schema_sweep import SweepSection
from vsim.config.toml_io import parse_value
from vsim.config.typed import from_dict
from vsim.core.errors import InputError


def vary_axis(text):
    """The [[sweep.axis]] table of one ``--vary KEY=V1,V2`` or ``--vary KEY=LOW:HIGH``."""
    key, sep, values = text.partition("=")
    key, values = key.strip(), values.strip()
    if not sep or not key or not values:
        raise InputError(f"--vary {text}", None, "expected KEY=V1,V2,... or KEY=LOW:HIGH")
    if ":" in values and "," not in values and not values.startswith(("[", '"')):
        low, _, high = values.partition(":")
        ends = [parse_value(end.strip()) for end in (low, high)]
        if not all(isinstance(end, (int, float)) and not isinstance(end, bool) for end in ends):
            raise InputError(f"--vary {text}", key, "expected a range of two numbers, LOW:HIGH")
        return {"key": key, "low": ends[0], "high": ends[1]}
    return {"key": key, "values": [parse_value(item.strip()) for item in values.split(",")]}


def vary_table(varies, design=None, points=None, design_seed=None):
    """The [sweep] table ``--vary`` (a list of its texts) and the design options give, checked
    (an ``InputError`` blamed on ``--vary`` names the key at fault); None without ``--vary``."""
    if not varies:
        return None
    table = {"axis": [vary_axis(text) for text in varies]}
    for name, value in (("design", design), ("points", points), ("design_seed", design_seed)):
        if value is not None:
            table[name] = value
    from_dict(SweepSection, table, source="--vary", path="sweep")
    return table


def design_overrides(design=None, points=None, design_seed=None):
    """``--set`` assignments of the design options for a config's own [sweep] (no ``--vary``)."""
    named = (("design", None if design is None else f'"{design}"'), ("points", points),
             ("design_seed", design_seed))
    return [f"sweep.{name}={value}" for name, value in named if value is not None]
