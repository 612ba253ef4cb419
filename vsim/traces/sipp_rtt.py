"""SIPp's ``-trace_rtt`` file: one response time per row, semicolon-separated.

The header is ``Date_ms;response_time_ms;rtd_no``; each row gives when the
response time was measured, the response time in ms and the name of the timer
(``rtd``) of the scenario that measured it (``1`` for the built-in scenarios'
``rtd="true"``). As SIPp 3.6.1 writes them (src/stat.cpp, src/time.cpp):

* ``Date_ms`` is milliseconds since SIPp's first clock read (its start), not
  since the epoch, from ``CLOCK_MONOTONIC_COARSE``, printed by a C++ stream
  with 6 significant digits: ``8.001``, ``9996``, then ``1.23457e+06`` after
  1000 s (a resolution of 10 s there);
* ``response_time_ms`` is the difference of two such clock reads, so it moves
  in steps of the kernel's tick (4 ms at HZ=250: ``0``, ``4``, ``8``);
* rows are written every ``-rtt_freq`` response times (default 200): a run
  stopped between two writes leaves up to ``rtt_freq - 1`` of them out.
"""

from dataclasses import dataclass, field

import numpy as np

from vsim.core.errors import InputError
from vsim.traces.text_file import read_text
from vsim.traces.vsim_trace import Trace

HEADER = ("Date_ms", "response_time_ms", "rtd_no")


@dataclass(frozen=True)
class SippRtt:
    """Response times: ``date_ms`` and ``response_time_ms`` arrays, ``rtd`` a list of timer names."""

    date_ms: np.ndarray
    response_time_ms: np.ndarray
    rtd: list = field(repr=False)

    def __len__(self):
        return self.date_ms.size


def parse_sipp_rtt(text, path="<sipp rtt>"):
    """Parse ``-trace_rtt`` text; ``InputError`` naming the line on a defect."""
    lines = text.splitlines()
    if not any(line.strip() for line in lines):
        raise InputError(path, None, "empty file; expected a SIPp -trace_rtt CSV")
    header = tuple(cell.strip() for cell in lines[0].rstrip(";").split(";"))
    if header != HEADER:
        raise InputError(path, "line 1", f"expected the SIPp -trace_rtt header '{';'.join(HEADER)}' "
                                         "(not a SIPp -trace_rtt file)")
    dates, times, timers = [], [], []
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        cells = line.rstrip(";").split(";")
        if len(cells) != 3:
            raise InputError(path, f"line {number}", f"expected 3 ';'-separated fields (Date_ms;"
                                                     f"response_time_ms;rtd_no), got {len(cells)} (truncated?)")
        for cell, name, into in ((cells[0], "Date_ms", dates), (cells[1], "response_time_ms", times)):
            try:
                into.append(float(cell))
            except ValueError:
                raise InputError(path, f"line {number}", f"expected a number in column '{name}', "
                                                         f"got {cell[:30]!r}") from None
        timers.append(cells[2].strip())
    if not dates:
        raise InputError(path, "line 2", "expected at least one response-time row after the header; "
                                         "the file ends (truncated?)")
    return SippRtt(np.asarray(dates), np.asarray(times), timers)


def read_sipp_rtt(path):
    """Read a SIPp ``-trace_rtt`` file (see ``parse_sipp_rtt``)."""
    return parse_sipp_rtt(read_text(path, "SIPp -trace_rtt text"), path)


def format_sipp_rtt(date_ms, response_time_ms, rtd="1"):
    """SIPp ``-trace_rtt`` text of response times ``response_time_ms`` measured at ``date_ms``
    (ms since the client started), every row of timer ``rtd``: what ``parse_sipp_rtt`` reads."""
    rows = [";".join(HEADER)]
    rows += [f"{date:.3f};{time:.3f};{rtd}" for date, time in zip(date_ms, response_time_ms)]
    return "\n".join(rows) + "\n"


def rtt_trace(rtt, meta=None):
    """``rtt`` as a ``sipp_rtt`` ``Trace`` for ``vsim.traces.trace_metrics``: ``date_s`` (when each
    response time was measured, s since SIPp started) and ``response_time_ms``. Every timer's rows
    are kept: SIPp's built-in scenarios measure one (``rtd_no`` 1)."""
    return Trace("sipp_rtt", dict(meta or {}), {"date_s": np.asarray(rtt.date_ms, dtype=float) / 1e3,
                                                "response_time_ms": np.asarray(rtt.response_time_ms,
                                                                               dtype=float)})
