"""End-to-end tests of ``vsim validate`` and ``vsim run --trace``: a measured trace made by the simulator
itself with another seed passes, a mismatched one fails with exit code 1, bad input exits 2 on one
line, a run that checked nothing exits 4, and the same seed gives the same bytes."""

import json
from pathlib import Path

import pytest

from vsim import cli
from cli_run import vsim, one_line_error

FIG2 = Path(__file__).resolve().parents[2] / "configs" / "voip-vsphere5" / "fig2.toml"
SHORT = ["--duration", "8", "--replications", "2", "--quiet"]
# An 8 s run's jitter samples follow each other closely (RFC 3550's estimator keeps 15/16 of its
# value per packet), so two runs of one scenario can differ by a KS distance of 0.3.
SENSIBLE = ["--tolerance", "jitter_ms.ks=0.4", "--tolerance", "jitter_ms.p99=0.3",
            "--tolerance", "jitter_ms.mean=0.1"]


@pytest.fixture(scope="module")
def traces(tmp_path_factory):
    """Measured stand-ins made by ``vsim run --trace``: the scenario with seed 7, and a mismatched
    scenario (20 streams in place of 120, so far less jitter); the same for the guest timer, the
    mismatch a timer median of 0.1 ms in place of 0.2."""
    folder = tmp_path_factory.mktemp("measured")
    made = {name: folder / f"{name}.csv" for name in ("same", "mismatched", "timer", "timer_mismatched")}
    runs = {"same": ["--seed", "7"], "mismatched": ["--seed", "9", "--set", "vm.streams_per_instance=20"],
            "timer": ["--seed", "7", "--trace-kind", "timer"],
            "timer_mismatched": ["--seed", "9", "--trace-kind", "timer", "--set",
                                 "params.workload.timer_median=1e-4"]}
    for name, extra in runs.items():
        assert cli.main(["run", str(FIG2), "--duration", "8", *extra, "--trace", str(made[name])]) == 0
    return made


def test_run_trace_writes_a_packets_trace(traces):
    text = traces["same"].read_text()
    assert text.startswith("# vsim-trace 1\n# kind: packets\n")
    assert "# seed: 7\n" in text and "# warmup_s: 4.0\n" in text


def test_timer_traces_are_compared_with_the_simulated_guest_timer(capsys, traces):
    timer = ["--tolerance", "lateness_ms.ks=0.1", "--tolerance", "lateness_ms.p50_rel=0.25"]
    code, out, err = vsim(capsys, "validate", traces["timer"], "--scenario", FIG2, *SHORT, *timer)
    assert code == 0, out + err
    assert out.splitlines()[2].split()[0] == "lateness_ms"
    code, out, err = vsim(capsys, "validate", traces["timer_mismatched"], "--scenario", FIG2, *SHORT, *timer)
    assert code == 1 and err.splitlines() == ["vsim: validation failed: 2 of 2 checks outside tolerance"]


def test_a_trace_of_the_same_scenario_passes(capsys, traces):
    code, out, err = vsim(capsys, "validate", traces["same"], "--scenario", FIG2, *SHORT, *SENSIBLE)
    assert code == 0, err
    assert "all 3 checks within tolerance" in out and err == ""
    assert out.splitlines()[1].split()[0] == "metric"


def test_the_documented_rank_tolerance_passes_a_trace_of_the_same_scenario_and_fails_a_mismatch(capsys, traces):
    """docs/validation.md's example: 20 replications and the rank test, which a trace of the same
    scenario passes (its KS distance is one of the model's own), and the 20-stream one fails, as
    the farthest of the 21 runs."""
    documented = ["--replications", "20", "--tolerance", "jitter_ms.ks_rank_pvalue=0.05"]
    code, out, err = vsim(capsys, "validate", traces["same"], "--scenario", FIG2, *SHORT, *documented, "--json", "-")
    assert code == 0, err
    assert json.loads(out)["metrics"]["jitter_ms"]["ks_rank"]["pvalue"] > 0.05
    code, out, err = vsim(capsys, "validate", traces["mismatched"], "--scenario", FIG2, *SHORT, *documented,
                          "--json", "-")
    assert code == 1
    assert json.loads(out)["metrics"]["jitter_ms"]["ks_rank"]["pvalue"] == 1 / 21


