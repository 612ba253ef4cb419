"""What a config may read: vsim's models, its own folder and below, and paths named on the
command line; errors about any file read quote no more than a short, printable excerpt of it."""

from pathlib import Path

import pytest

from vsim.build.load import load_scenario
from vsim.cluster.load import load_cluster
from vsim.config.models import DEFAULT_MODELS_DIR
from vsim.config.schema_cluster import is_cluster_file
from vsim.config.toml_io import load_toml
from vsim.core.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
FIG3 = ROOT / "configs" / "voip-vsphere5" / "fig3.toml"
HOST = 'model = "hosts/dell_r710_x5690"'
SECRET = "hunter2-very-secret"


@pytest.fixture
def secret(tmp_path):
    """A TOML file outside the scenario's folder whose key and value must never be quoted."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    path = folder / "secret.toml"
    path.write_text(f'{SECRET.replace("-", "_")} = "{SECRET}"\n')
    return path


def scenario_naming(tmp_path, host_model=None, steal_trace=None):
    """Fig 3 in ``tmp_path/mine/`` with its host model (and steal trace) replaced."""
    folder = tmp_path / "mine"
    folder.mkdir(exist_ok=True)
    text = FIG3.read_text()
    if host_model is not None:
        text = text.replace(HOST, f'model = "{host_model}"')
    if steal_trace is not None:
        text = text.replace("[host]\n", f'[host]\nsteal_trace = "{steal_trace}"\n')
    path = folder / "mine.toml"
    path.write_text(text)
    return path


def refused(path, overrides=()):
    with pytest.raises(InputError) as caught:
        load_scenario(path, list(overrides))
    message = str(caught.value)
    assert "\n" not in message and SECRET not in message and "hunter2" not in message
    return caught.value


def test_a_model_ref_cannot_climb_out_of_the_models_folder(tmp_path, secret):
    climb = "../" * (len(DEFAULT_MODELS_DIR.resolve().parts) + 2)
    ref = f"hosts/{climb}{str(secret.with_suffix('')).lstrip('/')}"
    error = refused(scenario_naming(tmp_path, ref))
    assert error.where == "host.model" and "outside" in error.expected


@pytest.mark.parametrize("spelt", ["absolute", "relative"])
def test_a_model_file_outside_the_scenarios_folder_is_refused(tmp_path, secret, spelt):
    ref = str(secret) if spelt == "absolute" else "../elsewhere/secret.toml"
    error = refused(scenario_naming(tmp_path, ref))
    assert error.where == "host.model" and "outside" in error.expected


def test_a_link_out_of_the_scenarios_folder_is_refused(tmp_path, secret):
    path = scenario_naming(tmp_path, "linked.toml")
    (path.parent / "linked.toml").symlink_to(secret)
    error = refused(path)
    assert error.where == "host.model" and "outside" in error.expected


def test_a_steal_trace_outside_the_scenarios_folder_is_refused_unread(tmp_path):
    error = refused(scenario_naming(tmp_path, steal_trace="/etc/passwd"))
    assert error.where == "host.steal_trace" and "outside" in error.expected and "root:x" not in str(error)


def test_a_model_files_codec_outside_its_folder_is_refused_with_a_way_that_exists(tmp_path, secret):
    """The refusal told to name a workload's codec with ``--set params.codec=PATH``, which no scenario takes."""
    folder = scenario_naming(tmp_path).parent
    workload = (DEFAULT_MODELS_DIR / "workloads" / "vmcd_g729.toml").read_text()
    (folder / "w.toml").write_text(workload.replace('"codecs/g729"', f'"{secret}"'))
    path = folder / "w_scenario.toml"
    path.write_text(FIG3.read_text().replace('"workloads/vmcd_g729"', '"w.toml"'))
    error = refused(path)
    assert error.where == "params.codec" and "outside" in error.expected
    assert "--set" not in error.expected and "beside the model file" in error.expected


def test_a_cluster_files_model_outside_its_folder_is_refused_with_a_way_that_exists(tmp_path, secret):
    """vsim cluster takes no --set, which the refusal told to use."""
    cluster = ROOT / "configs" / "whatif" / "cluster_host_failure.toml"
    path = tmp_path / "mine" / "cluster.toml"
    path.parent.mkdir()
    path.write_text(cluster.read_text().replace('"hosts/hp_dl380g7_x5660"', f'"{secret}"', 1))
    with pytest.raises(InputError) as caught:
        load_cluster(path)
    assert "outside" in caught.value.expected and "--set" not in caught.value.expected
    assert "hunter2" not in str(caught.value)


def test_a_path_named_on_the_command_line_is_read_but_not_quoted(tmp_path):
    passwd = tmp_path / "passwd"
    passwd.write_text("root:x:0:0:root:/root:/bin/bash\n")
    error = refused(FIG3, [f"host.steal_trace={passwd}"])
    assert "not a vsim trace" in str(error) and "root:x" not in str(error)


def test_a_model_file_named_on_the_command_line_is_read_its_keys_quoted_short(tmp_path):
    long_key = "\\u001b[31m" + "k" * 300
    own = tmp_path / "elsewhere.toml"
    own.write_text(f'"{long_key}" = 1\n[params.x]\nvalue = 1\nsource = "s"\n')
    with pytest.raises(InputError) as caught:
        load_scenario(FIG3, [f"host.model={own}"])
    message = str(caught.value)
    assert "k" * 41 not in message and "\x1b" not in message and "\\x1b" in message


def test_a_model_file_beside_the_scenario_or_below_it_is_read(tmp_path):
    path = scenario_naming(tmp_path, "hosts/my_host.toml")
    (path.parent / "hosts").mkdir()
    (path.parent / "hosts" / "my_host.toml").write_bytes((DEFAULT_MODELS_DIR / "hosts" / "dell_r710_x5690.toml")
                                                         .read_bytes())
    assert load_scenario(path).models["host"].values.threads_per_core == 2


def test_a_model_file_that_is_not_utf8_text_is_not_a_toml_file_and_is_not_quoted(tmp_path):
    path = scenario_naming(tmp_path, "binary.toml")
    (path.parent / "binary.toml").write_bytes(b"api_token = 'hunter2'\n\xff\xfe\x00secret")
    error = refused(path)
    assert "not a TOML file" in error.expected and "api_token" not in str(error)


def test_a_file_that_is_not_toml_is_not_quoted(tmp_path):
    path = scenario_naming(tmp_path, "notes.toml")
    (path.parent / "notes.toml").write_text("root:x:0:0:root:/root:/bin/bash\n")
    error = refused(path)
    assert "invalid TOML" in error.expected and "root:x" not in str(error)


@pytest.mark.parametrize("config", sorted(path.relative_to(ROOT).as_posix()
                                          for path in (ROOT / "configs").glob("**/*.toml")))
def test_every_shipped_config_reads_what_it_names(config):
    """vsim's own scenarios and cluster files read vsim's own data, a steal trace of validation/
    included."""
    if is_cluster_file(load_toml(ROOT / config)):
        assert load_cluster(ROOT / config).config.name
        return
    assert load_scenario(ROOT / config).scenario.name
