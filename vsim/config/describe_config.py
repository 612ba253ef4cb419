"""The text ``vsim describe CONFIG`` prints: every key a scenario (or a cluster file) takes, with its value.

Sections come under their ``[table]`` heading with one line per key (value, type, whether the
file sets it or the default applies, and what it means). Each table of an array of tables
(``[[group]]``, ``[[netioc.node]]``, ``[[htb.node]]``) is a block of its own under a
``[[...]]`` heading, its keys written relative to it as in the file; an array the file leaves
empty still lists the keys each of its tables would take.
"""

import json
import re

from vsim.config.schema_scenario import Scenario
from vsim.config.toml_io import load_toml
from vsim.config.typed import describe

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def toml_text(value):
    """A typed config value spelt as in TOML ("(unset)" for a value left out)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")  # TOML's escapes
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_text(v) for v in value) + "]"
    if isinstance(value, dict):
        items = ", ".join(f"{key if _BARE_KEY.fullmatch(key) else toml_text(key)} = {toml_text(item)}"
                          for key, item in value.items())
        return "{ " + items + " }" if items else "{}"
    return "(unset)" if value is None else repr(value)


def describe_config(loaded):
    """The description of a scenario, ``loaded`` and checked (``vsim.build.load.load_scenario``)."""
    return describe_file(loaded.source, Scenario, loaded.scenario)


def describe_file(path, schema, config):
    """The description of the file at ``path`` of ``schema`` (a scenario's, a cluster file's),
    read and checked as ``config``."""
    raw = load_toml(path)
    rows = [row for row in describe(schema) if not row[0].startswith("params.")]
    arrays = {key for key, *_ in rows if any(other.startswith(f"{key}[].") for other, *_ in rows)}
    sections = {key for key, *_ in rows if any(other.startswith(f"{key}.") for other, *_ in rows)}
    lines = [f"{path}: {config.name}"]
    for key, kind, default, doc in rows:
        if "[]" in key:
            continue  # a key of a table of an array: shown in that table's block
        value = _lookup(config, key)
        if key in arrays:
            lines += _array_blocks(key, doc, value, _lookup_raw(raw, key), rows)
            continue
        own_keys = [other for other, *_ in rows if other.startswith(f"{key}.") and other not in arrays
                    and "[]" not in other]
        if own_keys or key == "params":
            lines += ["", f"[{key}]"]  # a section holding only arrays of tables needs no heading
        if key not in sections:
            lines.append(_key_line(key, value, kind, default, doc, _in_file(raw, key)))
    return "\n".join(lines)


def _array_blocks(key, doc, tables, raw_tables, rows):
    """A ``[[key]]`` block per table of the array ``key``, or, for none, the keys one takes."""
    prefix = f"{key}[]."
    inner = [(k[len(prefix):], kind, default, d) for k, kind, default, d in rows if k.startswith(prefix)]
    nested = {k for k, *_ in inner if any(other.startswith(f"{k}.") for other, *_ in inner)}
    if not tables:
        lines = ["", f"[[{key}]]    # none in this file; {doc}; each would take:"]
        return lines + [f"  {name}    # {kind}; " + _origin(default, False) + (f"; {d}" if d else "")
                        for name, kind, default, d in inner if name not in nested]
    lines = []
    raw_tables = raw_tables if isinstance(raw_tables, list) else []
    for index, table in enumerate(tables):
        raw = raw_tables[index] if index < len(raw_tables) else {}
        lines += ["", f"[[{key}]]" + (f"    # {doc}" if index == 0 else "")]
        for name, kind, default, d in inner:
            value = _lookup(table, name)
            if name in nested and value is not None:
                continue  # a table set in the file: its keys follow
            if value is None and any(name.startswith(f"{other}.") for other in nested
                                     if _lookup(table, other) is None):
                continue  # a key of a table this one leaves out
            lines.append(_key_line(name, value, kind, default, d, _in_file(raw, name)))
    return lines


def _key_line(key, value, kind, default, doc, in_file):
    return f"  {key} = {toml_text(value)}    # {kind}; {_origin(default, in_file)}" + (
        f"; {doc}" if doc else "")


def _origin(default, in_file):
    return "set in file" if in_file else f"default {default}"


def _lookup(obj, key):
    for part in key.split("."):
        obj = None if obj is None else getattr(obj, part)
    return obj


def _lookup_raw(data, key):
    for part in key.split("."):
        data = data.get(part) if isinstance(data, dict) else None
    return data


def _in_file(data, key):
    for part in key.split("."):
        if not isinstance(data, dict) or part not in data:
            return False
        data = data[part]
    return True