def test_a_mismatched_trace_fails_with_exit_code_1_and_a_one_line_verdict(capsys, traces):
    code, out, err = vsim(capsys, "validate", traces["mismatched"], "--scenario", FIG2, *SHORT, *SENSIBLE)
    assert code == 1
    assert err.splitlines() == ["vsim: validation failed: 2 of 3 checks outside tolerance"]
    failed = [line.split()[0] for line in out.splitlines() if line.endswith("FAIL")]
    assert failed == ["jitter_ms.ks", "jitter_ms.mean"]


def test_the_scenarios_validate_table_is_used_and_the_command_line_overrides_it(capsys, traces, tmp_path):
    config = tmp_path / "fig2_validated.toml"
    config.write_text(FIG2.read_text() + '\n[validate]\ntolerances = {"jitter_ms.ks" = 0.01, '
                                         '"jitter_ms.p99" = 0.3, "lateness_ms.ks" = 0.1}\n')
    code, out, _ = vsim(capsys, "validate", traces["same"], "--scenario", config, *SHORT, "--json", "-")
    doc = json.loads(out)
    assert code == 1 and doc["failed"] == 1 and doc["tolerances"]["jitter_ms.ks"]["stated_in"] == str(config)
    assert "lateness_ms.ks" not in doc["tolerances"]  # for timer traces; these are packets
    code, out, _ = vsim(capsys, "validate", traces["same"], "--scenario", config, *SHORT, "--json", "-",
                        "--tolerance", "jitter_ms.ks=0.4")
    doc = json.loads(out)
    assert code == 0 and doc["tolerances"]["jitter_ms.ks"] == {"stated_in": "--tolerance", "value": 0.4}


def test_without_tolerances_nothing_is_checked_and_it_says_so(capsys, traces):
    """It said so on stdout only, and the JSON's verdict read "pass", which a job reading it took
    for agreement; and it exited 0, on which a job passed."""
    code, out, err = vsim(capsys, "validate", traces["mismatched"], "--scenario", FIG2, *SHORT,
                          "--json", "-")
    assert code == cli.NOTHING_VALIDATED == 4 and json.loads(out)["verdict"] == "unchecked"
    assert err.splitlines()[-1].startswith("vsim: note: no tolerances stated: nothing checked")


def test_same_seed_gives_byte_identical_json_serially_and_in_processes(capsys, traces, tmp_path):
    first, second, parallel = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "c.json"
    for path, jobs in ((first, 1), (second, 1), (parallel, 2)):
        code, _, err = vsim(capsys, "validate", traces["same"], "--scenario", FIG2, *SHORT, *SENSIBLE,
                            "--json", path, "--jobs", jobs)
        assert code == 0, err
    assert first.read_bytes() == second.read_bytes() == parallel.read_bytes()
    doc = json.loads(first.read_text())
    assert doc["simulated"]["seeds"] == [1, 2] and doc["measured"] == [str(traces["same"])]
    code, _, _ = vsim(capsys, "validate", traces["same"], "--scenario", FIG2, *SHORT, *SENSIBLE,
                      "--json", second, "--seed", "5")
    assert code == 0 and first.read_bytes() != second.read_bytes()


def test_out_writes_the_report_the_json_and_figures_deterministically(capsys, traces, tmp_path):
    runs = []
    for name in ("one", "two"):
        code, _, err = vsim(capsys, "validate", traces["same"], "--scenario", FIG2, *SHORT, *SENSIBLE,
                            "--out", tmp_path / name, "--json", tmp_path / f"{name}.json")
        assert code == 0 and err.startswith("wrote ")
        runs.append({path.name: path.read_bytes() for path in sorted((tmp_path / name).iterdir())})
    assert runs[0] == runs[1]
    names = set(runs[0])
    assert {"report.md", "results.json", "cdf_jitter_ms.png", "cdf_jitter_ms.svg", "time_jitter_ms.svg",
            "cdf_loss_fraction.svg"} <= names and "time_loss_fraction.svg" not in names
    in_out = json.loads(runs[0]["results.json"])
    assert sorted(in_out.pop("files")) == sorted(names)
    assert sorted(in_out.pop("sha256")) == sorted(names - {"results.json"})
    assert in_out == json.loads((tmp_path / "one.json").read_text())
    report = runs[0]["report.md"].decode()
    assert "| jitter_ms |" in report and "all 3 checks within tolerance" in report


