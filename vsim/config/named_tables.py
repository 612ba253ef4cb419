"""Keys that reach into an array of tables by the name of one of its tables.

``[[group]]``, ``[[netioc.node]]`` and ``[[htb.node]]`` are arrays, so a dotted key cannot
index them by position in a way a user could read or keep stable; instead every such table
has a ``name``, and ``group.flood.count`` means "the ``count`` of the [[group]] named
``flood``". ``--set`` applies such keys to the parsed TOML document and a ``[sweep]`` to the
typed scenario; both find the table through ``split_named_key`` and ``named_index`` here, so
the two accept the same keys and report an unknown name in the same words. An error that
the checks find inside such a table names it the same way (``naming_tables``), so the key in
the message is the one a ``--set`` or ``[sweep]`` would use.
"""

import re
from contextlib import contextmanager
from dataclasses import dataclass, replace

from vsim.core.errors import InputError, did_you_mean
from vsim.config.typed import fail

# Dotted paths of the arrays of tables whose tables are reached by their ``name``.
NAMED_ARRAYS = ("group", "netioc.node", "htb.node")


@dataclass(frozen=True)
class NamedKey:
    """A key ``ARRAY.NAME.REST``: the array's path, the table's name and the keys inside it."""

    array: str
    name: str
    rest: tuple[str, ...]

    def text(self):
        return ".".join((self.array, self.name) + self.rest)


def split_named_key(key):
    """The ``NamedKey`` that the dotted ``key`` spells, or None when it reaches no named array
    (``group.flood.count`` is one; ``vm.instances`` and ``group.flood`` are not)."""
    parts = [part.strip() for part in key.split(".")]
    for array in NAMED_ARRAYS:
        prefix = array.split(".")
        if parts[:len(prefix)] == prefix and len(parts) >= len(prefix) + 2:
            return NamedKey(array, parts[len(prefix)], tuple(parts[len(prefix) + 1:]))
    return None


# ``ARRAY[i]`` at the start of a key path, as the typed checks spell a table of an array.
_INDEXED = re.compile(r"(" + "|".join(re.escape(array) for array in NAMED_ARRAYS) + r")\[(\d+)\]")


def document_table_names(data):
    """{array: the names of its tables} of the parsed TOML document ``data`` (None where a
    table has no string name; an array the document lacks or holds something else has none)."""
    names = {}
    for array in NAMED_ARRAYS:
        tables = data
        for part in array.split("."):
            tables = tables.get(part) if isinstance(tables, dict) else None
        tables = tables if isinstance(tables, list) else []
        names[array] = [table.get("name") if isinstance(table, dict) else None for table in tables]
    return names


def scenario_table_names(scenario):
    """{array: the names of its tables} of the typed ``scenario``."""
    names = {}
    for array in NAMED_ARRAYS:
        tables = scenario
        for part in array.split("."):
            tables = getattr(tables, part)
        names[array] = [table.name for table in tables]
    return names


def named_where(where, names):
    """The key path ``where`` with a leading ``ARRAY[i]`` spelled ``ARRAY.NAME`` (``group[0].vcpus``
    as ``group.flood.vcpus``) when table i of ``names`` (``document_table_names``) has a name
    a dotted key can reach it by, used once; otherwise, and for the ``name`` key itself (a
    name at fault is found by its position), ``where`` unchanged."""
    match = _INDEXED.match(where or "")
    if match is None:
        return where
    array, index = match.group(1), int(match.group(2))
    rest = where[match.end():]
    tables = names.get(array, [])
    name = tables[index] if index < len(tables) else None
    reachable = (isinstance(name, str) and re.fullmatch(r"[A-Za-z0-9_-]+", name) is not None
                 and tables.count(name) == 1)
    if not reachable or rest == ".name":
        return where
    return f"{array}.{name}{rest}"


@contextmanager
def naming_tables(source, names):
    """Re-raise an ``InputError`` of ``source`` at ``ARRAY[i]...`` at ``ARRAY.NAME...``
    (``named_where`` with the table ``names``)."""
    try:
        yield
    except InputError as exc:
        where = named_where(exc.where, names) if exc.source == source else exc.where
        if where == exc.where:
            raise
        raise InputError(exc.source, where, exc.expected) from None


def named_index(named, names, source, where):
    """Position of the table ``named.name`` among the array's table ``names``; otherwise
    ``InputError`` at ``where`` in ``source`` naming the key and the names there are."""
    if named.name in names:
        return names.index(named.name)
    named_ones = [str(name) for name in names if name is not None]
    there = ", ".join(named_ones) if named_ones else f"none: the scenario has no [[{named.array}]]"
    close = did_you_mean(str(named.name), named_ones)
    fail(source, where, f"{close + ' ' if close else ''}expected {named.array}.NAME.KEY with NAME one "
         f"of the scenario's [[{named.array}]] tables ({there}), got {named.text()!r}")


def named_table(data, named, source, where):
    """The table of the parsed TOML document ``data`` that ``named`` reaches, or None when the
    array's key holds something other than an array (then the key is an ordinary dotted key,
    and reading the document reports what it holds)."""
    array = data
    for part in named.array.split("."):
        if not isinstance(array, dict):
            return None
        array = array.get(part, {})
    array = [] if array == {} else array  # an array that is absent has no tables
    if not isinstance(array, list):
        return None
    names = [table.get("name") if isinstance(table, dict) else None for table in array]
    return array[named_index(named, names, source, where)]


def with_named_value(obj, named, value, source, where):
    """The typed ``obj`` (a scenario) with the key ``named.rest`` of the table ``named`` set to
    ``value`` (already checked): a field of the table, or a key inside its tables and their
    free-form tables (``traffic.params.pps``); ``InputError`` at ``where`` when the table lacks
    one of the tables on the way."""
    def changed(tables):
        index = named_index(named, [table.name for table in tables], source, where)
        return tuple(_set_in(table, named, named.rest, value, source, where) if i == index else table
                     for i, table in enumerate(tables))

    return _replace_at(obj, named.array.split("."), changed)


def _set_in(obj, named, keys, value, source, where):
    """``obj`` (a typed table or a free-form table) with the key path ``keys`` set to ``value``."""
    head, *inner = keys
    current = obj.get(head) if isinstance(obj, dict) else getattr(obj, head)
    if inner and current is None:
        fail(source, where, f"expected {named.text()} in a table that has it; the "
             f"[[{named.array}]] {named.name!r} has no {head}")
    new = _set_in(current, named, inner, value, source, where) if inner else value
    return {**obj, head: new} if isinstance(obj, dict) else replace(obj, **{head: new})


def _replace_at(obj, path, change):
    """``obj`` with the value at the attribute ``path`` replaced by ``change`` of it."""
    head, *inner = path
    current = getattr(obj, head)
    return replace(obj, **{head: _replace_at(current, inner, change) if inner else change(current)})
