"""vsim's own trace format: a CSV file with a small commented header.

Measured traces (taken by ``vsim probe`` or converted from other tools) and
simulated ones share this format, so ``vsim validate`` compares like with
like. A file looks like::

    # vsim-trace 1
    # kind: timer
    # command: vsim probe timer --period 0.02 --duration 60
    # kernel: 6.1.0
    thread,tick,scheduled_s,lateness_s
    0,0,0.02,5.1e-05
    ...

The first line names the format and its version; ``# kind:`` names one of
``SCHEMAS``; further ``# key: value`` lines are free metadata (the exact
setup, so that a scenario can reproduce it); then one CSV header row with
exactly the kind's columns in order, then the rows. An empty field is a
missing value (a lost packet has no arrival time), allowed only in the
columns that say so. Times are seconds; sizes are bytes.

What people do to a CSV file is tolerated: a UTF-8 byte-order mark before
the first line is dropped, blank lines are skipped anywhere after it, and a
line starting with ``#`` among the rows is a comment and skipped (errors
still name the file's own line numbers); ``trace_text`` quotes a row whose
first value starts with ``#`` so that it is not read as one. Another version
of the format, or a gzip-compressed file, gets its own error.

Rows must also be possible: no column goes below its ``minimum`` (a thread
cannot wake early, a frame has a size) or above its ``maximum`` (an RTP
timestamp has 32 bits), an integer fits in 64 bits, a time is within
``MAX_SECONDS`` (a clock's epoch time fits; squares of such times still
fit in a float), no header key is given twice, the
columns of ``ORDERED`` never run backwards within a row (a tick's work ends
after it starts, which is not before it was due), and the columns of
``UNIQUE`` name each row once (a thread's tick is measured once). A packet may
arrive "before" it was sent: sender and receiver clocks may differ, and every
packet metric takes that offset out.

A ``steal`` trace is not compared with a simulation but fed into one (a
scenario's ``host.steal_trace``); ``vsim.traces.steal_trace`` reads it and
checks what its rows must add up to.
"""

import csv
import io
import math
from dataclasses import dataclass, field

import numpy as np

from vsim.outputs.atomic import write_text
from vsim.core.errors import InputError, excerpt
from vsim.traces.csv_lines import csv_rows
from vsim.traces.text_file import read_text

VERSION = 1
VERSION_PREFIX = "# vsim-trace "
MAGIC = f"{VERSION_PREFIX}{VERSION}"
MAX_SECONDS = 1e10  # about 317 years


@dataclass(frozen=True)
class Column:
    """One column of a trace kind: its name, its type (int, float or str) and whether it may be empty."""

    name: str
    kind: type
    doc: str
    optional: bool = False
    minimum: float | None = None
    maximum: float | None = None


SCHEMAS = {
    "timer": (
        Column("thread", int, "index of the periodic thread", minimum=0),
        Column("tick", int, "index of the period, from 0", minimum=0),
        Column("scheduled_s", float, "when the thread should have woken, s from the trace's start",
               minimum=0),
        Column("lateness_s", float, "how late it woke, s (>= 0)", minimum=0),
    ),
    "packets": (
        Column("stream", str, "stream name (an RTP stream: its SSRC in hex)"),
        Column("class", str, "traffic class (voice, flood, ...)"),
        Column("seq", int, "sequence number within the stream", minimum=0),
        Column("rtp_timestamp", int, "RTP timestamp in clock units (0 for non-RTP traffic)", minimum=0,
               maximum=2**32 - 1),
        Column("send_s", float, "send time, s"),
        Column("arrival_s", float, "arrival time, s; empty when the packet was lost", optional=True),
        Column("size_bytes", int, "frame size on the wire, bytes", minimum=1),
    ),
    "cpu_ticks": (
        Column("vm", str, "VM (or cgroup) name"),
        Column("worker", int, "worker thread within the VM", minimum=0),
        Column("tick", int, "index of the period, from 0", minimum=0),
        Column("scheduled_s", float, "when the tick was due, s"),
        Column("start_s", float, "when the worker started the tick's work, s"),
        Column("end_s", float, "when the tick's work was done, s"),
    ),
    "steal": (
        Column("cpu", int, "index of the (virtual) CPU, from 0", minimum=0),
        Column("start_s", float, "start of the sample interval, s"),
        Column("end_s", float, "end of the sample interval, s (the next interval's start)"),
        Column("steal_s", float, "CPU time the outer hypervisor stole from this CPU in the interval, s",
               minimum=0),
    ),
}

