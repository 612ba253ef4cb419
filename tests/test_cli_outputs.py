"""Tests of what the commands refuse to write: their own inputs, vsim's own files, links."""

from pathlib import Path

import pytest

from vsim import cli
from vsim.experiments import reproduce as _reproduce  # noqa: F401
from vsim.sweep import capacity as _capacity  # noqa: F401
from vsim.validate import validation as _validation  # noqa: F401
# (loaded before any test patches what they import: each command loads its stages when it runs)
from vsim.engines.simulation import Simulation
from cli_run import vsim, one_line_error

REPO = Path(__file__).resolve().parents[1]
CONFIG = str(REPO / "configs" / "voip-vsphere5" / "fig3.toml")
HOST_MODEL = REPO / "models" / "hosts" / "dell_r710_x5690.toml"
WORKLOAD_MODEL = REPO / "models" / "workloads" / "vmcd_g729.toml"
CLAIMS = REPO / "vsim" / "config" / "paper_claims.toml"


@pytest.fixture
def nothing_runs(monkeypatch):
    """Make any simulation, validation, capture reading or probe fail the test: outputs are
    checked before any of them."""
    def ran(*args, **kwargs):
        pytest.fail("ran before checking the output paths")
    monkeypatch.setattr(Simulation, "run", ran)
    monkeypatch.setattr("vsim.sweep.executor.run_tasks", ran)
    monkeypatch.setattr("vsim.experiments.reproduce.run_studies", ran)
    monkeypatch.setattr("vsim.validate.validation.run_validation", ran)
    monkeypatch.setattr("vsim.validate.jitter_report.capture_stream_stats", ran)
    for probe in ("timer_probe", "net_probe"):
        monkeypatch.setattr(f"vsim.probe.{probe}.run", ran)


def _unchanged(*paths):
    """The bytes of ``paths``, to compare after a refused command."""
    return {path: Path(path).read_bytes() for path in paths}


@pytest.mark.parametrize("command, target", [
    (["run", CONFIG, "--json"], HOST_MODEL),
    (["run", CONFIG, "--trace"], WORKLOAD_MODEL),
    (["sweep", CONFIG, "--quick", "--json"], HOST_MODEL),
    (["validate", "m.csv", "--scenario", CONFIG, "--json"], WORKLOAD_MODEL),
    (["reproduce", "voip-vsphere5", "--quick", "--json"], CLAIMS),
    (["jitter", "m.pcap", "--json"], CLAIMS),
    (["probe", "timer", "--duration", "1", "--out"], CLAIMS),
])
def test_an_output_onto_vsims_own_files_is_refused(capsys, nothing_runs, command, target):
    before = _unchanged(target)
    code, out, err = vsim(capsys, *command, target)
    assert code == 2 and out == ""
    line = one_line_error(err)
    assert line.startswith(f"vsim: error: {target}: ")
    assert "expected an output outside" in line or "expected an output apart from the inputs" in line
    assert _unchanged(target) == before


@pytest.mark.parametrize("folder", ["models", "configs", "vsim"])
def test_a_new_file_among_vsims_own_folders_is_refused(capsys, nothing_runs, folder):
    target = REPO / folder / "new-output.json"
    code, _, err = vsim(capsys, "run", CONFIG, "--json", target)
    assert code == 2 and one_line_error(err).startswith(f"vsim: error: {target}: --json: expected an output "
                                                        f"outside {REPO / folder}/")
    assert not target.exists()


@pytest.mark.parametrize("command, option", [(["reproduce", "voip-vsphere5", "--quick"], "--figures"),
                                             (["sweep", CONFIG, "--quick"], "--out"),
                                             (["validate", "m.csv", "--scenario", CONFIG], "--out")])
def test_an_output_directory_among_vsims_own_folders_is_refused(capsys, nothing_runs, command, option):
    code, _, err = vsim(capsys, *command, option, REPO / "configs")
    assert code == 2
    assert one_line_error(err).startswith(f"vsim: error: {REPO / 'configs'}: {option}: expected an output "
                                          f"outside {REPO / 'configs'}/")


def test_a_model_file_of_the_users_own_is_an_input_too(capsys, nothing_runs, tmp_path):
    model = tmp_path / "my_host.toml"
    model.write_bytes(HOST_MODEL.read_bytes())
    config = tmp_path / "s.toml"
    config.write_text(Path(CONFIG).read_text().replace('model = "hosts/dell_r710_x5690"',
                                                       'model = "my_host.toml"'))
    code, _, err = vsim(capsys, "run", config, "--json", model)
    assert code == 2 and one_line_error(err) == (
        f"vsim: error: {model}: --json: expected an output apart from the inputs; it is the host model, "
        f"which writing it would destroy")
    assert model.read_bytes() == HOST_MODEL.read_bytes()


