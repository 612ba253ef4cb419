"""Build hook: compile the CPU scheduler's hot path to C with mypyc.

Scheduling decisions are where a contended host spends its simulation time,
so ``vsim/native.py``'s ``COMPILED`` modules (typed Python, unchanged) are
compiled into extension modules; the output of a run is the same to the byte
either way. Where no C compiler is found the extensions are skipped and the
package runs as Python; ``VSIM_PURE_PYTHON=1`` skips them on purpose. The
build records a hash of each compiled source, so an edited source is run as
Python until the package is rebuilt (see ``vsim/native.py``).
"""

import hashlib
import json
import os
from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).resolve().parent
COMPILED = ["vsim/cpu/world.py", "vsim/cpu/machine.py", "vsim/cpu/policies/proportional_share.py"]
RECORD = ROOT / "vsim" / "_compiled_sources.json"


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


setup(ext_modules=ext_modules())
