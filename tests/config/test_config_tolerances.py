"""Tests of tolerances: parsing from the command line and from a scenario's [validate] table, and checks."""

import math

import pytest

from vsim.core.errors import InputError
from vsim.build.load import load_scenario
from vsim.config.tolerances import STATS, check, key_problem, parse_option, value_problem
from vsim.traces.trace_metrics import METRICS


def comparison(error=0.1, rel_error=0.05, ks=0.1, pvalue=0.3, wasserstein=0.02):
    entry = {"measured": 2.0, "simulated": 2.0 + error, "error": error, "rel_error": rel_error}
    return {"p50": entry, "p90": entry, "p99": entry, "mean": entry,
            "ks": {"statistic": ks, "pvalue": pvalue}, "wasserstein": wasserstein}


def test_every_metric_and_stat_makes_a_valid_key():
    for metric in METRICS:
        for stat in STATS:
            assert key_problem(f"{metric}.{stat}") is None


@pytest.mark.parametrize("text, expected", [
    ("jitter_ms.p99=0.2", ("jitter_ms.p99", 0.2)),
    (" jitter_ms.ks = 0.25", ("jitter_ms.ks", 0.25)),
    ("loss_fraction.mean=0", ("loss_fraction.mean", 0.0)),
])
def test_options_parse(text, expected):
    assert parse_option(text) == expected


@pytest.mark.parametrize("text, message", [
    ("jitter_ms.p99", "expected METRIC.STAT=VALUE"),
    ("jiter_ms.p99=0.2", "did you mean 'jitter_ms'?"),
    ("jitter_ms.p98=0.2", "did you mean 'p99'?"),
    ("p99=0.2", "expected METRIC.STAT"),
    ("nonsense.zzz=1", "expected one of: jitter_ms"),
    ("jitter_ms.p99=-1", "expected a number >= 0, got -1.0"),
    ("jitter_ms.ks=1.5", "expected a number in 0..1"),
    ("jitter_ms.p99=abc", "expected a finite number, got 'abc'"),
    ("jitter_ms.p99=nan", "expected a finite number"),
])
def test_bad_options_are_one_line_input_errors_naming_the_option(text, message):
    with pytest.raises(InputError) as caught:
        parse_option(text)
    line = str(caught.value)
    assert line.startswith(f"--tolerance: {text}: ") and message in line and "\n" not in line


def test_values_must_be_numbers_not_booleans():
    assert "finite number" in value_problem("jitter_ms.p99", True)


@pytest.mark.parametrize("tolerances, failed", [
    ({"jitter_ms.p99": 0.1}, []),                   # |0.1| <= 0.1
    ({"jitter_ms.p99": 0.09}, ["jitter_ms.p99"]),
    ({"jitter_ms.p50_rel": 0.05}, []),
    ({"jitter_ms.mean_rel": 0.04}, ["jitter_ms.mean_rel"]),
    ({"jitter_ms.ks": 0.1, "jitter_ms.wasserstein": 0.01}, ["jitter_ms.wasserstein"]),
    ({"jitter_ms.ks_pvalue": 0.3}, []),             # a p-value must be at least its tolerance
    ({"jitter_ms.ks_pvalue": 0.31}, ["jitter_ms.ks_pvalue"]),
])
def test_checks_pass_and_fail_on_the_right_side(tolerances, failed):
    checks = check(tolerances, {"jitter_ms": comparison()})
    assert [c["key"] for c in checks if not c["passed"]] == failed
    assert [c["key"] for c in checks] == sorted(tolerances)


def test_negative_errors_count_by_their_size():
    checks = check({"jitter_ms.p99": 0.15}, {"jitter_ms": comparison(error=-0.2, rel_error=-0.1)})
    assert checks[0]["value"] == pytest.approx(0.2) and not checks[0]["passed"]


def test_a_relative_error_against_a_measured_zero_passes_only_without_difference():
    zero = comparison(error=0.0, rel_error=None)
    assert check({"loss_fraction.mean_rel": 0.1}, {"loss_fraction": zero})[0]["passed"]
    off = comparison(error=0.01, rel_error=None)
    result = check({"loss_fraction.mean_rel": 0.1}, {"loss_fraction": off})[0]
    assert result["value"] == math.inf and not result["passed"]


def scenario_with(tmp_path, table):
    path = tmp_path / "scenario.toml"
    path.write_text(f'name = "x"\n[validate]\n{table}\n')
    return path


def test_a_scenario_states_its_tolerances(tmp_path):
    path = scenario_with(tmp_path, 'tolerances = {"jitter_ms.p99" = 0.2, "jitter_ms.ks" = 0.2}')
    assert load_scenario(path).scenario.validate.tolerances == {"jitter_ms.p99": 0.2, "jitter_ms.ks": 0.2}


def test_a_scenario_without_a_validate_table_has_no_tolerances(tmp_path):
    path = tmp_path / "plain.toml"
    path.write_text('name = "x"\n')
    assert load_scenario(path).scenario.validate.tolerances == {}


@pytest.mark.parametrize("table, where, message", [
    ('tolerances = {"jiter_ms.p99" = 0.2}', 'validate.tolerances."jiter_ms.p99"', "did you mean 'jitter_ms'?"),
    ('tolerances = {"jitter_ms.ks" = 2}', 'validate.tolerances."jitter_ms.ks"', "expected a number in 0..1"),
    ('tolerances = {"jitter_ms.p99" = -0.1}', 'validate.tolerances."jitter_ms.p99"', "expected a number >= 0"),
    ('tolerances = {"jitter_ms.p99" = "a"}', 'validate.tolerances."jitter_ms.p99"', "expected a number"),
    ('tolerance = {}', "validate.tolerance", "did you mean 'tolerances'?"),
    ('tolerances = 0.2', "validate.tolerances", "expected a table of numbers"),
])
def test_bad_validate_tables_name_the_file_and_key(tmp_path, table, where, message):
    path = scenario_with(tmp_path, table)
    with pytest.raises(InputError) as caught:
        load_scenario(path)
    assert str(caught.value).startswith(f"{path}: {where}: ") and message in str(caught.value)