def test_the_committed_figures_folder_stays_writable():
    from vsim.config.data_dirs import program_folders
    from vsim.outputs.output_check import check_outside
    check_outside([("--json", REPO / "figures" / "claims.json"), ("--figures", REPO / "figures"),
                   ("--figures", REPO / "figures" / "voip-vsphere5")], program_folders())


def _link(path, target):
    path.symlink_to(target)
    return path


@pytest.mark.parametrize("command, option", [(["run", CONFIG], "--json"), (["run", CONFIG], "--trace"),
                                             (["sweep", CONFIG, "--quick"], "--json"),
                                             (["reproduce", "voip-vsphere5", "--quick"], "--json"),
                                             (["validate", "m.csv", "--scenario", CONFIG], "--json"),
                                             (["jitter", "m.pcap"], "--json"),
                                             (["probe", "timer", "--duration", "1"], "--out")])
def test_an_output_file_that_is_a_link_is_refused(capsys, nothing_runs, tmp_path, monkeypatch, command, option):
    monkeypatch.chdir(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("theirs")
    for link, target in [(tmp_path / "to-file.json", victim),
                         (tmp_path / "dangling.json", tmp_path / "missing" / "deeper" / "o.json")]:
        _link(link, target)
        code, out, err = vsim(capsys, *command, option, link)
        assert code == 2 and out == ""
        assert one_line_error(err) == (f"vsim: error: {link}: {option}: expected a file or a new name, found a "
                                       f"symbolic link to {target} (an output is not written through a link)")
    assert victim.read_text() == "theirs" and not (tmp_path / "missing").exists()


@pytest.mark.parametrize("command, option, name", [
    (["sweep", CONFIG, "--quick"], "--out", "summary.md"),
    (["sweep", CONFIG, "--quick"], "--out", "fig3_jitter.png"),
    (["validate", "m.csv", "--scenario", CONFIG], "--out", "report.md"),
    (["validate", "m.csv", "--scenario", CONFIG], "--out", "cdf_jitter_ms.svg"),
    (["reproduce", "voip-vsphere5", "--quick"], "--figures", "voip-vsphere5/comparison.md"),
])
def test_a_link_planted_among_the_outputs_of_a_directory_is_refused(capsys, nothing_runs, tmp_path, command,
                                                                     option, name):
    victim = tmp_path / "victim.txt"
    victim.write_text("theirs")
    out = tmp_path / "out"
    link = out / name
    link.parent.mkdir(parents=True)
    _link(link, victim)
    code, _, err = vsim(capsys, *command, option, out)
    assert code == 2 and one_line_error(err) == (
        f"vsim: error: {link}: {option}: expected a file or a new name, found a symbolic link to {victim} "
        f"(an output is not written through a link)")
    assert victim.read_text() == "theirs"


def test_a_study_folder_that_is_a_link_is_refused(capsys, nothing_runs, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    figures = tmp_path / "figures"
    figures.mkdir()
    _link(figures / "voip-vsphere5", elsewhere)
    code, _, err = vsim(capsys, "reproduce", "voip-vsphere5", "--quick", "--figures", figures)
    assert code == 2 and one_line_error(err) == (
        f"vsim: error: {figures / 'voip-vsphere5'}: --figures: expected a directory for the outputs, found a "
        f"symbolic link to {elsewhere} (an output is not written through a link)")


def test_an_output_directory_that_is_a_dangling_link_is_refused(capsys, nothing_runs, tmp_path):
    out = _link(tmp_path / "out", tmp_path / "missing" / "out")
    code, _, err = vsim(capsys, "sweep", CONFIG, "--quick", "--out", out)
    assert code == 2 and one_line_error(err) == (
        f"vsim: error: {out}: --out: expected a directory or a new name, found a symbolic link to "
        f"{tmp_path / 'missing' / 'out'} (an output is not written through a link)")
    assert not (tmp_path / "missing").exists()


def test_an_output_directory_named_through_a_link_is_written(capsys, tmp_path):
    """The folder named on the command line may be a link to a folder: no file is replaced by following it."""
    real = tmp_path / "real"
    real.mkdir()
    out = _link(tmp_path / "out", real)
    code, _, err = vsim(capsys, "sweep", CONFIG, "--duration", "2", "--replications", "1",
                        "--set", "sweep.values=[1]", "--out", out, "--quiet")
    assert code == 0, err
    assert (real / "results.json").is_file() and out.is_symlink()
