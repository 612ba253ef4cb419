"""Typed configs: nested TOML tables validated into (frozen) dataclasses.

A config schema is a tree of dataclasses. ``from_dict`` checks a parsed TOML
document against it and builds the objects, so the rest of the simulator
works with typed, already-validated values. Every problem is reported as an
``InputError`` naming the source file, the key path (``workloads[2].streams``)
and what was expected, on one line.

Supported annotations: ``int``, ``float`` (ints accepted), ``bool``, ``str``,
a union of ``bool``, ``int``, ``float`` and ``str`` (any of them, kept as written),
``Literal[...]``, ``X | None``, ``list[X]`` and ``tuple[X, ...]`` (both stored
as tuples), ``dict[str, X]`` and nested dataclasses. ``bool`` is never
accepted where a number is expected. Field metadata may carry ``min``,
``max``, ``min_exclusive``, ``max_exclusive``, ``infinite`` (a float may be inf;
otherwise it must be finite) and ``unit`` (checked on numbers,
including the numbers inside lists and tables) and ``doc`` (shown by
``describe``). A dataclass may define ``validate(self, source, path)`` for
cross-field checks; it runs after construction and reports with ``fail``. One whose
``validate`` also takes ``given`` receives the keys the table set, to tell a default
from a value written.
"""

import dataclasses
import functools
import inspect
import json
import math
import re
import types
import typing

from vsim.core.errors import InputError, did_you_mean, excerpt

_SCALARS = {
    int: ("an integer", "integers"),
    float: ("a number", "numbers"),
    bool: ("a boolean", "booleans"),
    str: ("a string", "strings"),
}
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_REPR_LIMIT = 40


def fail(source, path, expected):
    """Raise the ``InputError`` for ``path`` in ``source``; for ``validate`` methods."""
    raise InputError(source, path or None, expected)


def join_path(path, key):
    """Key path of ``key`` inside the table at ``path``, quoting keys that are not bare TOML keys
    (a key longer than an error may quote is cut short: it names no key of the schema)."""
    key = str(key)
    name = excerpt(key if _BARE_KEY.fullmatch(key) else json.dumps(key))
    return f"{path}.{name}" if path else name


def from_dict(cls, data, *, source, path=""):
    """Build dataclass ``cls`` from the table ``data``, validating every key.

    ``source`` names the file (or other origin) in error messages and ``path``
    is the key path of ``data`` inside it, empty for the document itself.
    """
    if not isinstance(data, dict):
        fail(source, path, f"expected a table, got {_show(data)}")
    fields = _schema(cls)
    for key in data:
        if key not in fields:
            fail(source, join_path(path, key), _unknown_key(str(key), list(fields)))
    _refuse_misplaced_keys(fields, data, source, path)
    values = {}
    for name, (annotation, field) in fields.items():
        key_path = join_path(path, name)
        if name in data:
            values[name] = _convert(annotation, data[name], field.metadata, source, key_path)
        elif field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
            fail(source, key_path, f"missing required key (expected {_describe(annotation, field.metadata)})")
    obj = cls(**values)
    validate = getattr(obj, "validate", None)
    if callable(validate):
        if "given" in inspect.signature(validate).parameters:
            validate(source, path, given=frozenset(data))
        else:
            validate(source, path)
    return obj


def check_field(cls, name, value, *, source, path):
    """``value`` checked as field ``name`` of dataclass ``cls`` would be; its typed form."""
    annotation, field = _schema(cls)[name]
    return _convert(annotation, value, field.metadata, source, path)


def scalar_fields(cls, choices=False):
    """Names of the fields of ``cls`` that hold one number or boolean (optional or not);
    with ``choices``, also those holding one of a fixed set of strings (a ``Literal``)."""
    names = []
    for name, (annotation, _) in _schema(cls).items():
        kind, args = _kind(annotation)
        if kind == "optional":
            annotation = args[0]
            kind, args = _kind(annotation)
        if annotation in (int, float, bool) or (
                choices and kind == "literal" and all(isinstance(arg, str) for arg in args)):
            names.append(name)
    return names


