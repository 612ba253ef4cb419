"""The package layers of ``vsim/``: each package imports only packages below it.

``setup.cfg``'s ``[importlinter]`` layers contract states the order, README's
layout section top to bottom: the commands, then the stages (engines, build,
results, config), the trace formats, the model packages and the plumbing.
import-linter counts every import, those inside functions too, so a strict
order also rules out cycles between packages; ``exhaustive`` makes a package
in no layer an error. vsim/__init__.py, the root, stands above them all.
"""

import configparser
import os
import shutil
import subprocess
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "setup.cfg"
LINT_IMPORTS = Path(sysconfig.get_path("scripts")) / "lint-imports"

LAYERS = (
    "__main__", "cli", "scenario",                      # entry points; scenario: one release of old names
    "experiments", "validate", "sweep", "probe",        # the commands
    "cluster", "engines", "build", "results", "config", # the stages
    "traces",                                           # trace and capture formats
    "guest", "net", "cpu", "metrics",                   # the models
    "outputs", "core", "native",                        # plumbing
)


def _lint(cwd=ROOT):
    """import-linter's (exit status, report) on the package found from ``cwd``."""
    env = {**os.environ, "PYTHONPATH": str(cwd)}
    done = subprocess.run([str(LINT_IMPORTS), "--no-cache", "--no-logo", str(CONFIG)], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=120)
    return done.returncode, done.stdout + done.stderr


def test_no_package_imports_one_above_it():
    status, report = _lint()
    assert status == 0, report


def test_the_contract_has_the_layouts_order():
    config = configparser.ConfigParser()
    config.read(CONFIG)
    layers = config["importlinter:contract:layers"]["layers"].split()
    assert tuple(layers) == LAYERS


def _copy_with(tmp_path, relative, source):
    """A copy of ``vsim/`` under ``tmp_path`` with ``source`` written at ``relative``."""
    shutil.copytree(ROOT / "vsim", tmp_path / "vsim",
                    ignore=shutil.ignore_patterns("__pycache__", "*.so", "_data"))
    planted = tmp_path / "vsim" / relative
    planted.parent.mkdir(parents=True, exist_ok=True)
    planted.write_text(source)
    return tmp_path


@pytest.mark.parametrize("source, expected", [
    ("from vsim.cli import main\n", "vsim.cpu.bad -> vsim.cli"),
    ("def later():\n    import vsim.experiments.reproduce\n", "vsim.cpu.bad -> vsim.experiments.reproduce"),
])
def test_an_upward_import_breaks_the_contract(tmp_path, source, expected):
    """A model module importing a command, at the top or inside a function, is reported."""
    status, report = _lint(_copy_with(tmp_path, "cpu/bad.py", source))
    assert status == 1 and expected in report, report


def test_a_package_in_no_layer_breaks_the_contract(tmp_path):
    status, report = _lint(_copy_with(tmp_path, "stray/__init__.py", ""))
    assert status == 1 and "vsim.stray" in report, report
