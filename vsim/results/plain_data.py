"""Frozen dataclasses as the plain data of a JSON document, and back, and read by dotted path.

A section of a run's summary is a frozen dataclass whose fields are its JSON keys, in the
order it writes them. Two kinds of field say more in their metadata: an ``optional()`` field
is left out of the JSON where it is None (a section a run does not have), rather than written
as null; an inline field (``field(metadata=INLINE)``, or ``optional(inline=True)``) is a
dataclass whose keys the JSON holds inline, beside its owner's (a VM's CPU figures beside its
group; the conference figures a window has only when there is a measuring conference), so the
types can group what the JSON keeps flat. Tuples are written as JSON lists and mappings as
objects, in their order. ``field_at`` resolves a dotted
path of JSON keys (``jitter.p99_ms``, ``uplink.groups.flood.throughput_mbps``) on such a
document, for paths a caller names as text.
"""

import dataclasses
import types
import typing
from typing import Any, Union

OPTIONAL = "optional"
INLINED = "inline"

INLINE = {INLINED: True}
"""The metadata of a dataclass field whose JSON keys are written inline in its owner's object."""


def optional(inline: bool = False) -> Any:
    """A field left out of the JSON where it is None, None by default; ``inline``: a dataclass
    whose keys are written inline in its owner's object where it is not None."""
    return dataclasses.field(default=None, metadata={OPTIONAL: True, INLINED: inline})


def to_json(value: Any) -> Any:
    """``value`` as plain JSON data: dataclasses as objects of their fields, in field order."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {}
        for field in dataclasses.fields(value):
            item = getattr(value, field.name)
            if item is None and field.metadata.get(OPTIONAL):
                continue
            if field.metadata.get(INLINED):
                out.update(to_json(item))
            else:
                out[field.name] = to_json(item)
        return out
    if isinstance(value, dict):
        return {key: to_json(item) for key, item in value.items()}
    if isinstance(value, (tuple, list)):
        return [to_json(item) for item in value]
    return value


def from_json(cls: type, data: dict) -> Any:
    """The ``cls`` dataclass that ``to_json`` writes as ``data``; a key ``cls`` does not have,
    or one it needs and ``data`` lacks, is a ``ValueError`` naming it."""
    unknown = set(data) - set(json_keys(cls))
    if unknown:
        raise ValueError(f"{cls.__name__} has no field {', '.join(sorted(unknown))}")
    hints = typing.get_type_hints(cls)
    values = {}
    for field in dataclasses.fields(cls):
        kind = _without_none(hints[field.name])
        if field.metadata.get(INLINED):
            keys = json_keys(kind)
            if any(key in data for key in keys):
                values[field.name] = from_json(kind, {key: data[key] for key in keys if key in data})
        elif field.name in data:
            values[field.name] = _decode(hints[field.name], data[field.name])
        elif not field.metadata.get(OPTIONAL):
            raise ValueError(f"{cls.__name__} needs {field.name}")
    return cls(**values)


def json_keys(cls: type) -> list[str]:
    """The JSON keys of dataclass ``cls``, its inline fields' keys among them, in order."""
    hints = typing.get_type_hints(cls)
    keys = []
    for field in dataclasses.fields(cls):
        if field.metadata.get(INLINED):
            keys += json_keys(_without_none(hints[field.name]))
        else:
            keys.append(field.name)
    return keys


def _decode(kind: Any, value: Any) -> Any:
    """``value`` (plain JSON data) as the annotation ``kind`` says."""
    if value is None:
        return None
    kind = _without_none(kind)
    origin = typing.get_origin(kind)
    if dataclasses.is_dataclass(kind):
        return from_json(typing.cast(type, kind), value)
    if origin is dict:
        _, item = typing.get_args(kind)
        return {key: _decode(item, entry) for key, entry in value.items()}
    if origin is tuple:
        args = typing.get_args(kind)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_decode(args[0], entry) for entry in value)
        return tuple(_decode(arg, entry) for arg, entry in zip(args, value))
    return value


def _without_none(kind: Any) -> Any:
    """``X`` of an ``X | None`` annotation; any other as it is."""
    if typing.get_origin(kind) in (Union, types.UnionType):
        args = [arg for arg in typing.get_args(kind) if arg is not type(None)]
        if len(args) == 1:
            return args[0]
    return kind


def field_at(document: Any, path: str) -> Any:
    """The value at the dotted ``path`` of JSON keys in ``document`` (a dataclass as above, or
    a mapping of them); a ``LookupError`` naming the first key that is not there, and the
    keys that are."""
    value = document
    done: list[str] = []
    for key in path.split("."):
        where = ".".join(done) or "the summary"
        if value is None:
            raise LookupError(f"{path}: {where} is absent from this run, so it has no {key}")
        if isinstance(value, dict):
            if key not in value:
                raise LookupError(f"{path}: {where} has no {key!r}; it has {_listed(value)}")
            value = value[key]
        elif dataclasses.is_dataclass(value):
            value = _json_field(value, key, path, where)
        else:
            raise LookupError(f"{path}: {where} is a value, it has no {key!r}")
        done.append(key)
    return value


def _json_field(value: Any, key: str, path: str, where: str) -> Any:
    """The JSON key ``key`` of dataclass ``value``, looked for in its inline fields too."""
    for field in dataclasses.fields(value):
        item = getattr(value, field.name)
        if field.metadata.get(INLINED):
            if key in json_keys(_without_none(typing.get_type_hints(type(value))[field.name])):
                if item is None:
                    raise LookupError(f"{path}: {where} has no {key!r} in this run")
                return _json_field(item, key, path, where)
        elif field.name == key:
            return item
    raise LookupError(f"{path}: {where} has no {key!r}; it has {_listed(json_keys(type(value)))}")


def _listed(keys: Any) -> str:
    return ", ".join(str(key) for key in keys) or "nothing"