ORDERED = {  # per kind, (earlier, later) column pairs: later >= earlier in every row
    "cpu_ticks": (("scheduled_s", "start_s"), ("start_s", "end_s")),
}

UNIQUE = {  # per kind, the columns that together name a row once
    "timer": ("thread", "tick"),
    "cpu_ticks": ("vm", "worker", "tick"),
}


@dataclass(frozen=True)
class Trace:
    """A trace: its kind, its metadata and one NumPy array (or list of str) per column."""

    kind: str
    meta: dict
    columns: dict = field(repr=False)

    def __len__(self):
        first = next(iter(self.columns.values()), ())
        return len(first)


def _cell(text, column, path, line):
    if text == "":
        if column.optional:
            return math.nan
        raise InputError(path, f"line {line}", f"expected a value in column '{column.name}', found none")
    if column.kind is str:
        return text
    try:
        value = column.kind(text)
    except ValueError:
        noun = "an integer" if column.kind is int else "a number"
        raise InputError(path, f"line {line}",
                         f"expected {noun} in column '{column.name}', got {excerpt(repr(text))}") from None
    if column.kind is float and not math.isfinite(value):
        raise InputError(path, f"line {line}", f"expected a finite number in column '{column.name}', "
                                               f"got {excerpt(repr(text))}")
    if column.kind is float and abs(value) > MAX_SECONDS:
        raise InputError(path, f"line {line}", f"expected a time within {MAX_SECONDS:g} s in column "
                                               f"'{column.name}', got {excerpt(repr(text))}")
    if column.kind is int and not -2**63 <= value < 2**63:
        raise InputError(path, f"line {line}", f"expected a 64-bit integer in column '{column.name}', "
                                               f"got {text[:30]!r}")
    return value


def _skipped(line):
    """Whether a line after the first carries nothing: blank, or a ``#`` comment among the rows."""
    return not line.strip() or line.startswith("#")


def _header_line(lines):
    """The number (from 1) of the CSV header row: the first line after the first that is neither blank
    nor a ``#`` line; None when there is none."""
    return next((number for number, line in enumerate(lines[1:], start=2) if not _skipped(line)), None)


def _row_lines(lines, header_line):
    """The numbers (from 1) of the lines after the header row that hold rows."""
    return [number for number, line in enumerate(lines[header_line:], start=header_line + 1)
            if not _skipped(line)]


def row_lines(text):
    """The line numbers (from 1) of the rows of a vsim trace's text, for errors about a row."""
    lines = text.splitlines()
    header_line = _header_line(lines)
    return [] if header_line is None else _row_lines(lines, header_line)


def _check_first_line(line, path):
    """The first line must be ``MAGIC``; another version of the format gets its own error."""
    first = line.strip()
    if first == MAGIC:
        return
    if first.startswith(VERSION_PREFIX):
        version = first[len(VERSION_PREFIX):].strip()
        raise InputError(path, "line 1", f"unsupported vsim trace version {version[:20]} (this vsim reads "
                                         f"version {VERSION})")
    raise InputError(path, "line 1", f"expected '{MAGIC}' (not a vsim trace)")  # nothing of another file quoted


def _metadata(lines, path):
    """The ``# key: value`` lines from line 2 up to the header row (blank lines skipped), as a dict."""
    meta = {}
    for number, line in enumerate(lines, start=2):
        if not line.strip():
            continue
        key, sep, value = line[1:].partition(":")
        if not sep or not key.strip():
            raise InputError(path, f"line {number}", f"expected '# key: value', got {line[:40]!r}")
        if key.strip() in meta:
            raise InputError(path, f"line {number}", f"expected each header key once, "
                                                     f"'# {key.strip()}:' is given again")
        meta[key.strip()] = value.strip()
    return meta


