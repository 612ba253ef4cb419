"""Tests of the esxtop batch-mode CSV reader on a small hand-made capture in esxtop's layout."""

import numpy as np
import pytest

from vsim.core.errors import InputError
from vsim.validate.esxtop import parse_esxtop, read_esxtop

HOST = r"\\esx01.lab"
COUNTERS = [
    r"Memory\Memory Overcommit (1 Minute Avg)",
    r"Physical Cpu Load\Cpu Load (1 Minute Avg)",
    r"Physical Cpu(0)\% Processor Time", r"Physical Cpu(0)\% Util Time", r"Physical Cpu(0)\% Core Util Time",
    r"Physical Cpu(1)\% Processor Time", r"Physical Cpu(1)\% Util Time", r"Physical Cpu(1)\% Core Util Time",
    r"Physical Cpu(_Total)\% Processor Time", r"Physical Cpu(_Total)\% Util Time",
    r"Physical Cpu(_Total)\% Core Util Time",
    r"Group Cpu(1:system)\Members", r"Group Cpu(1:system)\% Used", r"Group Cpu(1:system)\% Ready",
    r"Group Cpu(1:system)\% CoStop",
    r"Group Cpu(106234:vm01)\Members", r"Group Cpu(106234:vm01)\% Used", r"Group Cpu(106234:vm01)\% Run",
    r"Group Cpu(106234:vm01)\% Ready", r"Group Cpu(106234:vm01)\% CoStop",
    r"Group Cpu(106301:media vm 2)\% Used", r"Group Cpu(106301:media vm 2)\% Ready",
    r"Group Cpu(106301:media vm 2)\% CoStop",
    r"Network Port(vSwitch0:33554433:vmnic0)\MBits Transmitted/s",
]
ROWS = [
    ("11/24/2026 00:30:05", [0, 0.4, 40.1, 45.2, 60.3, 38.0, 41.0, 60.3, 39.05, 43.1, 60.3,
                             120, 1.5, 0.2, 0, 12, 150.5, 155.0, 3.25, 0.75, 80.0, 1.0, 0.0, 12.5]),
    ("11/24/2026 00:30:10", [0, 0.4, 42.0, 47.0, 61.0, 40.0, 43.0, 61.0, 41.0, 45.0, 61.0,
                             120, 1.6, 0.1, 0, 12, 160.0, 165.0, 4.5, 1.25, 82.0, "", 0.0, 12.0]),
    ("11/24/2026 00:30:15", [0, 0.4, 41.0, 46.0, 60.0, 39.0, 42.0, 60.0, 40.0, 44.0, 60.0,
                             120, 1.4, 0.3, 0, 12, 155.0, 160.0, 3.75, 1.0, 81.0, 2.0, 0.0, 12.2]),
]


def esxtop_text(counters=COUNTERS, rows=ROWS, first='(PDH-CSV 4.0) (UTC)(0)'):
    """esxtop -b output: every cell quoted, CRLF line ends, as esxtop writes it."""
    header = [first] + [f"{HOST}\\{counter}" for counter in counters]
    lines = [",".join(f'"{cell}"' for cell in header)]
    lines += [",".join(f'"{cell}"' for cell in [when] + values) for when, values in rows]
    return "\r\n".join(lines) + "\r\n"


def test_host_and_vm_series_are_read(tmp_path):
    path = tmp_path / "esxtop.csv"
    path.write_text(esxtop_text())
    trace = read_esxtop(path)
    assert trace.host == "esx01.lab" and trace.start == "11/24/2026 00:30:05" and len(trace) == 3
    assert trace.time_s.tolist() == [0.0, 5.0, 10.0]
    assert trace.pcpu_util_pct.tolist() == [43.1, 45.0, 44.0]
    assert trace.core_util_pct.tolist() == [60.3, 61.0, 60.0]
    assert trace.pcpus[1]["util_pct"].tolist() == [41.0, 43.0, 42.0]
    vm = trace.vms["vm01"]
    assert vm["gid"] == 106234
    assert vm["used_pct"].tolist() == [150.5, 160.0, 155.0]
    assert vm["ready_pct"].tolist() == [3.25, 4.5, 3.75]
    assert vm["costop_pct"].tolist() == [0.75, 1.25, 1.0]
    ready = trace.vms["media vm 2"]["ready_pct"]
    assert ready[0] == 1.0 and np.isnan(ready[1])  # an empty cell is a missing value
    assert "limited_pct" not in vm  # this capture has no % Max Limited


def test_a_vms_max_limited_time_is_read_where_the_capture_has_it(tmp_path):
    path = tmp_path / "esxtop.csv"
    counters = COUNTERS + [r"Group Cpu(106234:vm01)\% Max Limited"]
    rows = [(when, values + [limited]) for (when, values), limited in zip(ROWS, (2.5, 3.0, 0.0))]
    path.write_text(esxtop_text(counters, rows))
    vm = read_esxtop(path).vms["vm01"]
    assert vm["limited_pct"].tolist() == [2.5, 3.0, 0.0]
    assert vm["ready_pct"].tolist() == [3.25, 4.5, 3.75]


def test_without_hyperthreading_there_is_no_core_util():
    counters = [c for c in COUNTERS if "Core Util" not in c]
    rows = [(when, [v for c, v in zip(COUNTERS, values) if "Core Util" not in c]) for when, values in ROWS]
    assert parse_esxtop(esxtop_text(counters, rows)).core_util_pct is None


@pytest.mark.parametrize("text, where, words", [
    ("", None, "empty file"),
    ("StartTime;LastResetTime;CurrentTime;\n1;2;3;\n", "line 1", "expected esxtop batch CSV"),
    (esxtop_text(rows=[]), "line 2", "truncated"),
    (esxtop_text()[:-60], "line 4", "truncated file"),
    (esxtop_text().replace('"4.5"', '"4,5x"'), "line 3", "column 'Group Cpu(106234:vm01)\\% Ready'"),
    (esxtop_text().replace("11/24/2026 00:30:10", "2026-11-24T00:30:10"), "line 3", "MM/DD/YYYY"),
    (esxtop_text([c for c in COUNTERS if "_Total)\\% Util" not in c],
                 [(w, [v for c, v in zip(COUNTERS, vs) if "_Total)\\% Util" not in c]) for w, vs in ROWS]),
     "line 1", "Physical Cpu(_Total)\\% Util Time"),
])
def test_defects_are_one_line_errors(text, where, words):
    with pytest.raises(InputError) as info:
        parse_esxtop(text, "esxtop.csv")
    assert info.value.where == where and words in info.value.expected
    assert "\n" not in str(info.value)