def test_a_second_report_stopped_while_writing_leaves_the_first_whole(capsys, traces, tmp_path, monkeypatch):
    out = tmp_path / "report"
    assert vsim(capsys, "validate", traces["same"], "--scenario", FIG2, *SHORT, *SENSIBLE, "--out", out)[0] == 0
    first = {path.name: path.read_bytes() for path in out.iterdir()}
    from vsim.validate import validation
    real = validation.write_figures

    def stopped_after_some_figures(directory, result):
        real(directory, result)
        raise KeyboardInterrupt

    monkeypatch.setattr(validation, "write_figures", stopped_after_some_figures)
    code, _, err = vsim(capsys, "validate", traces["timer"], "--scenario", FIG2, *SHORT, "--out", out)
    assert code == 130 and err.strip() == "vsim: interrupted"
    assert {path.name: path.read_bytes() for path in out.iterdir()} == first


def test_a_report_of_another_kind_removes_the_figures_the_first_listed(capsys, traces, tmp_path):
    out = tmp_path / "report"
    (tmp_path / "report").mkdir()
    (out / "notes.txt").write_text("mine")
    assert vsim(capsys, "validate", traces["same"], "--scenario", FIG2, *SHORT, *SENSIBLE, "--out", out)[0] == 0
    assert (out / "cdf_jitter_ms.svg").exists()
    timer = ["--tolerance", "lateness_ms.ks=0.1"]
    assert vsim(capsys, "validate", traces["timer"], "--scenario", FIG2, *SHORT, *timer, "--out", out)[0] == 0
    names = {path.name for path in out.iterdir()}
    assert "cdf_lateness_ms.svg" in names and "notes.txt" in names
    assert not any("jitter" in name for name in names)
    listed = json.loads((out / "results.json").read_text())["files"]
    assert set(listed) == names - {"notes.txt"}


@pytest.mark.parametrize("extra, named", [
    (["--tolerance", "jitter_ms.p99"], "--tolerance: jitter_ms.p99: expected METRIC.STAT=VALUE"),
    (["--tolerance", "jitter.p99=0.2"], "did you mean 'jitter_ms'?"),
    (["--tolerance", "lateness_ms.p99=0.2"], "lateness_ms comes from timer traces; these are packets traces"),
    (["--replications", "0"], "argument --replications: expected an integer >= 1"),
    (["--replications", "1", "--tolerance", "jitter_ms.ks_rank_pvalue=0.05"],
     "needs at least 2 replications; --replications gives 1"),
])
def test_bad_options_are_one_line_errors_with_exit_code_2(capsys, traces, extra, named):
    code, out, err = vsim(capsys, "validate", traces["same"], "--scenario", FIG2, *SHORT, *extra)
    assert code == 2 and out == ""
    assert named in one_line_error(err)


def test_traces_that_cannot_be_compared_are_one_line_errors(capsys, tmp_path, traces):
    timer = tmp_path / "timer.csv"
    timer.write_text("# vsim-trace 1\n# kind: timer\nthread,tick,scheduled_s,lateness_s\n0,0,0.02,1e-05\n")
    code, _, err = vsim(capsys, "validate", traces["same"], timer, "--scenario", FIG2, *SHORT)
    assert code == 2 and f"{timer}: kind: expected a packets trace like" in one_line_error(err)
    code, _, err = vsim(capsys, "validate", tmp_path / "missing.pcap", "--scenario", FIG2, *SHORT)
    assert code == 2 and "missing.pcap: cannot read" in one_line_error(err)


def test_out_that_is_a_file_is_refused_before_running(capsys, traces, tmp_path, monkeypatch):
    target = tmp_path / "taken"
    target.write_text("keep")
    monkeypatch.setattr("vsim.validate.validation.run_validation",
                        lambda *a, **k: pytest.fail("ran the scenario"))
    code, _, err = vsim(capsys, "validate", traces["same"], "--scenario", FIG2, *SHORT, "--out", target)
    assert code == 2 and f"{target}: --out: expected a directory, found a file" in one_line_error(err)
    assert target.read_text() == "keep"


