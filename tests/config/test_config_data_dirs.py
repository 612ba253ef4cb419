"""Models and configs are found in a source checkout, and in a built copy of the package anywhere."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from vsim.config.data_dirs import CHECKOUT, data_root, resolve_config

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("setup.py", "setup.cfg", "pyproject.toml", "README.md", "MANIFEST.in", "vsim", "models", "configs",
           "validation/steal")


def test_a_source_checkout_reads_the_repositorys_folders():
    assert CHECKOUT == ROOT and data_root() == ROOT


def test_without_a_checkout_the_packaged_copy_is_read(tmp_path):
    packaged = tmp_path / "vsim" / "_data"
    assert data_root(checkout=tmp_path, packaged=packaged) == packaged
    (tmp_path / "models").mkdir()
    (tmp_path / "configs").mkdir()
    assert data_root(checkout=tmp_path, packaged=packaged) == packaged  # no setup.py: not a checkout
    (tmp_path / "setup.py").write_text("")
    assert data_root(checkout=tmp_path, packaged=packaged) == tmp_path


def test_a_config_path_falls_back_to_the_shipped_scenarios(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    relative = "configs/voip-vsphere5/fig3.toml"
    assert resolve_config(relative) == ROOT / relative
    (tmp_path / "configs" / "voip-vsphere5").mkdir(parents=True)
    (tmp_path / relative).write_text("")
    assert resolve_config(relative) == Path(relative)  # the user's own file comes first
    assert resolve_config("nothing.toml") == Path("nothing.toml")


def test_a_built_package_carries_models_and_configs(tmp_path):
    """Build the package as a wheel would (setup.py's build_py, the scheduler left as Python),
    then run it from a directory that has neither models/ nor configs/."""
    source = tmp_path / "source"
    source.mkdir()
    for name in SOURCES:
        copy = shutil.copytree if (ROOT / name).is_dir() else shutil.copy
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        copy(ROOT / name, source / name)
    env = dict(os.environ, VSIM_PURE_PYTHON="1")
    subprocess.run([sys.executable, "setup.py", "-q", "build_py", "--build-lib", str(tmp_path / "lib")],
                   cwd=source, env=env, check=True, capture_output=True)
    shutil.rmtree(source)
    assert (tmp_path / "lib" / "vsim" / "_data" / "models" / "workloads" / "vmcd_g729.toml").is_file()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env["PYTHONPATH"] = str(tmp_path / "lib")

    def vsim(*args):
        return subprocess.run([sys.executable, "-m", "vsim", *args], cwd=elsewhere, env=env,
                              capture_output=True, text=True, timeout=120)

    described = vsim("describe", "workloads/vmcd_g729")
    assert described.returncode == 0, described.stderr
    assert str(tmp_path / "lib" / "vsim" / "_data" / "models") in described.stdout
    ran = vsim("run", "configs/voip-vsphere5/fig2.toml", "--duration", "1", "--json", "-")
    assert ran.returncode == 0, ran.stderr
    assert '"config": "configs/voip-vsphere5/fig2.toml"' in ran.stdout
    assert list(elsewhere.iterdir()) == []
    stolen = vsim("run", "configs/validation/cpu_cgroups.toml", "--duration", "1", "--json", "-")
    assert stolen.returncode == 0 and '"host_steal"' in stolen.stdout, stolen.stderr  # its steal trace is shipped
    traced = vsim("run", "configs/voip-vsphere5/fig2.toml", "--duration", "2", "--trace", "sim.csv")
    assert traced.returncode == 0, traced.stderr
    validated = vsim("validate", "sim.csv", "--scenario", "configs/voip-vsphere5/fig2.toml", "--duration", "2",
                     "--replications", "1", "--tolerance", "jitter_ms.p50=1000")
    assert validated.returncode == 0, validated.stderr