def _number_types(cls, name):
    """The number types (int, float) field ``name`` of ``cls`` accepts, optional or not."""
    annotation, _ = _schema(cls)[name]
    kind, args = _kind(annotation)
    if kind == "optional":
        annotation = args[0]
        kind, args = _kind(annotation)
    members = args if kind == "scalars" else (annotation,)
    return {arg for arg in members if arg in (int, float)}


def is_number_field(cls, name):
    """Whether field ``name`` of ``cls`` holds a number (not a boolean or a string)."""
    return bool(_number_types(cls, name))


def accepts_only_integers(cls, name):
    """Whether field ``name`` of ``cls`` holds whole numbers only."""
    return _number_types(cls, name) == {int}


def describe(cls):
    """Rows of (dotted key, type description, default or "required", doc) for every key of ``cls``.

    Keys inside lists of tables appear as ``workloads[].name`` and keys inside
    tables with free-form names as ``flows.<name>.rate``.
    """
    return _rows(cls, "")


def _rows(cls, prefix):
    rows = []
    for name, (annotation, field) in _schema(cls).items():
        key = join_path(prefix, name)
        rows.append((key, _describe(annotation, field.metadata), _default_text(field), field.metadata.get("doc", "")))
        rows.extend(_nested_rows(annotation, key))
    return rows


def _nested_rows(annotation, key):
    kind, args = _kind(annotation)
    if kind == "optional":
        return _nested_rows(args[0], key)
    if kind == "dataclass":
        return _rows(annotation, key)
    if kind == "sequence":
        return _nested_rows(args[0], f"{key}[]")
    if kind == "mapping":
        return _nested_rows(args[0], f"{key}.<name>")
    return []


def _default_text(field):
    if field.default is not dataclasses.MISSING:
        return repr(field.default)
    if field.default_factory is not dataclasses.MISSING:
        return repr(field.default_factory())
    return "required"


@functools.cache
def _schema(cls):
    """Init fields of dataclass ``cls`` by name, with their resolved annotations."""
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
        raise TypeError(f"{cls!r} is not a dataclass type")
    hints = typing.get_type_hints(cls)
    return {field.name: (hints[field.name], field) for field in dataclasses.fields(cls) if field.init}


