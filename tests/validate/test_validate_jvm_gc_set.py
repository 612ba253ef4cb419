"""validation/jvm_gc: the collector model, its four parameters taken from two runs of each
kind, predicts the collections, bytes copied and pauses of this machine's other runs."""

import contextlib
import io
from pathlib import Path

import pytest

from benchmark_scripts import load_script

ROOT = Path(__file__).resolve().parents[2]
compare = load_script("validation/jvm_gc/compare.py", "jvm_gc_compare")


@pytest.fixture(scope="module")
def table():
    return compare.rows()


def test_every_run_has_its_log_and_its_output():
    logs = sorted(compare.RUNS.glob("*.log"))
    assert len(logs) == 11
    for log in logs:
        assert log.with_suffix(".out").exists()
    for name in compare.FIT_YOUNG + compare.FIT_FULL:
        assert (compare.RUNS / f"{name}.log").exists()


def test_fitted_parameters_are_physical(table):
    params, _ = table
    assert params["minor_work"] > 0 and params["major_work"] > 0
    assert 1e8 < params["copy_rate"] < 1e11 and 1e8 < params["mark_rate"] < 1e11


def test_the_fitting_runs_are_reproduced(table):
    """The full fit subtracts the young part as simulated without marking; with every
    parameter in place a full collection's young part differs by well under 0.1 %."""
    _, rows = table
    by_run = {row["run"]: row for row in rows}
    for name in compare.FIT_FULL:
        measured, model = by_run[name]["full_ms"]
        assert model == pytest.approx(measured, rel=1e-3)


def test_collection_counts_are_predicted_within_one(table):
    for row in table[1]:
        for kind in ("young_n", "full_n"):
            measured, model = row[kind]
            assert abs(measured - model) <= 1, (row["run"], kind)


def test_bytes_copied_are_predicted_within_2_percent(table):
    for row in table[1]:
        measured, model = row["young_mb"]
        assert abs(model / measured - 1) < 0.02, row["run"]


def test_pauses_of_the_runs_not_fitted_are_predicted_within_20_percent(table):
    for row in table[1]:
        if row["fitted"]:
            continue
        for kind in ("young_ms", "full_ms"):
            measured, model = row[kind]
            if row["full_n"][0] == 0 and kind == "full_ms":
                continue
            assert abs(model / measured - 1) < 0.20, (row["run"], kind)


def test_the_committed_table_is_what_compare_prints():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        compare.main()
    assert out.getvalue() == (ROOT / "validation/jvm_gc/compare.txt").read_text()


def test_a_set_without_logs_names_its_directory(tmp_path):
    with pytest.raises(FileNotFoundError, match=str(tmp_path)):
        compare.measured(tmp_path)
