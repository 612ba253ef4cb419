"""Tests of the command line: JSON output, determinism, one-line errors and exit codes."""

import hashlib
import io
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from vsim import cli
from vsim.experiments import reproduce as _reproduce  # noqa: F401
from vsim.sweep import capacity as _capacity  # noqa: F401
from vsim.validate import validation as _validation  # noqa: F401
# (loaded before any test patches what they import: each command loads its stages when it runs)
from vsim.engines.simulation import Simulation
from vsim.config.claims import load_claims
from vsim.build.load import load_scenario
from cli_run import vsim, one_line_error
from processes import group_members, wait_for
from vsim.config.named_tables import split_named_key

REPO = Path(__file__).resolve().parents[1]
CONFIG = str(REPO / "configs" / "voip-vsphere5" / "fig3.toml")
SHORT = ["--duration", "2"]


@pytest.fixture
def config_with(tmp_path):
    """Write a copy of the fig3 config with one line replaced, returning its path."""
    def make(old, new):
        text = Path(CONFIG).read_text()
        assert old in text
        path = tmp_path / "scenario.toml"
        path.write_text(text.replace(old, new))
        return path
    return make


def test_run_json_to_stdout_is_the_summary(capsys):
    code, out, err = vsim(capsys, "run", CONFIG, *SHORT, "--json", "-")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["config"] == CONFIG and doc["seed"] == 1 and doc["duration"] == 2.0
    assert doc["overrides"] == []
    assert doc["scenario"].startswith("voip-vsphere5 Fig 3")
    summary = doc["summary"]
    assert summary["jitter"]["mean_ms"] > 0
    assert summary["voice"]["packet_rate_pps"] > 0
    assert set(summary["vms"]) == {"vm0"}
    host = (REPO / "models" / "hosts" / "dell_r710_x5690.toml").read_bytes()
    assert doc["models"]["host"] == f"hosts/dell_r710_x5690 sha256:{hashlib.sha256(host).hexdigest()[:12]}"
    assert set(doc["models"]) == {"client", "codec", "host", "nic", "scheduler", "vnic", "workload"}


def test_run_checks_its_own_point_not_the_sweep_it_ignores(capsys):
    """With one vCPU per VM the sweep's limit of 2 CPUs is refused, but `vsim run` runs only the
    file's own limit of 1 CPU (it refused the run for the sweep's values)."""
    config = str(WHATIF / "limit_measured_vm.toml")
    code, out, err = vsim(capsys, "run", config, "--duration", "2", "--set", "vm.vcpus=1")
    assert code == 0, err
    assert "limit 1 CPU (others none)" in out
    code, _, err = vsim(capsys, "sweep", config, "--duration", "2", "--set", "vm.vcpus=1")
    assert code == 2 and "sweep.values[0]: at measured_vm.limit = 2.0" in one_line_error(err)


def test_run_names_the_warm_up_it_used(capsys):
    code, out, _ = vsim(capsys, "run", CONFIG, *SHORT)  # the config's 5 s warm-up, halved run of 2 s
    assert code == 0 and ", 2 s, warm-up 1 s, " in out.splitlines()[0]
    code, out, _ = vsim(capsys, "run", CONFIG, "--duration", "30", "--json", "-")
    assert code == 0 and json.loads(out)["warmup_s"] == 5.0


def test_run_says_per_vm_cpu_sums_the_vcpus(capsys):
    code, out, _ = vsim(capsys, "run", CONFIG, *SHORT)
    lines = out.splitlines()
    assert code == 0 and lines.index(next(line for line in lines if line.startswith("vm0 "))) == \
        lines.index("VM CPU     % of one vCPU, summed over the VM's vCPUs, as esxtop (up to 100 x vCPUs)") + 1
    code, out, _ = vsim(capsys, "run", CONFIG, *SHORT, "--json", "-")
    assert json.loads(out)["summary"]["vms_definition"].startswith(
        "used_pct, ready_pct, costop_pct: % of one vCPU's time, summed over the VM's vCPUs")


def test_run_same_seed_is_byte_identical_and_seed_matters(capsys):
    first = vsim(capsys, "run", CONFIG, *SHORT, "--seed", "7", "--json", "-")
    second = vsim(capsys, "run", CONFIG, *SHORT, "--seed", "7", "--json", "-")
    other = vsim(capsys, "run", CONFIG, *SHORT, "--seed", "8", "--json", "-")
    assert first[0] == 0 and first[1] == second[1]
    assert json.loads(other[1])["summary"]["jitter"] != json.loads(first[1])["summary"]["jitter"]


def test_run_set_overrides_the_config(capsys):
    code, out, _ = vsim(capsys, "run", CONFIG, *SHORT, "--set", "vm.instances=2", "--json", "-")
    assert code == 0
    assert set(json.loads(out)["summary"]["vms"]) == {"vm0", "vm1"}
    assert json.loads(out)["overrides"] == ["vm.instances=2"]


def test_run_without_json_prints_a_readable_summary(capsys):
    code, out, _ = vsim(capsys, "run", CONFIG, *SHORT)
    assert code == 0
    assert "jitter" in out and "esxtop PCPU UTIL" in out and "vm0" in out and "costop" in out


def test_run_prints_voice_quality_per_conference_and_group(capsys):
    code, out, _ = vsim(capsys, "run", CONFIG, *SHORT, "--set", 'client.jitter_buffer="adaptive"')
    assert code == 0
    lines = [line for line in out.splitlines() if "jitter buffer" in line]
    assert len(lines) == 2 and lines[0].startswith("quality    R ")
    assert "(measuring conference, adaptive jitter buffer)" in lines[0]
    assert "(group vm, adaptive jitter buffer)" in lines[1] and "MOS" in lines[1]
    assert "note: the adaptive buffer's averages settle over 30 s" in out  # a 2 s run counts its start-up


def test_run_prints_the_uplink_groups_and_the_voice_beside_the_flood(capsys):
    code, out, _ = vsim(capsys, "run", REPO / "configs" / "voip-vsphere5" / "fig6.toml",
                        "--duration", "6")
    assert code == 0
    lines = out.splitlines()
    assert "uplink     fifo, 1000 Mb/s" in lines
    (flood,) = [line for line in lines if "group flood:" in line]
    assert "of 390000 packets/s offered" in flood and "interrupts/s" in flood
    assert any(line.strip().startswith("voice while the bulk traffic runs: loss") for line in lines)


