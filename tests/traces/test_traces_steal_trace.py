"""Steal traces: what the probe writes reads back exactly, and each defect gets its own one-line error."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from vsim.core.errors import InputError
from vsim.traces.steal_trace import parse_steal_trace, read_steal_trace
from vsim.traces.vsim_trace import MAGIC, trace_text, write_trace

TICK = 0.01


def columns(intervals, stolen, origin=0.0):
    """Steal trace columns: ``intervals`` (lengths, s) shared by every CPU, ``stolen[cpu][i]``."""
    bounds = origin + np.concatenate([[0.0], np.cumsum(intervals)])
    out = {"cpu": [], "start_s": [], "end_s": [], "steal_s": []}
    for i in range(len(intervals)):
        for cpu, series in enumerate(stolen):
            out["cpu"].append(cpu)
            out["start_s"].append(float(bounds[i]))
            out["end_s"].append(float(bounds[i + 1]))
            out["steal_s"].append(series[i])
    return out


@st.composite
def traces(draw):
    """Intervals of 10-100 ms on 1-4 CPUs, each stealing a whole number of ticks within its length."""
    count = draw(st.integers(1, 40))
    intervals = draw(st.lists(st.sampled_from([0.01, 0.02, 0.05, 0.1]), min_size=count, max_size=count))
    cpus = draw(st.integers(1, 4))
    stolen = [[TICK * draw(st.integers(0, round(length / TICK))) for length in intervals] for _ in range(cpus)]
    origin = draw(st.sampled_from([0.0, 12.5]))
    return intervals, stolen, origin


@given(traces())
def test_a_trace_round_trips_through_its_text(case):
    intervals, stolen, origin = case
    text = trace_text("steal", columns(intervals, stolen, origin), {"steal_resolution_s": TICK})
    trace = parse_steal_trace(text)
    assert trace.cpus == len(stolen) and trace.resolution_s == TICK
    assert trace.span_s == pytest.approx(sum(intervals), abs=1e-9)
    for cpu, series in enumerate(stolen):
        assert trace.stolen[cpu].tolist() == series
        assert trace.starts[cpu][0] == 0.0
        assert np.allclose(trace.ends[cpu] - trace.starts[cpu], intervals, atol=1e-9)
        assert trace.total_s(cpu) == pytest.approx(sum(series))


def test_a_file_round_trips_with_its_metadata(tmp_path):
    path = tmp_path / "steal.csv"
    write_trace(path, "steal", columns([0.05, 0.05], [[0.0, 0.01], [0.02, 0.0]]),
                {"command": "vsim probe steal --interval 0.05", "steal_resolution_s": "0.01"})
    trace = read_steal_trace(path)
    assert trace.meta["command"] == "vsim probe steal --interval 0.05"
    assert [trace.total_s(cpu) for cpu in range(2)] == [0.01, 0.02]


GOOD = columns([0.05, 0.05, 0.05], [[0.0, 0.01, 0.0], [0.01, 0.0, 0.05]])


def edited(row, column, value, meta=None):
    """GOOD's text with one cell changed (``row`` counted from 0, the header not counted)."""
    changed = {name: list(values) for name, values in GOOD.items()}
    changed[column][row] = value
    return trace_text("steal", changed, meta if meta is not None else {"steal_resolution_s": TICK})


FIRST_ROW = 5  # line of the first row: magic, kind, one metadata line, header


@pytest.mark.parametrize("text, where, words", [
    ("", None, "empty file"),
    (f"{MAGIC}\n# kind: steal\n", "line 2", "truncated"),
    (f"{MAGIC}\n# kind: steal\ncpu,start_s,end_s,steal_s\n", "rows", "at least one sample row"),
    (trace_text("steal", GOOD)[:-12], "line 9", "truncated file"),  # no metadata: rows on lines 4-9
    (trace_text("timer", {"thread": [0], "tick": [0], "scheduled_s": [0.0], "lateness_s": [0.0]}),
     "kind", "expected a steal trace"),
    (edited(2, "start_s", 0.06), f"line {FIRST_ROW + 2}", "to start at 0.05"),
    (edited(0, "end_s", 0.0), f"line {FIRST_ROW}", "end_s after start_s"),
    (edited(1, "steal_s", -0.01), f"line {FIRST_ROW + 1}", "steal_s >= 0"),
    (edited(1, "steal_s", 0.07), f"line {FIRST_ROW + 1}", "plus the counter's resolution"),
    (trace_text("steal", dict(GOOD, cpu=[0, 2] * 3)), "cpu", "none for CPU 1"),
    (edited(0, "cpu", -1), f"line {FIRST_ROW}", "cpu >= 0"),
    (edited(1, "steal_s", 0.01, meta={"steal_resolution_s": "fast"}), "steal_resolution_s", "non-negative"),
    (edited(2, "start_s", 0.06).replace("\n0,0.06,", "\n\n# resumed\n0,0.06,"), f"line {FIRST_ROW + 4}",
     "to start at 0.05"),
])
def test_each_defect_has_its_own_one_line_error(text, where, words):
    with pytest.raises(InputError) as caught:
        parse_steal_trace(text, "steal.csv")
    error = caught.value
    assert error.source == "steal.csv" and error.where == where
    assert words in error.expected
    assert "\n" not in str(error)


def test_an_interval_may_carry_one_tick_stolen_before_it():
    text = edited(1, "steal_s", 0.06)  # 50 ms interval charged 60 ms: one tick over
    assert parse_steal_trace(text).stolen[1][0] == 0.06


def test_cpus_covering_different_spans_are_refused():
    short = {name: values[:-1] for name, values in GOOD.items()}  # CPU 1 misses the last interval
    with pytest.raises(InputError, match="expected every CPU to cover") as caught:
        parse_steal_trace(trace_text("steal", short), "steal.csv")
    assert caught.value.where == "cpu"


def test_more_stolen_than_the_span_is_refused():
    over = columns([0.05, 0.05], [[0.06, 0.06]])
    with pytest.raises(InputError, match="at most the trace's span"):
        parse_steal_trace(trace_text("steal", over, {"steal_resolution_s": TICK}), "steal.csv")


def test_a_missing_file_is_named(tmp_path):
    missing = tmp_path / "none.csv"
    with pytest.raises(InputError, match="cannot read") as caught:
        read_steal_trace(missing)
    assert caught.value.source == str(missing)
