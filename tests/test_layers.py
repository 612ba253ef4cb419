"""The package layers of ``vsim/``: each package imports only packages below it.

The order is README's layout section, top to bottom: the commands, then the
stages (engines, build, results, config), the trace formats, the model
packages and the plumbing. Every import counts, those inside functions too,
so a strict order also rules out cycles between packages.
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "vsim"

LAYERS = (
    "__init__", "__main__", "cli", "scenario",          # entry points; scenario: one release of old names
    "experiments", "validate", "sweep", "probe",        # the commands
    "engines", "build", "results", "config",            # the stages
    "traces",                                           # trace and capture formats
    "guest", "net", "cpu", "metrics",                   # the models
    "outputs", "core", "native",                        # plumbing
)


def _package(path):
    """The top-level name under ``vsim/`` that ``path`` belongs to (a package or a module)."""
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return parts[0]


def _module_name(path):
    parts = ("vsim",) + path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path):
    """(line, imported vsim module) of every import in ``path``, relative ones resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    here = _module_name(path).split(".")
    if path.name != "__init__.py":
        here = here[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[:len(here) - node.level + 1]
                yield node.lineno, ".".join(base + ([node.module] if node.module else []))
            elif node.module:
                yield node.lineno, node.module


def _violations():
    for path in sorted(PACKAGE.rglob("*.py")):
        own = _package(path)
        for line, name in _imports(path):
            parts = name.split(".")
            if parts[0] != "vsim" or len(parts) < 2 or parts[1] == own:
                continue
            target = parts[1]
            if target not in LAYERS:
                yield f"{path.relative_to(PACKAGE.parent)}:{line}: vsim.{target} is in no layer"
            elif LAYERS.index(target) <= LAYERS.index(own):
                yield f"{path.relative_to(PACKAGE.parent)}:{line}: vsim.{own} imports vsim.{target}, above it"


def test_every_package_has_a_layer():
    packages = {_package(path) for path in PACKAGE.rglob("*.py")}
    assert packages <= set(LAYERS), sorted(packages - set(LAYERS))


def test_no_package_imports_one_above_it():
    assert list(_violations()) == []


@pytest.mark.parametrize("source, expected", [
    ("from vsim.cli import main\n", "imports vsim.cli, above it"),
    ("import vsim.experiments.reproduce\n", "imports vsim.experiments, above it"),
])
def test_an_upward_import_is_found(tmp_path, monkeypatch, source, expected):
    """The checker itself: a model module importing a command is reported."""
    fake = tmp_path / "vsim"
    (fake / "cpu").mkdir(parents=True)
    (fake / "cpu" / "bad.py").write_text(source)
    monkeypatch.setattr(__import__(__name__), "PACKAGE", fake)
    found = list(_violations())
    assert len(found) == 1 and expected in found[0]