def test_tolerances_stated_only_for_another_kind_of_trace_are_named_when_nothing_is_checked(
        capsys, traces, tmp_path):
    config = tmp_path / "fig2_timer_only.toml"
    config.write_text(FIG2.read_text() + '\n[validate]\ntolerances = {"lateness_ms.ks" = 0.1, '
                                         '"lateness_ms.p99" = 0.3}\n')
    code, out, err = vsim(capsys, "validate", traces["same"], "--scenario", config, *SHORT)
    assert code == cli.NOTHING_VALIDATED  # not 0: a CI job must not pass on a comparison never made
    assert out.splitlines()[-1] == ("no stated tolerance applies to packets traces (the scenario's 2 are "
                                    "for timer traces): nothing checked")
    assert err.splitlines()[-1] == "vsim: note: " + out.splitlines()[-1]


@pytest.mark.parametrize("duration, expected", [
    ("1e9", "--duration: a run of 1 VM with 4 vCPUs in all for 1e+09 s needs about"),
    ("1e-9", "--duration: expected a run of at least"),
])
def test_a_run_too_long_for_memory_or_too_short_to_measure_is_refused_before_running(
        capsys, traces, monkeypatch, duration, expected):
    """validate ran such runs: the kernel killed a long one, a short one measured nothing."""
    monkeypatch.setattr("vsim.validate.validation.simulated_traces",
                        lambda *a, **k: pytest.fail("ran the scenario"))
    code, out, err = vsim(capsys, "validate", traces["same"], "--scenario", FIG2, "--duration", duration)
    assert code == 2 and out == "" and expected in one_line_error(err)


def test_one_measurement_given_twice_under_other_names_is_refused_before_simulating(
        capsys, traces, tmp_path, monkeypatch):
    """A copy (or a capture and the probe's trace of one run) doubled the samples and narrowed the
    measured mean's interval to nothing."""
    monkeypatch.setattr("vsim.validate.validation.simulated_traces",
                        lambda *a, **k: pytest.fail("simulated"))
    copy = tmp_path / "copy.csv"
    copy.write_bytes(traces["same"].read_bytes())
    code, out, err = vsim(capsys, "validate", traces["same"], copy, "--scenario", FIG2, *SHORT)
    assert code == 2 and out == ""
    assert one_line_error(err) == (f"vsim: error: {copy}: expected each measurement once; it gives the "
                                   f"same samples as {traces['same']} (a copy, or a capture and its "
                                   f"trace of one run?)")


def test_a_sipp_rtt_file_is_compared_with_the_simulated_clients_and_p95_is_checked(capsys, tmp_path):
    """A -trace_rtt file of a SIP scenario's own client, written by ``vsim run --trace-kind sipp_rtt``,
    validates against that scenario at its p95; the same file against the scenario at 200 calls/s
    (where the default collector's full collections delay more calls) fails that check."""
    fig8 = Path(__file__).resolve().parents[2] / "configs" / "sip-jvm-gc" / "fig8.toml"
    measured = tmp_path / "uac_rtt.csv"
    rate = ["--set", "group.proxy.traffic.params.rate=120"]
    assert cli.main(["run", str(fig8), "--duration", "10", *rate, "--trace", str(measured),
                     "--trace-kind", "sipp_rtt"]) == 0
    capsys.readouterr()
    checks = ["--tolerance", "response_time_ms.p95=1", "--tolerance", "response_time_ms.p50_rel=0.05"]
    code, out, err = vsim(capsys, "validate", measured, "--scenario", fig8, *rate, "--duration", "10",
                          "--replications", "1", "--quiet", *checks, "--json", "-")
    assert code == 0, err
    result = json.loads(out)
    assert result["kind"] == "sipp_rtt" and set(result["metrics"]) == {"response_time_ms"}
    assert result["metrics"]["response_time_ms"]["p95"]["error"] == 0
    faster = ["--set", "group.proxy.traffic.params.rate=200"]
    code, _, err = vsim(capsys, "validate", measured, "--scenario", fig8, *faster, "--duration", "10",
                        "--replications", "1", "--quiet", *checks)
    assert code == 1 and err.startswith("vsim: validation failed")
