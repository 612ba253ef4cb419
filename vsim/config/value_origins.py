"""Where a value of a scenario came from: its config file, a ``--set``, or the default.

A refusal that lists the values making a run too large says, for each, where it was
set, so the user knows what to change: the file, the command line or nothing (a
default they may not know they relied on).
"""

from dataclasses import dataclass

from vsim.config.named_tables import split_named_key
from vsim.config.override_source import overriding_assignment

FROM_SET = "--set"
FROM_CONFIG = "the config"
FROM_DEFAULT = "the default"


@dataclass(frozen=True)
class ValueOrigins:
    """The config file's own document (``written``, before any override) and the ``--set``
    assignments applied over it."""

    written: dict
    assignments: tuple[str, ...] = ()

    def of(self, key):
        """``FROM_SET``, ``FROM_CONFIG`` or ``FROM_DEFAULT`` for the dotted ``key``
        (``vm.instances``, ``group.flood.count``)."""
        if overriding_assignment(key, list(self.assignments)) is not None:
            return FROM_SET
        return FROM_CONFIG if _written(self.written, key) else FROM_DEFAULT


def _written(data, key):
    """Whether the parsed document ``data`` sets the dotted ``key`` (a named table's key
    looked up in the table of that name)."""
    named = split_named_key(key)
    if named is not None:
        tables = _table(data, named.array.split("."))
        tables = tables if isinstance(tables, list) else []
        data = next((table for table in tables if isinstance(table, dict) and table.get("name") == named.name),
                    {})
        parts = list(named.rest)
    else:
        parts = key.split(".")
    return _table(data, parts) is not None


def _table(data, parts):
    """What the document ``data`` holds at the key ``parts``, or None."""
    for part in parts:
        if not isinstance(data, dict) or part not in data:
            return None
        data = data[part]
    return data
