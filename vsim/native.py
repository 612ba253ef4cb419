"""Whether the compiled scheduler is in use, and a guard against a stale one.

``setup.py`` compiles the modules in ``COMPILED`` with mypyc and writes
``_compiled_sources.json``, the SHA-256 of each source it compiled. Python
prefers an extension module to a source file of the same name, so after an
edit to one of those sources (an editable install keeps the extensions next
to them) the old compiled code would run silently. ``install_guard`` puts a
finder in front of the import system that loads the sources instead when any
of them differs from what was compiled, or when ``VSIM_PURE_PYTHON`` is set.
It is all or none: the compiled modules check the types of each other's
objects, so a compiled machine cannot drive an interpreted world.
"""

import importlib.util
from importlib.machinery import EXTENSION_SUFFIXES
import os
import sys
import warnings
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
COMPILED = ("vsim.core.timed_heap", "vsim.core.clock", "vsim.cpu.world", "vsim.cpu.socket_clock",
            "vsim.cpu.machine", "vsim.cpu.policies.calls", "vsim.cpu.policies.proportional_share",
            "vsim.cpu.policies.fair_queue", "vsim.cpu.policies.linux_cfs",
            "vsim.cpu.policies.linux_eevdf", "vsim.cpu.policies.xen_credit",
            "vsim.net.vnic_tx", "vsim.net.uniform_fifo", "vsim.net.fluid.burst",
            "vsim.net.fluid.in_system",
            "vsim.core.timers", "vsim.guest.timer", "vsim.guest.media_server",
            "vsim.guest.driver_domain", "vsim.guest.smp_ipi", "vsim.guest.sip_server",
            "vsim.net.frame_recorder", "vsim.guest.measuring_client",
            "vsim.metrics.first_order", "vsim.net.sources.sipp_uac", "vsim.guest.sip_service")
RECORD = PACKAGE_DIR / "_compiled_sources.json"


def source_path(module, package_dir=PACKAGE_DIR):
    """The ``.py`` file of one of the ``COMPILED`` modules."""
    return Path(package_dir).parent.joinpath(*module.split(".")).with_suffix(".py")


def stale_sources(record_path=RECORD, package_dir=PACKAGE_DIR):
    """Sources whose hash differs from the build record (all of them if there is none)."""
    import hashlib  # here, not at the top: only a build with extensions is checked, and every
    import json  # command, ``vsim --version`` too, imports this module
    try:
        record = json.loads(Path(record_path).read_text())
    except (OSError, ValueError):
        return list(COMPILED)
    stale = []
    for module in COMPILED:
        relative = "/".join(module.split(".")) + ".py"
        try:
            digest = hashlib.sha256(source_path(module, package_dir).read_bytes()).hexdigest()
        except OSError:
            digest = None
        if record.get(relative) != digest:
            stale.append(module)
    return stale


def extensions_present(package_dir=PACKAGE_DIR):
    """Whether any of ``COMPILED`` has an extension module beside its source."""
    for module in COMPILED:
        source = source_path(module, package_dir)
        if any(source.with_suffix(suffix).exists() for suffix in EXTENSION_SUFFIXES):
            return True
    return False


class _SourceFinder:
    """Finds the ``COMPILED`` modules as source files (a meta path finder: ``find_spec`` is all
    the import system asks of one; ``importlib.abc`` would cost every command ``importlib.resources``)."""

    def find_spec(self, name, path=None, target=None):
        if name not in COMPILED:
            return None
        return importlib.util.spec_from_file_location(name, source_path(name))


def install_guard():
    """Run the sources instead of the extensions when asked to or when they are stale.

    Returns how the scheduler runs: ``"compiled"``, ``"python"`` (nothing was
    compiled), ``"python (VSIM_PURE_PYTHON)"`` or ``"python (stale build)"``.
    Called once, by ``vsim/__init__.py``.
    """
    if os.environ.get("VSIM_PURE_PYTHON"):
        sys.meta_path.insert(0, _SourceFinder())
        return "python (VSIM_PURE_PYTHON)"
    if not extensions_present():
        return "python"
    if stale_sources():
        sys.meta_path.insert(0, _SourceFinder())
        warnings.warn("vsim: the compiled scheduler is older than its sources; running them "
                      "as Python (reinstall the package to compile them again)", stacklevel=3)
        return "python (stale build)"
    return "compiled"
