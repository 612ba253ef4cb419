"""SIPp's ``-trace_stat`` file: call statistics every ``-fd`` seconds, semicolon-separated.

The header row starts ``StartTime;LastResetTime;CurrentTime;ElapsedTime(P);
ElapsedTime(C);TargetRate;CallRate(P);CallRate(C);...`` and, like every row,
ends with a ';'. ``(P)`` columns cover the last period, ``(C)`` ones the
whole run. Cell formats, as SIPp writes them:

* ``StartTime``, ``LastResetTime``, ``CurrentTime``: local date, time and
  epoch seconds separated by tabs (``2026-11-24<TAB>00:30:05.123456<TAB>1795480205.123456``);
  read as epoch seconds;
* ``ElapsedTime(P/C)``: ``HH:MM:SS``; read as seconds;
* ``ResponseTime<N>(P/C)``, ``ResponseTime<N>StDev(P/C)``, ``CallLength(P/C)``,
  ``CallLengthStDev(P/C)``: ``HH:MM:SS:uuuuuu`` (microseconds); read as seconds;
* ``ResponseTimeRepartition<N>``, ``CallLengthRepartition``: markers before
  their buckets' columns, empty in every row (SIPp 3.6.1); accepted empty and
  left out of the columns read;
* every other column (rates, counters, repartition buckets): a number.
"""

import re
from dataclasses import dataclass, field

import numpy as np

from vsim.core.errors import InputError
from vsim.traces.text_file import read_text

HEADER_START = "StartTime;LastResetTime;CurrentTime;"
_CLOCK = ("StartTime", "LastResetTime", "CurrentTime")
_DURATION = re.compile(r"^(ResponseTime.*|CallLength|CallLengthStDev)\([PC]\)$")
_ELAPSED = re.compile(r"^ElapsedTime\([PC]\)$")
_MARKER = re.compile(r"^(ResponseTimeRepartition\d+|CallLengthRepartition)$")


@dataclass(frozen=True)
class SippStats:
    """One ``-trace_stat`` file: ``columns`` maps each header name to a float array (times in s)."""

    columns: dict = field(repr=False)

    def __len__(self):
        return self.columns["CurrentTime"].size

    @property
    def time_s(self):
        """Seconds from the first row's CurrentTime."""
        current = self.columns["CurrentTime"]
        return current - current[0]


def _epoch(text):
    return float(text.split("\t")[-1])


def _hms(text):
    hours, minutes, seconds = text.split(":")
    return int(hours) * 3600 + int(minutes) * 60 + int(seconds)


def _hms_us(text):
    hours, minutes, seconds, micros = text.split(":")
    return int(hours) * 3600 + int(minutes) * 60 + int(seconds) + int(micros) / 1e6


def _empty(text):
    if text:
        raise ValueError(text)


def _parser(name):
    if _MARKER.match(name):
        return _empty, "an empty cell (a repartition marker)"
    if name in _CLOCK:
        return _epoch, "date<TAB>time<TAB>epoch seconds"
    if _ELAPSED.match(name):
        return _hms, "HH:MM:SS"
    if _DURATION.match(name):
        return _hms_us, "HH:MM:SS:uuuuuu"
    return float, "a number"


def _cells(line):
    cells = line.split(";")
    return cells[:-1] if cells and cells[-1] == "" else cells


def parse_sipp_stat(text, path="<sipp stat>"):
    """Parse ``-trace_stat`` text; ``InputError`` naming the line and column on a defect."""
    lines = text.splitlines()
    if not any(line.strip() for line in lines):
        raise InputError(path, None, "empty file; expected a SIPp -trace_stat CSV")
    if not lines[0].startswith(HEADER_START):
        raise InputError(path, "line 1", f"expected a SIPp -trace_stat header starting '{HEADER_START}' "
                                         "(not a SIPp -trace_stat file)")
    names = _cells(lines[0])
    parsers = [_parser(name) for name in names]
    values = [[] for _ in names]
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        cells = _cells(line)
        if len(cells) != len(names):
            raise InputError(path, f"line {number}", f"expected {len(names)} ';'-separated fields as in the "
                                                     f"header, got {len(cells)} (truncated file?)")
        for column, (cell, (parse, form)) in enumerate(zip(cells, parsers)):
            try:
                values[column].append(parse(cell.strip()))
            except ValueError:
                raise InputError(path, f"line {number}", f"expected {form} in column '{names[column]}', "
                                                         f"got {cell[:30]!r}") from None
    if not values[0]:
        raise InputError(path, "line 2", "expected at least one statistics row after the header; "
                                         "the file ends (truncated?)")
    return SippStats({name: np.asarray(column, dtype=float) for name, column in zip(names, values)
                      if not _MARKER.match(name)})


def read_sipp_stat(path):
    """Read a SIPp ``-trace_stat`` file (see ``parse_sipp_stat``)."""
    return parse_sipp_stat(read_text(path, "SIPp -trace_stat text"), path)
