"""Reading TOML configs and applying command-line overrides to them.

Every failure becomes an ``InputError`` naming the file (or ``--set``), the
line or assignment at fault and what was expected, so the CLI can report it
on one line and exit 2 instead of showing a traceback. A file is checked before it
is read (a regular file, ``CONFIG_LIMIT`` at most), and tables and arrays nested
deeper than ``NESTING_LIMIT`` are refused, in a file or a ``--set`` value, before
code that walks them recursively meets them.
"""

import copy
import re
import tomllib
from pathlib import Path

from vsim.core.errors import InputError, excerpt
from vsim.core.input_files import CONFIG_LIMIT, check_input_file
from vsim.config.named_tables import NAMED_ARRAYS, named_table, split_named_key
from vsim.config.typed import join_path

NESTING_LIMIT = 32  # tables and arrays inside each other; a scenario nests five deep
_POSITION = re.compile(r"\s*\(at (?:line (\d+), column (\d+)|end of document)\)$")


def load_toml(path):
    """Parse the TOML file at ``path`` into a dict, or raise ``InputError``."""
    path = Path(path)
    check_input_file(path, CONFIG_LIMIT, "a TOML file")
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InputError(path, None, "file not found") from None
    except OSError as exc:
        raise InputError(path, None, f"cannot read file ({exc.strerror or exc})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(path, f"line {line}", "not a TOML file: it is not UTF-8 text") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line, column, message = _decode_position(exc, text)
        where_in_line = f" (column {column})" if column else ""
        raise InputError(path, f"line {line}", f"invalid TOML: {message}{where_in_line}") from None
    except RecursionError:
        raise InputError(path, None, _too_deep()) from None
    check_nesting(data, path)
    return data


def _too_deep():
    """What a table or array nested too deep is refused with."""
    return f"expected tables and arrays nested at most {NESTING_LIMIT} deep, found them nested deeper"


def check_nesting(value, source, where=""):
    """``InputError`` naming the key of the first table or array of ``value`` (parsed TOML) that
    lies more than ``NESTING_LIMIT`` deep: copying, checking and describing a config walk it
    recursively. Walked without recursion itself."""
    pending = [(value, where, 0)]
    while pending:
        item, key, depth = pending.pop()
        if not isinstance(item, (dict, list)):
            continue
        if depth >= NESTING_LIMIT:
            raise InputError(source, key or None, _too_deep())
        children = item.items() if isinstance(item, dict) else enumerate(item)
        for name, child in children:
            inner = f"{key}[{name}]" if isinstance(item, list) else join_path(key, name)
            pending.append((child, inner, depth + 1))


def _decode_position(exc, text):
    """Line, column (or None) and bare message of a ``TOMLDecodeError``.

    Python 3.11 only puts the position in the message text; later versions
    also expose ``lineno``/``colno``/``msg`` attributes, preferred when present.
    """
    if getattr(exc, "lineno", None):
        return exc.lineno, exc.colno, exc.msg
    message = str(exc)
    match = _POSITION.search(message)
    if match is None:
        return _last_line(text), None, message
    bare = message[: match.start()]
    if match.group(1) is None:
        return _last_line(text), None, bare
    return int(match.group(1)), int(match.group(2)), bare


def _last_line(text):
    """Number of the last line of ``text``, where end-of-document errors point."""
    return text.rstrip("\n").count("\n") + 1


def apply_overrides(data, assignments, source="--set"):
    """Return a deep copy of ``data`` with each ``dotted.key=value`` applied.

    The value is read as a TOML value (``3`` is an int, ``[1, 2]`` a list,
    ``true`` a bool); anything that is not valid TOML is kept as a plain
    string so that ``--set name=foo`` needs no quoting. Missing intermediate
    tables are created. A table of an array of tables is reached by its name
    (``group.flood.count``, ``netioc.node.voip.shares``; ``vsim.config.named_tables``).
    """
    result = copy.deepcopy(data)
    for assignment in assignments:
        key_text, sep, value_text = assignment.partition("=")
        parts = [part.strip() for part in key_text.split(".")]
        blamed = f"{source} {excerpt(assignment, 80)}"  # as errors at a key a --set set name it
        if not sep or not all(parts):
            raise InputError(blamed, None, "expected dotted.key=value")
        key = ".".join(parts)
        table, parts = _start(result, key_text, blamed, key) or (result, parts)
        for depth, part in enumerate(parts[:-1], start=1):
            table = table.setdefault(part, {})
            if not isinstance(table, dict):
                parent = ".".join(parts[:depth])
                hint = (f"; reach one of its tables by name, {parent}.NAME.KEY"
                        if parent in NAMED_ARRAYS else "")
                raise InputError(blamed, key, f"'{parent}' holds {_kind_of(table)}, not a "
                                 f"table, so it has no keys{hint}")
        try:
            value = parse_value(value_text.strip())
        except RecursionError:
            raise InputError(blamed, key, _too_deep()) from None
        check_nesting(value, blamed, key)
        table[parts[-1]] = value
    return result


def _start(data, key_text, source, key):
    """(table, keys left) where a key into an array of tables by name starts, or None."""
    named = split_named_key(key_text)
    if named is None:
        return None
    table = named_table(data, named, source, key)
    return None if table is None else (table, list(named.rest))


def _kind_of(value):
    """What a TOML value under a key is: an array in words (it may be long), else its value."""
    if isinstance(value, list):
        return "an array"
    return f"{type(value).__name__} {value!r}"


def parse_value(text):
    """The TOML value spelt by ``text``, or ``text`` itself when it is not exactly one."""
    try:
        parsed = tomllib.loads("v = " + text)
    except tomllib.TOMLDecodeError:
        return text
    return parsed["v"] if len(parsed) == 1 else text