def test_run_prints_request_response_transactions_and_latency(capsys):
    code, out, _ = vsim(capsys, "run", REPO / "configs" / "netioc-vsphere6" / "fig6.toml",
                        "--duration", "0.2")
    assert code == 0
    (line,) = [line for line in out.splitlines() if "group netperf:" in line]
    assert "transactions/s" in line and "one-way" in line and " µs" in line


def test_run_without_voice_prints_no_voice_lines_and_says_what_host_cpu_leaves_out(capsys):
    code, out, _ = vsim(capsys, "run", REPO / "configs" / "netioc-vsphere6" / "fig6.toml",
                        "--duration", "0.5")
    assert code == 0
    lines = out.splitlines()
    assert not any(line.startswith(("jitter ", "all VMs ", "voice ")) for line in lines)
    (host,) = [line for line in lines if line.startswith("host CPU")]
    assert host.endswith("(request/response traffic's CPU is not modelled)")
    code, out, _ = vsim(capsys, "run", REPO / "configs" / "netioc-vsphere6" / "exp3_default.toml",
                        "--duration", "0.5")
    assert code == 0
    assert not any(line.startswith(("jitter ", "voice ")) for line in out.splitlines())
    assert "not modelled" not in out  # bulk senders' CPU is


def test_run_voice_line_tells_the_packets_sent_from_those_delivered(capsys):
    """Under the flood the guests send every packet offered and the uplink drops some."""
    code, out, _ = vsim(capsys, "run", REPO / "configs" / "voip-vsphere5" / "fig6.toml",
                        "--duration", "6", "--json", "-")
    voice = json.loads(out)["summary"]["voice"]
    code, out, _ = vsim(capsys, "run", REPO / "configs" / "voip-vsphere5" / "fig6.toml",
                        "--duration", "6")
    assert code == 0
    (line,) = [line for line in out.splitlines() if line.startswith("voice ")]
    sent = re.search(r"sent (\d+) of (\d+) packets/s offered", line)
    delivered = re.search(r"delivered (\d+) packets/s", line)
    assert sent.group(1) == sent.group(2) == f"{voice['offered_pps']:.0f}"
    assert delivered.group(1) == f"{voice['packet_rate_pps']:.0f}" != sent.group(1)
    assert f"loss {100 * voice['loss_fraction']:.3f}%" in line


def test_run_prints_the_steal_a_trace_replays(capsys):
    code, out, _ = vsim(capsys, "run", REPO / "configs" / "validation" / "cpu_cgroups.toml",
                        "--duration", "2")
    assert code == 0
    assert any(line.startswith("steal      ") and "host.steal_trace" in line
               for line in out.splitlines())


def test_run_json_holds_the_voice_quality_section(capsys):
    code, out, _ = vsim(capsys, "run", CONFIG, *SHORT, "--json", "-")
    section = json.loads(out)["summary"]["voice_quality"]
    assert code == 0 and section["jitter_buffer"]["kind"] == "fixed"
    assert 1 <= section["measuring_conference"]["mos"] <= 4.5


def test_bad_jitter_buffer_is_one_line_error(capsys):
    code, _, err = vsim(capsys, "run", CONFIG, *SHORT, "--set", 'client.jitter_buffer="big"')
    assert code == 2
    assert "client.jitter_buffer: expected one of 'fixed', 'adaptive'" in one_line_error(err)


def test_run_shows_a_progress_bar_only_on_a_terminal(capsys, monkeypatch):
    code, _, err = vsim(capsys, "run", CONFIG, *SHORT, "--set", "vm.instances=2")
    assert code == 0 and err == ""

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    code, _, _ = vsim(capsys, "run", CONFIG, *SHORT, "--set", "vm.instances=2")
    assert code == 0
    assert "fig3:" in terminal.getvalue() and "/2 simulated s" in terminal.getvalue()


def test_run_shows_model_parameters_the_scenario_sets(capsys):
    code, out, _ = vsim(capsys, "run", CONFIG, *SHORT, "--set", "params.host.ht_rate=0.8")
    assert code == 0
    assert out.splitlines()[2] == ("params     host.ht_rate = 0.8  (set by the scenario or --set, not the "
                                   "model files)")
    code, out, _ = vsim(capsys, "run", CONFIG, *SHORT, "--set", "params.host.ht_rate=0.8", "--json", "-")
    assert json.loads(out)["params"] == {"host": {"ht_rate": 0.8}}
    code, out, _ = vsim(capsys, "run", CONFIG, *SHORT, "--json", "-")
    assert "params" not in json.loads(out)


def test_run_names_the_models_a_set_chose(capsys):
    code, out, _ = vsim(capsys, "run", CONFIG, *SHORT, "--set", "host.scheduler=schedulers/linux_cfs")
    assert code == 0
    assert "  scheduler schedulers/linux_cfs  " in out.splitlines()[1]


def test_run_shows_the_measured_vms_own_settings(capsys):
    code, out, _ = vsim(capsys, "run", CONFIG, *SHORT, "--set", "measured_vm.shares=8000",
                        "--set", "measured_vm.limit=2")
    assert code == 0
    assert out.splitlines()[2] == ("measured   shares 8000 (others 4000)  limit 2 CPUs (others none)"
                                   "  (vm0's own settings)")


def test_run_engines_agree_and_the_json_names_the_engine(capsys):
    free = ("--set", "params.host.socket_contention=0")  # a host the closed form plays
    auto = json.loads(vsim(capsys, "run", CONFIG, *SHORT, *free, "--json", "-")[1])
    events = json.loads(vsim(capsys, "run", CONFIG, *SHORT, *free, "--engine", "events", "--json", "-")[1])
    assert auto["engine"] == "uncontended" and events["engine"] == "events"
    assert auto["summary"]["jitter"] == events["summary"]["jitter"]