def parse_trace(text, path="<trace>"):
    """Parse the text of a vsim trace; ``InputError`` naming ``path`` and the line on any defect."""
    lines = text.splitlines()
    if not lines:
        raise InputError(path, None, f"empty file; expected a vsim trace starting with '{MAGIC}'")
    _check_first_line(lines[0], path)
    header_line = _header_line(lines)
    if header_line is None:
        raise InputError(path, f"line {len(lines)}", "expected a CSV header row after the metadata; "
                                                     "the file ends (truncated?)")
    meta = _metadata(lines[1:header_line - 1], path)
    kind = meta.get("kind")
    if kind is None:
        raise InputError(path, "kind", f"expected a '# kind:' line naming one of {', '.join(SCHEMAS)}, "
                                       "found none")
    if kind not in SCHEMAS:
        raise InputError(path, "kind", f"expected '# kind:' one of {', '.join(SCHEMAS)}, got {kind!r}")
    schema = SCHEMAS[kind]
    header = next(csv_rows([lines[header_line - 1]], [header_line], path))[1]
    expected = [column.name for column in schema]
    if header != expected:
        raise InputError(path, f"line {header_line}", f"expected the {kind} header "
                                                      f"'{','.join(expected)}', got "
                                                      f"{excerpt(repr(','.join(header)))}")
    numbers = _row_lines(lines, header_line)
    values = {column.name: [] for column in schema}
    for line, row in csv_rows((lines[number - 1] for number in numbers), numbers, path):
        if len(row) != len(schema):
            hint = "truncated file?" if len(row) < len(schema) else "a comma inside a value? quote it"
            raise InputError(path, f"line {line}", f"expected {len(schema)} fields, got {len(row)} ({hint})")
        for column, text in zip(schema, row):
            values[column.name].append(_cell(text, column, path, line))
    columns = {column.name: (values[column.name] if column.kind is str
                             else np.asarray(values[column.name],
                                             dtype=float if column.kind is float or column.optional
                                             else np.int64))
               for column in schema}
    _check_rows(kind, columns, path, numbers)
    return Trace(kind, meta, columns)


def _check_rows(kind, columns, path, numbers):
    """Refuse the first impossible row: a value below its column's minimum, a row whose ordered columns
    run backwards, or a second row with the same key (see the module's docstring). ``numbers`` are the
    rows' line numbers."""
    def where(row):
        return f"line {numbers[int(row)]}"

    def value(name, row):
        return columns[name][row].item()

    for column in SCHEMAS[kind]:
        for bound, outside, sign in ((column.minimum, np.less, ">="), (column.maximum, np.greater, "<=")):
            bad = np.flatnonzero(outside(columns[column.name], bound)) if bound is not None else ()
            if len(bad):
                raise InputError(path, where(bad[0]), f"expected {column.name} {sign} {bound:g}, "
                                                      f"got {value(column.name, bad[0])!r}")
    for earlier, later in ORDERED.get(kind, ()):
        backwards = np.flatnonzero(columns[later] < columns[earlier])
        if backwards.size:
            row = backwards[0]
            raise InputError(path, where(row), f"expected {later} >= {earlier} "
                                               f"({value(earlier, row)!r}), got {value(later, row)!r}")
    key_columns = UNIQUE.get(kind)
    if key_columns:
        seen = {}
        for row, key in enumerate(zip(*(np.asarray(columns[name]).tolist() for name in key_columns))):
            if key in seen:
                named = ", ".join(f"{name} {value}" for name, value in zip(key_columns, key))
                raise InputError(path, where(row), f"expected one row per {'/'.join(key_columns)}, "
                                                   f"{named} is also on {where(seen[key])}")
            seen[key] = row


def read_trace(path):
    """Read a vsim trace file; ``InputError`` (path, line, expectation) when it cannot be read or parsed."""
    return parse_trace(read_text(path, "a text vsim trace", encoding="utf-8-sig"), path)


def _format(value, column):
    if column.kind is str:
        return str(value)
    if column.kind is int:
        return str(int(value))
    value = float(value)
    return "" if math.isnan(value) else repr(value)


def trace_text(kind, columns, meta=None):
    """A vsim trace of ``kind`` as text; ``columns`` maps each column name to equal-length values."""
    if kind not in SCHEMAS:
        raise ValueError(f"unknown trace kind {kind!r}")
    schema = SCHEMAS[kind]
    sizes = {len(columns[column.name]) for column in schema}
    if len(sizes) > 1:
        raise ValueError(f"columns of unequal length: {sorted(sizes)}")
    out = io.StringIO()
    out.write(MAGIC + "\n")
    out.write(f"# kind: {kind}\n")
    for key, value in (meta or {}).items():
        if key == "kind" or "\n" in str(value) or ":" in key:
            raise ValueError(f"metadata {key!r} cannot be written on one '# key: value' line")
        out.write(f"# {key}: {value}\n")
    writer = csv.writer(out, lineterminator="\n")
    quoted = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_ALL)
    writer.writerow([column.name for column in schema])
    for row in zip(*(columns[column.name] for column in schema)):
        cells = [_format(value, column) for value, column in zip(row, schema)]
        (quoted if cells[0].startswith("#") else writer).writerow(cells)  # unquoted, a comment line
    return out.getvalue()


def write_trace(path, kind, columns, meta=None):
    """Write a vsim trace atomically (see ``trace_text``)."""
    write_text(path, trace_text(kind, columns, meta))
