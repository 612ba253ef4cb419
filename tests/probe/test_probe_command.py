"""Tests of the checks every probe shares: refusing without root or tools, and the output path."""

import pytest

from probe_helpers import one_line_error
from cli_run import vsim
from vsim.probe import machine


@pytest.mark.parametrize("probe", [["net"], ["cpu"], ["cleanup"]])
def test_without_root_the_probe_refuses(capsys, tmp_path, monkeypatch, probe):
    monkeypatch.setattr(machine.os, "geteuid", lambda: 1000)
    out = [] if probe == ["cleanup"] else ["--out", str(tmp_path / "t.csv")]
    code, _, err = vsim(capsys, "probe", *probe, *out)
    assert code == 2
    assert "needs root" in one_line_error(err)
    assert list(tmp_path.iterdir()) == []


def test_without_tcpdump_the_net_probe_refuses(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(machine.os, "geteuid", lambda: 0)
    monkeypatch.setattr(machine.shutil, "which", lambda tool: None if tool == "tcpdump" else f"/bin/{tool}")
    code, _, err = vsim(capsys, "probe", "net", "--out", str(tmp_path / "t.csv"))
    assert code == 2
    assert "needs 'tcpdump'" in one_line_error(err)


def test_without_cyclictest_the_timer_refuses_to_compare(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    code, _, err = vsim(capsys, "probe", "timer", "--via", "cyclictest", "--out", str(tmp_path / "t.csv"))
    assert code == 2
    assert "rt-tests" in one_line_error(err)


def test_an_output_that_is_a_directory_is_refused(capsys, tmp_path):
    code, _, err = vsim(capsys, "probe", "timer", "--duration", "0.1", "--out", str(tmp_path))
    assert code == 2
    assert "--out" in one_line_error(err)


@pytest.mark.parametrize("option, message", [
    (["--weight", "100,200,300"], "1 or 2 comma-separated"),
    (["--weight", "0"], "weight 1-10000"),
    (["--quota", "none"], "quota in CPUs"),
    (["--quota=-1,max"], "quota in CPUs"),
    (["--parent-weight", "20000"], "--parent-weight"),
])
def test_bad_weights_and_quotas_are_refused(capsys, tmp_path, monkeypatch, option, message):
    monkeypatch.setattr(machine.os, "geteuid", lambda: 0)
    code, _, err = vsim(capsys, "probe", "cpu", "--vms", "2", *option, "--out", str(tmp_path / "t.csv"))
    assert code == 2
    assert message in one_line_error(err)


def test_htb_ceils_below_rates_are_refused(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(machine.os, "geteuid", lambda: 0)
    code, _, err = vsim(capsys, "probe", "net", "--qdisc", "htb", "--rate", "1e6", "--voice-rate", "5e5",
                        "--voice-ceil", "1e5", "--out", str(tmp_path / "t.csv"))
    assert code == 2
    assert "--voice-ceil" in one_line_error(err)


@pytest.mark.parametrize("names, blamed", [
    (["--out", "t.pcap"], "--pcap: expected a file apart from --out"),
    (["--out", "t.csv", "--pcap", "t.csv"], "--pcap: expected a file apart from --out"),
    (["--out", "t.csv", "--pcap", "t.summary.txt"], "the summary: expected a file apart from --pcap"),
])
def test_the_net_probes_three_files_must_differ(capsys, tmp_path, names, blamed):
    args = [str(tmp_path / name) if name.startswith("t.") else name for name in names]
    code, _, err = vsim(capsys, "probe", "net", "--duration", "1", *args)
    assert code == 2
    assert blamed in one_line_error(err)
    assert list(tmp_path.iterdir()) == []


def test_a_read_only_summary_of_the_net_probe_is_refused_before_probing(capsys, tmp_path):
    summary = tmp_path / "t.summary.txt"
    summary.write_text("kept\n")
    summary.chmod(0o444)
    code, _, err = vsim(capsys, "probe", "net", "--duration", "1", "--out", str(tmp_path / "t.csv"))
    assert code == 2
    assert "the summary" in one_line_error(err) and summary.read_text() == "kept\n"