def test_uncontended_engine_on_a_busy_host_is_a_one_line_error(capsys):
    code, out, err = vsim(capsys, "run", CONFIG, *SHORT, "--set", "vm.instances=3",
                          "--engine", "uncontended")
    assert code == 2 and out == ""
    assert err.count("\n") == 1
    assert CONFIG in err and "--engine" in err and "15 worlds on 8 cores" in err


def test_a_model_error_at_build_time_names_its_key_not_the_engine(capsys):
    htb = str(REPO / "configs" / "validation" / "net_htb.toml")
    code, out, err = vsim(capsys, "run", htb, *SHORT, "--set", "params.nic.tx_stage_per_packet=2e-6")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "params.nic.tx_stage_per_packet" in err and "--engine" not in err


def test_unknown_config_key_names_file_key_and_suggestion(capsys, config_with):
    path = config_with("instances = 1", "instanes = 1")
    code, _, err = vsim(capsys, "run", str(path), *SHORT)
    assert code == 2
    line = one_line_error(err)
    assert str(path) in line and "vm.instanes" in line and "did you mean 'instances'" in line


def test_malformed_toml_names_the_line(capsys, config_with):
    path = config_with("[vm]", "[vm")
    line_number = Path(path).read_text().splitlines().index("[vm") + 1
    code, _, err = vsim(capsys, "run", str(path), *SHORT)
    assert code == 2
    line = one_line_error(err)
    assert str(path) in line and f"line {line_number}" in line


@pytest.mark.parametrize("assignment, named", [("vm", "--set"), ("vm.instances=many", "vm.instances")])
def test_bad_set_is_one_line_error(capsys, assignment, named):
    code, _, err = vsim(capsys, "run", CONFIG, *SHORT, "--set", assignment)
    assert code == 2
    assert named in one_line_error(err)


@pytest.mark.parametrize("option, value", [("--seed", "-1"), ("--seed", "x"), ("--duration", "0"),
                                           ("--duration", "nan")])
def test_out_of_range_options_name_the_option(capsys, option, value):
    code, _, err = vsim(capsys, "run", CONFIG, option, value)
    assert code == 2
    assert f"argument {option}" in one_line_error(err)


def test_jobs_below_one_rejected(capsys):
    code, _, err = vsim(capsys, "reproduce", "--jobs", "0")
    assert code == 2
    assert "argument --jobs" in one_line_error(err)


def test_failed_run_leaves_existing_json_untouched(capsys, tmp_path, monkeypatch):
    out = tmp_path / "out" / "summary.json"
    out.parent.mkdir()
    out.write_text("previous\n")
    code, _, err = vsim(capsys, "run", CONFIG, *SHORT, "--set", "vm.vcpus=99", "--json", str(out))
    assert code == 2 and "vm.vcpus" in one_line_error(err)

    def crash(*args, **kwargs):
        raise RuntimeError("simulated crash")

    monkeypatch.setattr(Simulation, "run", crash)
    code, _, err = vsim(capsys, "run", CONFIG, *SHORT, "--json", str(out))
    assert code == 3 and "Traceback" in err and "simulated crash" in err
    assert out.read_text() == "previous\n"
    assert [p.name for p in out.parent.iterdir()] == ["summary.json"]


def test_a_sigterm_an_extension_turned_into_its_own_error_still_reads_as_the_interruption(
        capsys, tmp_path, monkeypatch):
    """matplotlib's compiled transforms report an exception raised inside their call as a
    TypeError about their arguments: a run that fails so after SIGTERM arrived is interrupted."""
    out = tmp_path / "summary.json"

    def terminated_inside_an_extension(*args, **kwargs):
        try:
            signal.pthread_kill(threading.main_thread().ident, signal.SIGTERM)
            time.sleep(5)
        except KeyboardInterrupt:
            raise TypeError("affine_transform(): incompatible function arguments") from None

    monkeypatch.setattr(Simulation, "run", terminated_inside_an_extension)
    code, _, err = vsim(capsys, "run", CONFIG, *SHORT, "--json", str(out))
    assert (code, err.strip()) == (143, "vsim: interrupted by SIGTERM") and not out.exists()


def test_json_path_is_written_whole(capsys, tmp_path):
    out = tmp_path / "summary.json"
    out.write_text("previous\n")
    code, stdout, _ = vsim(capsys, "run", CONFIG, *SHORT, "--json", str(out))
    assert code == 0 and stdout == ""
    assert json.loads(out.read_text())["duration"] == 2.0


CAPACITY = ["capacity", CONFIG, "--vary", "vm.instances", "--require", "jitter_p99_ms<=2", "--quick"]


def no_simulation(monkeypatch):
    """Make any simulation fail the test: outputs must be checked before it."""
    def ran(*args, **kwargs):
        pytest.fail("simulated before checking the output paths")
    monkeypatch.setattr(Simulation, "run", ran)
    monkeypatch.setattr("vsim.sweep.executor.run_tasks", ran)
    monkeypatch.setattr("vsim.sweep.capacity.run_tasks", ran)
    monkeypatch.setattr("vsim.experiments.reproduce.run_studies", ran)


@pytest.mark.parametrize("command", [["run", CONFIG], ["sweep", CONFIG, "--quick"], CAPACITY,
                                     ["reproduce", "voip-vsphere5", "--quick"]])
def test_every_json_output_is_checked_before_simulating(capsys, tmp_path, monkeypatch, command):
    no_simulation(monkeypatch)
    monkeypatch.chdir(tmp_path)
    code, out, err = vsim(capsys, *command, "--json", "/proc/o.json")
    assert code == 2 and out == ""
    assert one_line_error(err).startswith("vsim: error: /proc/o.json: --json: cannot write into /proc/")
    missing = tmp_path / "missing" / "o.json"
    code, _, err = vsim(capsys, *command, "--json", str(missing))
    assert code == 2 and "does not exist (it is not created)" in one_line_error(err)
    read_only = tmp_path / "o.json"
    read_only.write_text("mine\n")
    read_only.chmod(0o444)
    code, _, err = vsim(capsys, *command, "--json", str(read_only))
    assert code == 2 and "the file is read-only" in one_line_error(err)
    assert read_only.read_text() == "mine\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o.json"]


