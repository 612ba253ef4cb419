"""Tests of the esxtop batch-mode CSV reader on a small hand-made capture in esxtop's layout."""

import numpy as np
import pytest

from vsim.core.errors import InputError
from vsim.traces.esxtop import parse_esxtop, read_esxtop

from esxtop_samples import COUNTERS, HOST, ROWS, esxtop_text


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
