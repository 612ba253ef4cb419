"""Run summaries made up by hand for tests of their readers: ``typed_summary`` turns the few
keys a test gives (plain JSON data, as ``vsim run --json`` writes it) into a ``RunSummary``,
every key it leaves out None (a section every run has made of Nones), so a test names only
what the reader under test reads."""

import dataclasses
import types
import typing

from vsim.results.plain_data import INLINED, json_keys
from vsim.results.run_summary_types import RunSummary


def typed_summary(data):
    """The ``RunSummary`` of the partial summary ``data``."""
    return _typed(RunSummary, data)


def _typed(cls, data):
    hints = typing.get_type_hints(cls)
    values = {}
    for field in dataclasses.fields(cls):
        kind = _without_none(hints[field.name])
        if field.metadata.get(INLINED):
            present = any(key in data for key in json_keys(kind))
            values[field.name] = _typed(kind, data) if present or field.default is dataclasses.MISSING else None
        else:
            values[field.name] = _value(hints[field.name], data.get(field.name))
    return cls(**values)


def _value(kind, value):
    """``value`` as the annotation ``kind`` says; a section a summary always has is made up of
    Nones where ``value`` is None."""
    if value is None:
        return _typed(kind, {}) if dataclasses.is_dataclass(kind) else None
    kind = _without_none(kind)
    if dataclasses.is_dataclass(kind):
        return _typed(kind, value)
    if typing.get_origin(kind) is dict:
        item = typing.get_args(kind)[1]
        return {key: _value(item, entry) for key, entry in value.items()}
    if typing.get_origin(kind) is tuple:
        item = typing.get_args(kind)[0]
        return tuple(_value(item, entry) for entry in value)
    return value


def _without_none(kind):
    """``X`` of an ``X | None`` annotation; any other as it is."""
    args = [arg for arg in typing.get_args(kind) if arg is not type(None)]
    optional = typing.get_origin(kind) in (typing.Union, types.UnionType) and len(args) == 1
    return args[0] if optional else kind
