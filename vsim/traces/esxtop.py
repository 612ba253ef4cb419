"""esxtop batch-mode output (``esxtop -b``): Windows perfmon CSV, one row per sample.

The first header cell names the format and time zone, e.g.
``(PDH-CSV 4.0) (UTC)(0)``; every other header cell names one counter as
``\\\\HOST\\OBJECT(INSTANCE)\\COUNTER``, and each row starts with the sample
time (``MM/DD/YYYY HH:MM:SS``) followed by one value per counter. Of the
thousands of counters this reads the ones vsim's summary reports:

* ``Physical Cpu(_Total)\\% Util Time`` (PCPU UTIL) and
  ``Physical Cpu(_Total)\\% Core Util Time`` (CORE UTIL, absent without
  hyper-threading), also per physical CPU;
* per VM, ``Group Cpu(GID:NAME)\\% Used``, ``% Ready`` and ``% CoStop``
  (%USED, %RDY, %CSTP; summed over the group's worlds, so a VM with several
  vCPUs can exceed 100), and ``% Max Limited`` (%MLMTD, the part of %RDY
  the VM's CPU limit caused) where the capture has it.

An empty cell (a counter of a world that came or went during the capture)
reads as NaN.
"""

import math
import re
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from vsim.core.errors import InputError
from vsim.traces.csv_lines import csv_rows
from vsim.traces.text_file import read_text

FORMAT_PREFIX = "(PDH-CSV"
_COUNTER = re.compile(r"^\\\\(?P<host>[^\\]+)\\(?P<object>[^\\(]+)\((?P<instance>.*)\)\\(?P<counter>[^\\]+)$")
_TIME_FORMAT = "%m/%d/%Y %H:%M:%S"
VM_COUNTERS = {"% Used": "used_pct", "% Ready": "ready_pct", "% CoStop": "costop_pct",
               "% Max Limited": "limited_pct"}
PCPU_COUNTERS = {"% Util Time": "util_pct", "% Core Util Time": "core_util_pct"}


@dataclass(frozen=True)
class EsxtopTrace:
    """Time series of one esxtop batch capture.

    ``time_s`` is seconds since the first sample (``start`` is that sample's
    time as written); ``pcpu_util_pct`` and ``core_util_pct`` are the host
    totals (``core_util_pct`` None without hyper-threading); ``pcpus`` maps
    each physical CPU number to its ``{'util_pct': ..., 'core_util_pct': ...}``;
    ``vms`` maps each group name to ``{'gid': int, 'used_pct': ...,
    'ready_pct': ..., 'costop_pct': ...}`` (and ``'limited_pct'`` where captured).
    """

    host: str
    start: str
    time_s: np.ndarray
    pcpu_util_pct: np.ndarray
    core_util_pct: np.ndarray | None
    pcpus: dict = field(repr=False)
    vms: dict = field(repr=False)

    def __len__(self):
        return self.time_s.size


def _columns(header, path):
    """The counters this reader wants: {(object, instance, counter): column index}, and the host."""
    wanted, hosts = {}, set()
    for index, cell in enumerate(header[1:], start=1):
        match = _COUNTER.match(cell)
        if match is None:
            continue
        hosts.add(match["host"])
        if match["object"] == "Physical Cpu" and match["counter"] in PCPU_COUNTERS \
                or match["object"] == "Group Cpu" and match["counter"] in VM_COUNTERS:
            wanted[(match["object"], match["instance"], match["counter"])] = index
    if ("Physical Cpu", "_Total", "% Util Time") not in wanted:
        raise InputError(path, "line 1", "expected a column '\\\\HOST\\Physical Cpu(_Total)\\% Util Time' "
                                         "(esxtop -b with the CPU panel's counters)")
    return wanted, sorted(hosts)[0]


def _number(text, path, line, name):
    if text.strip() == "":
        return math.nan
    try:
        return float(text)
    except ValueError:
        raise InputError(path, f"line {line}", f"expected a number in column '{name}', got {text[:30]!r}") \
            from None


def parse_esxtop(text, path="<esxtop>"):
    """Parse esxtop batch CSV text; ``InputError`` naming the line on a defect."""
    if not text.strip():
        raise InputError(path, None, "empty file; expected esxtop batch-mode CSV")
    lines = text.splitlines()
    rows = csv_rows(lines, range(1, len(lines) + 1), path)
    header = next(rows)[1]
    if not header or not header[0].startswith(FORMAT_PREFIX):
        raise InputError(path, "line 1", f"expected esxtop batch CSV starting with '\"{FORMAT_PREFIX} 4.0)' "
                                         "(not an esxtop trace)")
    wanted, host = _columns(header, path)
    names = {index: f"{obj}({instance})\\{counter}" for (obj, instance, counter), index in wanted.items()}
    times, values = [], {index: [] for index in wanted.values()}
    first = None
    for line, row in rows:
        if not row:
            continue
        if len(row) != len(header):
            raise InputError(path, f"line {line}", f"expected {len(header)} fields as in the header, got "
                                                   f"{len(row)} (truncated file?)")
        try:
            when = datetime.strptime(row[0], _TIME_FORMAT)
        except ValueError:
            raise InputError(path, f"line {line}", f"expected a sample time MM/DD/YYYY HH:MM:SS, got "
                                                   f"{row[0][:30]!r}") from None
        first = first or (row[0], when)
        times.append((when - first[1]).total_seconds())
        for index in values:
            values[index].append(_number(row[index], path, line, names[index]))
    if not times:
        raise InputError(path, "line 2", "expected at least one sample row after the header; "
                                         "the file ends (truncated?)")
    series = {key: np.asarray(values[index]) for key, index in wanted.items()}
    pcpus, vms = {}, {}
    for (obj, instance, counter), data in sorted(series.items()):
        if obj == "Physical Cpu" and instance != "_Total" and instance.isdigit():
            pcpus.setdefault(int(instance), {})[PCPU_COUNTERS[counter]] = data
        elif obj == "Group Cpu":
            gid, _, name = instance.partition(":")
            entry = vms.setdefault(name or instance, {"gid": int(gid) if gid.isdigit() else None})
            entry[VM_COUNTERS[counter]] = data
    return EsxtopTrace(host=host, start=first[0], time_s=np.asarray(times),
                       pcpu_util_pct=series[("Physical Cpu", "_Total", "% Util Time")],
                       core_util_pct=series.get(("Physical Cpu", "_Total", "% Core Util Time")),
                       pcpus=dict(sorted(pcpus.items())), vms=vms)


def read_esxtop(path):
    """Read an esxtop batch-mode CSV file (see ``parse_esxtop``)."""
    return parse_esxtop(read_text(path, "esxtop batch-mode CSV text", encoding="utf-8-sig"), path)