def _kind(annotation):
    """Classify an annotation as (kind, type arguments), rejecting unsupported ones."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if annotation in _SCALARS:
        return "scalar", ()
    if isinstance(annotation, type) and dataclasses.is_dataclass(annotation):
        return "dataclass", ()
    if origin is typing.Literal:
        return "literal", args
    if origin in (typing.Union, types.UnionType):
        present = tuple(arg for arg in args if arg is not type(None))
        if len(present) == 1 and len(args) == 2:
            return "optional", present
        if present == args and all(arg in (bool, int, float, str) for arg in args):
            return "scalars", args
    if origin is list and len(args) == 1:
        return "sequence", args
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return "sequence", args[:1]
    if origin is dict and len(args) == 2 and args[0] is str:
        return "mapping", args[1:]
    raise TypeError(f"unsupported config annotation {annotation!r}")


def _convert(annotation, value, meta, source, path):
    """Check ``value`` against ``annotation`` and return its typed form."""
    kind, args = _kind(annotation)
    if kind == "optional":
        return None if value is None else _convert(args[0], value, meta, source, path)
    if kind == "dataclass":
        return from_dict(annotation, value, source=source, path=path)
    if kind == "scalar":
        return _scalar(annotation, value, meta, source, path)
    if kind == "scalars":
        for option in args:
            if type(value) is option:
                return _scalar(option, value, meta, source, path)
    elif kind == "literal":
        if any(type(value) is type(option) and value == option for option in args):
            return value
    elif kind == "sequence" and isinstance(value, (list, tuple)):
        return tuple(_convert(args[0], item, meta, source, f"{path}[{i}]") for i, item in enumerate(value))
    elif kind == "mapping" and isinstance(value, dict):
        return {key: _convert(args[0], item, meta, source, join_path(path, key)) for key, item in value.items()}
    fail(source, path, f"expected {_describe(annotation, meta)}, got {_show(value)}")


def _scalar(annotation, value, meta, source, path):
    """Check a scalar; numbers must also be within the bounds in ``meta``."""
    if annotation in (int, float):
        kinds = (int, float) if annotation is float else int
        accepted = isinstance(value, kinds) and not isinstance(value, bool)
    else:
        accepted = isinstance(value, annotation)
    expected = f"expected {_describe(annotation, meta)}"
    if not accepted:
        fail(source, path, f"{expected}, got {_show(value)}")
    if annotation is not float:
        number = value
    else:
        try:
            number = float(value)
        except OverflowError:
            fail(source, path, f"{expected}, got an integer too large for a number")
    if annotation in (int, float) and not _within_bounds(number, meta):
        fail(source, path, f"{expected}, got {_short_repr(value)}")
    if annotation is float and not math.isfinite(number) and not (math.isinf(number) and meta.get("infinite")):
        fail(source, path, f"expected a finite number, got {_short_repr(value)}")
    return number


def _within_bounds(value, meta):
    """Whether ``value`` satisfies the metadata bounds; NaN satisfies none."""
    low, high = meta.get("min"), meta.get("max")
    if low is not None and not (value > low if meta.get("min_exclusive") else value >= low):
        return False
    return high is None or (value < high if meta.get("max_exclusive") else value <= high)


def _describe(annotation, meta, plural=False):
    """Human description of what ``annotation`` accepts: "a number > 0 (s)", "a list of strings"."""
    kind, args = _kind(annotation)
    if kind == "optional":
        return _describe(args[0], meta, plural)
    if kind == "dataclass":
        return "tables" if plural else "a table"
    if kind == "scalars":
        return " or ".join(_describe(option, meta, plural) for option in args)
    if kind == "literal":
        options = ", ".join(repr(option) for option in args)
        return f"values each one of {options}" if plural else f"one of {options}"
    if kind == "sequence":
        return ("lists of " if plural else "a list of ") + _describe(args[0], meta, plural=True)
    if kind == "mapping":
        return ("tables of " if plural else "a table of ") + _describe(args[0], meta, plural=True)
    text = _SCALARS[annotation][plural]
    if annotation in (int, float):
        text += _bounds_text(meta)
    return text


def _bounds_text(meta):
    limits = []
    if meta.get("min") is not None:
        limits.append(f"{'>' if meta.get('min_exclusive') else '>='} {meta['min']}")
    if meta.get("max") is not None:
        limits.append(f"{'<' if meta.get('max_exclusive') else '<='} {meta['max']}")
    text = " " + " and ".join(limits) if limits else ""
    return text + (f" ({meta['unit']})" if meta.get("unit") else "")


def _refuse_misplaced_keys(fields, data, source, path):
    """Refuse a key of one table (``[vm]``) that is unknown there but a key of a sibling table
    (``[host]``), naming the table it belongs in, before the generic list of the keys expected."""
    tables = {}
    for name, (annotation, _) in fields.items():
        kind, args = _kind(annotation)
        if kind == "optional":
            annotation = args[0]
            kind, _ = _kind(annotation)
        if kind == "dataclass":
            tables[name] = _schema(annotation)
    for name, table in tables.items():
        given = data.get(name)
        if not isinstance(given, dict):
            continue
        for key in given:
            homes = [other for other, keys in tables.items() if other != name and key in keys]
            if key not in table and homes:
                places = " or ".join(f"[{join_path(path, home)}]" for home in homes)
                fail(source, join_path(join_path(path, name), key),
                     f"unknown key here; it belongs in {places}")


def _unknown_key(key, names):
    hint = did_you_mean(key, names)
    if hint:
        return f"unknown key; {hint}"
    if not names:
        return "unknown key; this table takes no keys"
    return f"unknown key; expected one of: {', '.join(names)}"


def _short_repr(value):
    """``repr(value)``, cut short enough for a one-line message."""
    text = repr(value)
    return text if len(text) <= _REPR_LIMIT else text[: _REPR_LIMIT - 3] + "..."


def _show(value):
    """Type name and short repr of a rejected value."""
    return f"{type(value).__name__} {_short_repr(value)}"
