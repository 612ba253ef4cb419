"""Load a script of the repository (``benchmarks/``, ``validation/``) as a module, so tests
can call its functions."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"


def load_script(relative, name):
    """The module of the script at ``relative`` (to the repository's root), freshly executed."""
    spec = importlib.util.spec_from_file_location(name, ROOT / relative)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_benchmark(name):
    """The module ``benchmarks/<name>.py``, freshly executed."""
    return load_script(f"benchmarks/{name}.py", name)
