"""Tests of the probe subcommands' argument checks: one line, exit code 2, nothing written."""

import pytest

from probe_helpers import one_line_error
from cli_run import vsim


@pytest.mark.parametrize("args, message", [
    (["timer", "--period", "0", "--out", "t.csv"], "--period"),
    (["timer", "--duration", "601", "--out", "t.csv"], "duration <= 600"),
    (["timer", "--threads", "0", "--out", "t.csv"], "--threads"),
    (["timer", "--threads", "100000", "--out", "t.csv"], "at most 1024 threads"),
    (["steal", "--interval", "5", "--duration", "1", "--out", "t.csv"], "--interval: expected at most --duration"),
    (["timer", "--load", "io", "--out", "t.csv"], "--load"),
    (["timer"], "--out"),
    (["net", "--qdisc", "red", "--out", "t.csv"], "--qdisc"),
    (["net", "--rate", "100", "--out", "t.csv"], "--rate"),
    (["net", "--flood-fraction", "-0.5", "--out", "t.csv"], "--flood-fraction"),
    (["cpu", "--work-ms", "0", "--out", "t.csv"], "--work-ms"),
    (["cpu", "--vms", "x", "--out", "t.csv"], "--vms"),
])
def test_bad_arguments_are_one_line_errors(capsys, tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    code, out, err = vsim(capsys, "probe", *args)
    assert code == 2
    assert message in one_line_error(err)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("probe, says", [
    ("cpu", "(default max: no quota)"),
    ("timer", "which must be installed (apt-get install rt-tests)"),
    ("cleanup", "Needs root"),
    ("cleanup", "cgroups named vsim-probe-*"),
])
def test_help_says_defaults_and_what_a_probe_needs(capsys, probe, says):
    code, out, _ = vsim(capsys, "probe", probe, "--help")
    assert code == 0 and says in " ".join(out.split())
