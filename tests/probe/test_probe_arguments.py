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
    # upper bounds of what the port plan, tc, the veth and the kernel take
    (["net", "--streams", "100000", "--out", "t.csv"], "--streams: expected at most 1000 streams"),
    (["net", "--streams", "1001", "--out", "t.csv"], "--streams: expected at most 1000 streams"),
    (["net", "--rate", "1e12", "--out", "t.csv"], "--rate: expected a rate <= 1e+11 bit/s"),
    (["net", "--limit", "4294967296", "--out", "t.csv"], "--limit: expected a limit <= 4294967295"),
    (["net", "--burst", "4294967296", "--out", "t.csv"], "--burst: expected a burst <= 4294967295"),
    (["net", "--rate", "8000", "--burst", "274878", "--out", "t.csv"], "--burst: expected at most 274877 bytes"),
    (["net", "--flood-size", "1473", "--out", "t.csv"], "--flood-size: expected at most 1472 bytes"),
    (["cpu", "--quota-period-us", "1000001", "--out", "t.csv"], "--quota-period-us: expected at most 1000000"),
    # what the run cannot carry out as planned
    (["net", "--period", "5", "--duration", "1", "--out", "t.csv"], "--period: expected at most --duration"),
    (["timer", "--period", "5", "--duration", "2", "--out", "t.csv"],
     "vsim probe timer: --period: expected at most --duration (2 s), so that each thread wakes within the run"),
    (["cpu", "--period", "5", "--duration", "2", "--out", "t.csv"],
     "vsim probe cpu: --period: expected at most --duration (2 s), so that each worker ticks within the run"),
    (["net", "--flood-fraction", "1e-9", "--duration", "1", "--out", "t.csv"],
     "--flood-fraction: expected 0 or a flood of at least one datagram"),
    (["net", "--streams", "1000", "--period", "0.001", "--duration", "600", "--out", "t.csv"],
     "--duration: expected a run of at most 2000000 packets"),
    (["net", "--qdisc", "htb", "--rate", "1e6", "--voice-rate", "2e6", "--out", "t.csv"],
     "--voice-rate: expected a rate <= the bottleneck --rate"),
    (["cpu", "--vms", "16", "--workers", "17", "--out", "t.csv"], "--workers: expected at most 256 worker"),
    (["cpu", "--quota", "0.0001", "--out", "t.csv"], "--quota: expected at least 0.01 CPUs"),
    (["cpu", "--quota", "0.05", "--quota-period-us", "10000", "--out", "t.csv"],
     "--quota: expected at least 0.1 CPUs"),
    (["cpu", "--quota", "max,1e9", "--out", "t.csv"], "--quota: expected at most"),
    # options the chosen qdisc would ignore, and byte limits no frame fits
    (["net", "--qdisc", "pfifo", "--voice-rate", "1e6", "--out", "t.csv"],
     "--voice-rate: expected only with --qdisc htb"),
    (["net", "--qdisc", "tbf", "--flood-ceil", "1e6", "--out", "t.csv"],
     "--flood-ceil: expected only with --qdisc htb"),
    (["net", "--qdisc", "bfifo", "--limit", "10", "--out", "t.csv"],
     "--limit: expected at least 1042 bytes for bfifo (the largest frame the probe sends, a flood datagram)"),
    (["net", "--qdisc", "tbf", "--limit", "73", "--flood-fraction", "0", "--out", "t.csv"],
     "--limit: expected at least 74 bytes for tbf"),
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
    ("cleanup", "temporary directories named vsim-probe-*"),
    ("net", "htb only: the voice class's rate"),
])
def test_help_says_defaults_and_what_a_probe_needs(capsys, probe, says):
    code, out, _ = vsim(capsys, "probe", probe, "--help")
    assert code == 0 and says in " ".join(out.split())
