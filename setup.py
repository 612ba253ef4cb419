"""Build hook: compile the simulation's hot path to C with mypyc.

Scheduling decisions, and after them a media server's ticks and its vNIC's
transmit path, are where a contended host spends its simulation time, so
``vsim/native.py``'s ``COMPILED`` modules (Python, unchanged) are compiled
into extension modules; the output of a run is the same to the byte
either way. Where no C compiler is found the extensions are skipped and the
package runs as Python; ``VSIM_PURE_PYTHON=1`` skips them on purpose. The
build records a hash of each compiled source, so an edited source is run as
Python until the package is rebuilt (see ``vsim/native.py``).

The component models (``models/``) and scenarios (``configs/``) stay at the
top of the repository; a built wheel gets a copy of both in ``vsim/_data/``,
so an installed copy finds them (``vsim/config/data_dirs.py``), together with
the measured inputs a scenario reads (``SCENARIO_INPUTS``: the steal trace of
``configs/validation/cpu_cgroups.toml``), at the same place relative to it.
"""

import hashlib
import importlib.util
import json
import os
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
SCENARIO_INPUTS = ("validation/steal",)  # measured files shipped scenarios name by relative path


def _native():
    """``vsim/native.py`` (standard library only), loaded without importing the package."""
    spec = importlib.util.spec_from_file_location("_vsim_native", ROOT / "vsim" / "native.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


NATIVE = _native()
COMPILED = [NATIVE.source_path(name).relative_to(ROOT).as_posix() for name in NATIVE.COMPILED]
RECORD = NATIVE.RECORD


def ext_modules():
    """The mypyc extensions, and the record of what they were built from."""
    if os.environ.get("VSIM_PURE_PYTHON"):
        RECORD.unlink(missing_ok=True)
        return []
    from mypyc.build import mypycify

    record = {path: hashlib.sha256((ROOT / path).read_bytes()).hexdigest() for path in COMPILED}
    RECORD.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    # the build environment has no simpy, which the compiled modules use only untyped
    extensions = mypycify(["--ignore-missing-imports", *COMPILED], opt_level="3")
    for extension in extensions:
        extension.optional = True  # without a C compiler the package installs as pure Python
    return extensions


class build_py_with_data(build_py):
    """The package, plus the repository's models/ and configs/ copied into vsim/_data/.

    An editable install reads the repository's own folders and gets no copy.
    """

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        for name in ("models", "configs", *SCENARIO_INPUTS):
            self.copy_tree(str(ROOT / name), str(Path(self.build_lib) / "vsim" / "_data" / name))


setup(ext_modules=ext_modules(), cmdclass={"build_py": build_py_with_data})