@pytest.mark.parametrize("command, option", [(["sweep", CONFIG, "--quick"], "--out"), (CAPACITY, "--out"),
                                             (["reproduce", "voip-vsphere5", "--quick"], "--figures")])
def test_output_directories_are_checked_before_simulating(capsys, tmp_path, monkeypatch, command, option):
    no_simulation(monkeypatch)
    code, out, err = vsim(capsys, *command, option, str(tmp_path / "a" / "b"))
    assert code == 2 and out == ""
    assert f"{tmp_path / 'a' / 'b'}: {option}: expected a directory whose parent exists" in one_line_error(err)
    assert list(tmp_path.iterdir()) == []


OUTPUT_FILE_OPTIONS = [(["run", CONFIG], "--trace"), (["validate", "m.csv", "--scenario", CONFIG], "--json"),
                       (["jitter", "m.pcap"], "--json"), (["probe", "timer", "--duration", "1"], "--out"),
                       (["probe", "net"], "--out"), (["probe", "net", "--out", "/tmp/t.csv"], "--pcap")]


@pytest.mark.parametrize("command, option", OUTPUT_FILE_OPTIONS)
def test_every_output_file_option_is_checked_before_any_work(capsys, tmp_path, monkeypatch, command, option):
    no_simulation(monkeypatch)
    monkeypatch.setattr("vsim.validate.validation.run_validation", lambda *a, **k: pytest.fail("validated"))
    monkeypatch.setattr("vsim.validate.jitter_report.capture_stream_stats", lambda *a: pytest.fail("read"))
    for probe in ("timer_probe", "net_probe"):
        monkeypatch.setattr(f"vsim.probe.{probe}.run", lambda *a: pytest.fail("probed"))
    missing = tmp_path / "missing" / "t.csv"
    code, out, err = vsim(capsys, *command, option, missing)
    assert code == 2 and out == ""
    assert one_line_error(err) == (f"vsim: error: {missing}: {option}: expected an existing directory to "
                                   f"write into; {missing.parent}/ does not exist (it is not created)")
    afile = tmp_path / "afile"
    afile.write_text("x")
    code, _, err = vsim(capsys, *command, option, afile / "t.csv")
    assert code == 2 and f"{afile} is not a directory" in one_line_error(err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


@pytest.mark.parametrize("make_command, victim", [
    (lambda d: ["run", d / "s.toml", "--json", d / "s.toml"], "s.toml"),
    (lambda d: ["run", d / "s.toml", "--trace", d / "s.toml"], "s.toml"),
    (lambda d: ["run", d / "s.toml", "--json", d / "o.json", "--trace", d / "o.json"], None),
    (lambda d: ["sweep", d / "s.toml", "--json", d / "s.toml"], "s.toml"),
    (lambda d: ["validate", d / "m.csv", "--scenario", d / "s.toml", "--json", d / "m.csv"], "m.csv"),
    (lambda d: ["validate", d / "results.json", "--scenario", d / "s.toml", "--out", d], "results.json"),
    (lambda d: ["validate", d / "m.csv", "--scenario", d / "s.toml", "--json", d / "s.toml"], "s.toml"),
    (lambda d: ["jitter", d / "m.pcap", "--json", d / "m.pcap"], "m.pcap"),
])
def test_an_output_that_is_an_input_or_another_output_is_refused(capsys, tmp_path, monkeypatch, make_command,
                                                                  victim):
    no_simulation(monkeypatch)
    monkeypatch.setattr("vsim.validate.validation.run_validation", lambda *a, **k: pytest.fail("validated"))
    monkeypatch.setattr("vsim.validate.jitter_report.capture_stream_stats", lambda *a: pytest.fail("read"))
    (tmp_path / "s.toml").write_text(Path(CONFIG).read_text())
    for name in ("m.csv", "m.pcap", "results.json"):
        (tmp_path / name).write_text("measured")
    before = {path.name: path.read_text() for path in tmp_path.iterdir()}
    code, out, err = vsim(capsys, *map(str, make_command(tmp_path)))
    assert code == 2 and out == ""
    line = one_line_error(err)
    assert ("expected an output apart from the inputs" in line) if victim else ("both would be written" in line)
    assert {path.name: path.read_text() for path in tmp_path.iterdir()} == before


def test_validate_out_is_checked_like_every_output_directory(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr("vsim.validate.validation.run_validation", lambda *a, **k: pytest.fail("validated"))
    code, _, err = vsim(capsys, "validate", "m.csv", "--scenario", CONFIG, "--out", tmp_path / "a" / "b")
    assert code == 2
    assert (f"{tmp_path / 'a' / 'b'}: --out: expected a directory whose parent exists"
            in one_line_error(err))
    report = tmp_path / "results.json"
    report.write_text("mine")
    report.chmod(0o444)
    code, _, err = vsim(capsys, "validate", "m.csv", "--scenario", CONFIG, "--out", tmp_path)
    assert code == 2 and f"{report}: --out: the file is read-only" in one_line_error(err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.json"]


def test_run_json_into_a_device_keeps_the_device(capsys, tmp_path):
    null = tmp_path / "null"
    null.symlink_to(os.devnull)
    code, out, err = vsim(capsys, "run", CONFIG, *SHORT, "--json", null, "--trace", null)
    assert (code, out, err) == (0, "", "")
    assert null.is_symlink() and Path(os.devnull).is_char_device()


def test_run_json_that_cannot_be_written_is_one_line_error(capsys, tmp_path, monkeypatch):
    import errno
    null = tmp_path / "null"
    null.symlink_to(os.devnull)

    def full(fd, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr("vsim.outputs.atomic.os.write", full)
    code, _, err = vsim(capsys, "run", CONFIG, *SHORT, "--json", null)
    assert code == 2 and one_line_error(err) == f"vsim: error: {null}: cannot write (No space left on device)"


def test_a_read_only_figure_of_a_study_is_refused(capsys, tmp_path, monkeypatch):
    no_simulation(monkeypatch)
    figure = tmp_path / "voip-vsphere5" / "fig2.png"
    figure.parent.mkdir()
    figure.write_text("mine")
    figure.chmod(0o444)
    code, _, err = vsim(capsys, "reproduce", "--quick", "--figures", str(tmp_path))
    assert code == 2 and f"{figure}: --figures: the file is read-only" in one_line_error(err)


@pytest.mark.parametrize("name", ["claims.json", "results.json", "comparison.md"])
def test_reproduce_json_inside_a_study_folder_is_refused_before_running(capsys, tmp_path, monkeypatch, name):
    """It was written, then removed or overwritten by the study's own outputs, with exit code 0."""
    no_simulation(monkeypatch)
    (tmp_path / "voip-vsphere5").mkdir()
    target = tmp_path / "voip-vsphere5" / name
    code, _, err = vsim(capsys, "reproduce", "voip-vsphere5", "--quick", "--figures", str(tmp_path),
                        "--json", str(target))
    assert code == 2 and one_line_error(err) == (
        f"vsim: error: {target}: --json: expected a file outside {tmp_path / 'voip-vsphere5'}/, "
        f"which holds the outputs of study voip-vsphere5")


def test_a_read_only_sweep_report_is_refused(capsys, tmp_path, monkeypatch):
    no_simulation(monkeypatch)
    summary = tmp_path / "summary.md"
    summary.write_text("mine")
    summary.chmod(0o400)
    code, _, err = vsim(capsys, "sweep", CONFIG, "--quick", "--out", str(tmp_path))
    assert code == 2 and f"{summary}: --out: the file is read-only" in one_line_error(err)


@pytest.mark.parametrize("command", [["run", CONFIG], ["sweep", CONFIG, "--quick", "--jobs", "2"]])
def test_a_run_too_large_for_memory_is_refused_before_simulating(capsys, monkeypatch, command):
    no_simulation(monkeypatch)
    code, out, err = vsim(capsys, *command, "--set", "vm.instances=100000",
                          "--set", "sweep.values=[1, 100000]")
    assert code == 2 and out == ""
    line = one_line_error(err)
    assert "a run of 100000 VMs with 400000 vCPUs in all" in line and "GiB" in line and "available (MemAvailable)" in line
    # the value at fault was typed on the command line: the error names that --set and point
    if command[0] == "run":
        assert line.startswith("vsim: error: --set vm.instances=100000: vm.instances: ")
    else:
        assert line.startswith("vsim: error: --set sweep.values=[1, 100000]: sweep.values[1]: "
                               "at vm.instances = 100000, a run of")


def test_a_capacity_search_too_large_for_memory_blames_its_high_end(capsys, monkeypatch):
    no_simulation(monkeypatch)
    code, out, err = vsim(capsys, *CAPACITY, "--high", "100000")
    assert code == 2 and out == ""
    assert one_line_error(err).startswith("vsim: error: --high: at vm.instances = 100000, a run of 100000 VMs")


@pytest.mark.parametrize("command", [["run", CONFIG], ["sweep", CONFIG, "--quick"]])
def test_a_run_too_short_to_measure_blames_the_set_that_shortened_it(capsys, monkeypatch, command):
    no_simulation(monkeypatch)
    code, out, err = vsim(capsys, *command, "--set", "run.duration=0.03", "--set", "run.warmup=0.0125")
    assert code == 2 and out == ""
    assert one_line_error(err).startswith(
        "vsim: error: --set run.duration=0.03: run.duration: expected a run of at least 0.0325 s, so that the "
        "0.0175 s measured after the 0.0125 s warm-up (run.warmup 0.0125 s, at most half the run) hold one")


def test_reproduce_help_names_every_study_and_which_are_modelled(capsys):
    code, out, _ = vsim(capsys, "reproduce", "--help")
    assert code == 0
    text = " ".join(re.sub(r"-[ \t]*\n\s*", "-", out).split())  # argparse may wrap a name at a hyphen
    modelled = text.split("Modelled:")[1].split("Not modelled yet")[0]
    assert "netioc-vsphere6" in modelled and "voip-vsphere5" in modelled
    for study in {claim.study for claim in load_claims()}:
        assert study in text


def test_run_help_says_json_replaces_the_text_report(capsys):
    code, out, _ = vsim(capsys, "run", "--help")
    assert code == 0 and "instead of the text report (nothing else goes to stdout)" in " ".join(out.split())


def test_sweep_help_shows_a_single_percent_sign(capsys):
    code, out, _ = vsim(capsys, "sweep", "--help")
    assert code == 0 and "95% interval" in " ".join(out.split()) and "%%" not in out


def test_unknown_study_names_argument_and_known_studies(capsys):
    code, _, err = vsim(capsys, "reproduce", "voip-vsphere9")
    assert code == 2
    line = one_line_error(err)
    assert "STUDY 'voip-vsphere9'" in line and "voip-vsphere5" in line


def test_unmodelled_study_gives_nulls_and_a_note(capsys, tmp_path, monkeypatch):
    """A study of the claims file without a recipe (xen-appliances' recipe taken out of the
    registry here, as every study of the claims file has one)."""
    from vsim.experiments import registry
    monkeypatch.delitem(registry.STUDIES, "xen-appliances")
    monkeypatch.setattr("vsim.experiments.reproduce.run_tasks", lambda *args, **kwargs: [])
    code, out, err = vsim(capsys, "reproduce", "xen-appliances", "--json", "-", "--figures", str(tmp_path))
    assert code == 0
    assert "xen-appliances" in err and "not modelled" in err
    claims = json.loads(out)["claims"]
    assert claims and all(c["value"] is None and c["fitted"] is False for c in claims)
    assert list(tmp_path.iterdir()) == []


def test_shortened_reproduce_writes_into_figures_quick_of_the_current_directory(capsys, tmp_path,
                                                                              monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = vsim(capsys, "reproduce", "voip-vsphere5", "--duration", "1", "--replications", "1",
                        "--quiet")
    assert code == 0, err
    assert "figures and tables in figures-quick/voip-vsphere5" in err
    assert (tmp_path / "figures-quick" / "voip-vsphere5" / "comparison.md").is_file()
    assert [p.name for p in tmp_path.iterdir()] == ["figures-quick"]


@pytest.mark.parametrize("options, expected", [
    ([], "figures"), (["--quick"], "figures-quick"), (["--duration", "60"], "figures-quick"),
    (["--replications", "2"], "figures-quick"), (["--quick", "--figures", "mine"], "mine")])
def test_only_paper_length_runs_default_to_the_committed_figures(options, expected):
    args = cli.build_parser().parse_args(["reproduce", *options])
    assert cli._figures_dir(args, cli._plan(args)) == Path(expected)


def test_quick_figures_are_ignored_by_git():
    assert "/figures-quick/" in (REPO / ".gitignore").read_text().splitlines()


# ---------------------------------------------------------------- sweep
SWEEP = ["--set", "sweep.values=[1, 2]", "--duration", "1", "--replications", "2", "--quiet"]
WHATIF = REPO / "configs" / "whatif"
WHATIF_TEMPLATES = sorted(path.stem for path in WHATIF.glob("*.toml")
                          if not path.stem.startswith("cluster_"))  # cluster files, run by vsim cluster


def test_sweep_prints_a_row_per_point(capsys):
    code, out, err = vsim(capsys, "sweep", CONFIG, *SWEEP)
    assert code == 0, err
    lines = out.splitlines()
    assert "2 x 1 s per point, warm-up 0.5 s, --set 'sweep.values=[1, 2]', trimmed" in lines[0]
    assert lines[1].startswith("vm.instances") and "sent % of offered" in lines[1]
    assert [line.split()[0] for line in lines[2:]] == ["1", "2", "note:"]  # 2 replications: narrow intervals
    assert err == ""


def test_sweep_json_to_stdout_puts_the_table_on_stderr_and_is_deterministic(capsys):
    code, out, err = vsim(capsys, "sweep", CONFIG, *SWEEP, "--json", "-")
    assert code == 0
    doc = json.loads(out)
    assert [p["x"] for p in doc["points"]] == [1, 2]
    assert [p["seeds"] for p in doc["points"]] == [[1, 2], [1, 2]]
    assert doc["points"][1]["stats"]["host_cpu_pct"]["value"] > doc["points"][0]["stats"]["host_cpu_pct"]["value"]
    assert err.splitlines()[1].startswith("vm.instances")
    again = vsim(capsys, "sweep", CONFIG, *SWEEP, "--json", "-", "--jobs", "2")
    assert again[1] == out


def test_sweep_out_writes_the_report_and_figures(capsys, tmp_path):
    code, _, err = vsim(capsys, "sweep", str(WHATIF / "hyperthreading.toml"), "--duration", "1",
                        "--replications", "1", "--quiet", "--set", "vm.instances=2",
                        "--out", str(tmp_path / "ht"))
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "ht").iterdir()) == [
        "hyperthreading_cpu.png", "hyperthreading_cpu.svg", "hyperthreading_host.png", "hyperthreading_host.svg",
        "hyperthreading_jitter.png", "hyperthreading_jitter.svg", "points.csv", "points.parquet",
        "results.json", "runs.csv", "runs.parquet", "summary.md"]
    assert "| true |" in (tmp_path / "ht" / "summary.md").read_text()
    assert "seed 1, --set vm.instances=2." in (tmp_path / "ht" / "summary.md").read_text()
    assert json.loads((tmp_path / "ht" / "results.json").read_text())["overrides"] == ["vm.instances=2"]


def test_sweep_json_may_go_into_the_out_directory_it_creates(capsys, tmp_path):
    out = tmp_path / "new"
    code, _, err = vsim(capsys, "sweep", CONFIG, *SWEEP, "--quiet", "--out", str(out),
                        "--json", str(out / "sweep.json"))
    assert code == 0, err
    assert json.loads((out / "sweep.json").read_text())["points"][0]["x"] == 1
    assert "sweep.json" not in json.loads((out / "results.json").read_text())["files"]


def test_sweep_of_values_that_change_nothing_says_why(capsys):
    code, out, err = vsim(capsys, "sweep", CONFIG, "--set", 'sweep.key="vm.reservation"',
                          "--set", "sweep.values=[0, 0.5, 1]", "--set", "vm.instances=12",
                          "--duration", "1", "--replications", "2", "--quiet")
    assert code == 0, err
    rows = out.splitlines()[2:5]
    assert len({row.split(maxsplit=1)[1] for row in rows}) == 1
    assert out.splitlines()[5] == (
        "note: vm.reservation 0 .. 1 CPUs changes no CPU entitlement (each VM's share of the host is "
        "1.07 CPUs; a reservation counts only above that share), so these points ran the same")


def test_sweep_of_request_response_traffic_shows_its_latency_and_no_cpu_note(capsys):
    code, out, err = vsim(capsys, "sweep", REPO / "configs" / "netioc-vsphere6" / "fig6.toml",
                          "--duration", "0.5", "--replications", "1", "--quiet")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[1].split("  ")[0] == "host.uplink"
    assert "netperf transactions/s" in lines[1] and "netperf one-way µs" in lines[1]
    assert "jitter" not in lines[1] and "sent % of offered" not in lines[1]
    multiqueue, netioc = (float(re.split(r"\s{2,}", line)[2]) for line in lines[2:4])  # one-way µs
    assert 4 <= netioc - multiqueue <= 6  # NetIOC's overhead, the study's claim
    assert "n/a" not in out and "CPU entitlement" not in out
    assert lines[4].startswith("note: host CPU % leaves out the request/response traffic")


def test_sweep_progress_names_each_run(capsys):
    code, _, err = vsim(capsys, "sweep", CONFIG, *SWEEP[:-1])
    assert code == 0
    assert err.splitlines()[0] == "[0/4] 4 runs, 1 at a time: a line as each ends"
    assert err.splitlines()[1].startswith("[1/4] fig3 vm.instances=1 rep 1/2")


def test_sweep_without_a_sweep_table_is_a_one_line_error(capsys, config_with):
    path = config_with('[sweep]\nkey = "vm.instances"\nvalues = [1, 2, 4, 6, 8, 10, 12]', "")
    code, _, err = vsim(capsys, "sweep", str(path), "--duration", "1")
    assert code == 2
    line = one_line_error(err)
    assert f"{path}: sweep: expected a [sweep] table" in line


def test_sweep_out_that_is_a_file_is_refused_before_running(capsys, tmp_path, monkeypatch):
    target = tmp_path / "report"
    target.write_text("mine\n")
    monkeypatch.setattr("vsim.sweep.executor.run_tasks", lambda *a, **k: pytest.fail("ran before checking --out"))
    code, _, err = vsim(capsys, "sweep", CONFIG, *SWEEP, "--out", str(target))
    assert code == 2
    assert f"{target}: --out: expected a directory" in one_line_error(err)
    assert target.read_text() == "mine\n"


def test_sweep_of_an_unknown_key_is_a_one_line_error(capsys):
    code, _, err = vsim(capsys, "sweep", CONFIG, "--set", 'sweep.key="vm.instancs"', "--duration", "1")
    assert code == 2
    assert "sweep.key" in one_line_error(err) and "did you mean 'vm.instances'?" in err


@pytest.mark.parametrize("name", WHATIF_TEMPLATES)
def test_whatif_templates_load_with_their_sweeps(name):
    loaded = load_scenario(WHATIF / f"{name}.toml")
    assert loaded.scenario.sweep is not None and len(loaded.scenario.sweep.values) >= 2


def test_describe_model_shows_provenance(capsys):
    code, out, _ = vsim(capsys, "describe", "workloads/vmcd_g729")
    assert code == 0
    assert "frame_cost" in out and "fitted to: voip5." in out and "source: " in out


def test_describe_a_model_file_describes_the_model_not_a_config(capsys, tmp_path):
    """``models/codecs/g729.toml`` is the model ``codecs/g729``, wherever its models folder is."""
    code, out, _ = vsim(capsys, "describe", str(REPO / "models" / "codecs" / "g729.toml"))
    assert code == 0 and out.startswith("codecs/g729  (") and "payload_bytes = 20 B" in out
    own = tmp_path / "mine" / "codecs"
    own.mkdir(parents=True)
    (own / "fast.toml").write_text((REPO / "models" / "codecs" / "g729.toml").read_text())
    code, out, _ = vsim(capsys, "describe", str(own / "fast.toml"))
    assert code == 0 and out.startswith(f"codecs/fast  ({own / 'fast.toml'})")


def test_describe_a_ref_written_with_toml_is_the_ref_in_vsims_models(capsys, tmp_path, monkeypatch):
    """``workloads/vmcd_g729.toml`` took the current directory for a models folder and listed
    every TOML file under it in its error."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "stray").mkdir()
    (tmp_path / "stray" / "unrelated.toml").write_text("")
    code, out, _ = vsim(capsys, "describe", "workloads/vmcd_g729.toml")
    assert code == 0 and out.startswith("workloads/vmcd_g729  (")
    code, _, err = vsim(capsys, "describe", "workloads/nothing.toml")
    assert code == 2 and "workloads/vmcd_g729" in one_line_error(err) and "unrelated" not in err


def test_describe_model_shows_only_its_policys_parameters(capsys):
    code, out, _ = vsim(capsys, "describe", "schedulers/linux_eevdf")
    assert code == 0
    assert "base_slice = 0.00075 s" in out and "source: kernel/sched/fair.c (6.6)" in out
    assert "wake_credit" not in out and "latency" not in out


def test_describe_config_shows_file_values(capsys):
    code, out, _ = vsim(capsys, "describe", CONFIG)
    assert code == 0
    assert 'sweep.key = "vm.instances"' in out and "run.replications = 5" in out


def test_describe_config_shows_groups_and_tree_nodes_as_blocks(capsys):
    code, out, _ = vsim(capsys, "describe", str(REPO / "configs" / "netioc-vsphere6" / "exp1.toml"))
    assert code == 0 and "Section(" not in out
    assert out.count("\n[[group]]") == 3 and out.count("\n[[netioc.node]]") == 5
    assert "\n  count = 12    # an integer >= 1; set in file" in out


def test_describe_unknown_model_is_input_error(capsys):
    code, _, err = vsim(capsys, "describe", "workloads/nothing")
    assert code == 2
    assert "workloads/vmcd_g729" in one_line_error(err)


def test_importing_the_command_line_loads_neither_scipy_nor_matplotlib():
    """They take a second or more to import; --version and --help need neither."""
    code = ("import sys, vsim.cli; vsim.cli.build_parser(); "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'scipy', 'matplotlib', 'tqdm'}))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "[]\n"


def test_a_reader_that_stops_early_gets_no_traceback():
    """As with ``vsim describe ... | head -1``: stdout is closed before vsim writes."""
    process = subprocess.Popen([sys.executable, "-m", "vsim", "describe", CONFIG], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, cwd=REPO)
    process.stdout.close()
    err = process.stderr.read()
    assert process.wait(timeout=60) == 141 and err == ""


def test_module_entry_point_exit_code_and_single_line():
    result = subprocess.run([sys.executable, "-m", "vsim", "run", CONFIG, "--seed", "-1"],
                            capture_output=True, text=True, cwd=REPO, timeout=60)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.splitlines() == ["vsim: error: argument --seed: expected an integer >= 0, got '-1'"]


def _interruptible():
    """SIGINT back to its default in the child, as a terminal's foreground job has it: a suite
    started in the background of a shell script inherits it ignored, and so would vsim."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_stops_workers_and_exits_130_with_one_line(tmp_path):
    """Ctrl-C in a terminal sends SIGINT to the whole foreground group: vsim and its workers."""
    figures = tmp_path / "figures"
    process = subprocess.Popen([sys.executable, "-m", "vsim", "reproduce", "voip-vsphere5", "--quick",
                                "--jobs", "2", "--quiet", "--figures", str(figures)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                               start_new_session=True, preexec_fn=_interruptible)
    try:
        wait_for(lambda: len(group_members(process.pid, b"multiprocessing.spawn")) == 2)  # both workers
        time.sleep(0.5)
        os.killpg(process.pid, signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 130, err
    assert err == "vsim: interrupted\n" and out == ""
    wait_for(lambda: not group_members(process.pid), timeout=10)
    assert list(tmp_path.iterdir()) == []


FLOOD = str(WHATIF / "voice_beside_flood.toml")


def test_run_set_reaches_a_group_by_name(capsys):
    code, out, _ = vsim(capsys, "run", FLOOD, "--duration", "2", "--set", "group.flood.count=2",
                        "--json", "-")
    assert code == 0 and len(json.loads(out)["summary"]["uplink"]["groups"]["flood"]["per_vm_mbps"]) == 2


def test_run_set_of_an_unknown_group_is_one_line_naming_set_the_key_and_the_groups(capsys):
    code, _, err = vsim(capsys, "run", FLOOD, "--duration", "2", "--set", "group.flod.count=2")
    line = one_line_error(err)
    assert code == 2 and line.startswith("vsim: error: --set group.flod.count=2: group.flod.count: ")
    assert "(flood)" in line
    assert "[{" not in line and "{'" not in line


def _base_value(scenario, key):
    """The value of the dotted ``key`` in ``scenario``, a [[group]] reached by its name."""
    named = split_named_key(key)
    if named is not None:
        (value,) = [t for t in scenario.group if t.name == named.name]
        for part in named.rest:  # a key of the group, or of its traffic source's params
            value = value[part] if isinstance(value, dict) else getattr(value, part)
        return value
    section, *path = key.split(".")
    if section == "params":  # a model parameter the scenario sets: params.ROLE.NAME
        role, name = path
        return scenario.params[role][name]
    (name,) = path
    return getattr(getattr(scenario, section), name)


@pytest.mark.parametrize("name", WHATIF_TEMPLATES)
def test_whatif_templates_run_a_point_of_their_own_sweep(name):
    scenario = load_scenario(WHATIF / f"{name}.toml").scenario
    assert _base_value(scenario, scenario.sweep.key) in scenario.sweep.values


@pytest.mark.parametrize("name, key, value", [
    ("overcommit", "vm.instances", 14),  # past the study's 12
    ("linux_host", "vm.instances", 12),  # the Fig 3 host
    ("protect_measured_vm", "measured_vm.reservation", 1.5),  # a reservation that protects
    ("limit_measured_vm", "measured_vm.limit", 1.0),  # a limit just above what the VM uses
    ("voice_beside_flood", "group.flood.count", 8),  # past the transmit stage's ceiling
    ("netperf_beside_voice", "group.netperf.count", 4),
    ("netperf_beside_tcp_stream", "host.uplink", "netioc"),
    ("netperf_beside_flood", "group.flood.count", 6),  # flood and requests at the ceiling
    ("busy_measuring_client", "params.client.stall_rate", 0.075),  # the Table 2 client's rate
    ("replayed_flood", "group.flood.traffic.params.traffic_class", "flood"),  # the measured flood
    ("xen_credit_voip", "group.hog.limit", 1.0),  # each CPU-bound VM capped at 100 %
    ("sip_proxy_beside_vmcd", "vm.instances", 10),  # where the proxy's setup collapses
])
def test_whatif_templates_run_the_case_of_their_title(name, key, value):
    assert _base_value(load_scenario(WHATIF / f"{name}.toml").scenario, key) == value


def test_linux_host_title_names_no_scheduler_as_set_may_change_it():
    title = load_scenario(WHATIF / "linux_host.toml").scenario.name.lower()
    assert not any(word in title for word in ("eevdf", "cfs", "esx", "proportional"))


def test_help_names_every_probe_and_what_validate_takes(capsys):
    code, out, _ = vsim(capsys, "--help")
    assert code == 0 and "(timer, net, cpu, steal), or clean up after dead probes (cleanup)" in " ".join(out.split())
    code, out, _ = vsim(capsys, "validate", "--help")
    text = " ".join(out.split())
    assert "timer or cpu_ticks traces" in text and "(created if missing, its parent must exist)" in text


def test_a_measured_trace_given_twice_is_refused(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr("vsim.validate.validation.run_validation", lambda *a, **k: pytest.fail("validated"))
    trace = tmp_path / "m.csv"
    trace.write_text("measured")
    (tmp_path / "link.csv").symlink_to(trace)
    code, out, err = vsim(capsys, "validate", str(trace), str(tmp_path / "link.csv"), "--scenario", CONFIG)
    assert code == 2 and out == ""
    assert one_line_error(err) == f"vsim: error: {tmp_path / 'link.csv'}: expected each measured trace once; " \
                                  f"it is also given as {trace}"


@pytest.mark.parametrize("command, expected", [
    (["sweep", CONFIG], "--seed: sweep takes the config's run.seed as its first seed; expected --set run.seed=N"),
    (["capacity", CONFIG], "--seed: capacity takes the config's run.seed as its first seed; expected --set run.seed=N"),
    (["reproduce"], "--seed: reproduce runs each study's configs with their own seeds (run.seed), as the "
                    "committed results were made; expected no --seed"),
])
def test_seed_on_a_command_without_it_says_how_seeds_are_set(capsys, command, expected):
    """It was only "unrecognized arguments: --seed 3"."""
    code, out, err = vsim(capsys, *command, "--seed", "3")
    assert code == 2 and out == "" and one_line_error(err) == f"vsim: error: {expected}"


@pytest.mark.parametrize("option, expected", [
    (["--quick"], "--quick: run makes one replication; expected --duration S for a shorter run"),
    (["--replications", "3"], "--replications: run makes one replication; expected vsim sweep for "
                              "several, or --seed N for another"),
])
def test_run_options_of_the_other_commands_say_what_run_takes(capsys, option, expected):
    """They were only "unrecognized arguments: --quick"."""
    code, out, err = vsim(capsys, "run", CONFIG, *option)
    assert code == 2 and out == "" and one_line_error(err) == f"vsim: error: {expected}"


def test_the_run_header_names_the_overrides(capsys):
    """Two saved reports of one config with different --set values had the same header."""
    code, out, _ = vsim(capsys, "run", CONFIG, "--duration", "1", "--set", "vm.streams_per_instance=20")
    assert code == 0
    assert out.splitlines()[0].endswith(f"({CONFIG}, --set vm.streams_per_instance=20, seed 1, 1 s, "
                                        "warm-up 0.5 s, events engine)")
