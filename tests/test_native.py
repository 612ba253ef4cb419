"""The compiled scheduler: the guard against stale builds, and byte-identical output."""

import ast
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import vsim
from vsim import native


def _package(tmp_path, record=True):
    """A copy of the compiled modules' sources under ``tmp_path/vsim`` and its build record."""
    package = tmp_path / "vsim"
    digests = {}
    for module in native.COMPILED:
        relative = "/".join(module.split(".")) + ".py"
        target = tmp_path / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        text = f"# {module}\n".encode()
        target.write_bytes(text)
        digests[relative] = hashlib.sha256(text).hexdigest()
    if record:
        (package / "_compiled_sources.json").write_text(json.dumps(digests))
    return package


def test_sources_as_compiled_are_not_stale(tmp_path):
    package = _package(tmp_path)
    assert native.stale_sources(package / "_compiled_sources.json", package) == []


def test_an_edited_source_is_stale(tmp_path):
    package = _package(tmp_path)
    (package / "cpu" / "machine.py").write_text("# edited\n")
    assert native.stale_sources(package / "_compiled_sources.json", package) == ["vsim.cpu.machine"]


def test_without_a_record_every_source_is_stale(tmp_path):
    package = _package(tmp_path, record=False)
    assert native.stale_sources(package / "_compiled_sources.json", package) == list(native.COMPILED)


def test_extensions_are_found_beside_their_sources(tmp_path):
    package = _package(tmp_path)
    assert not native.extensions_present(package)
    (package / "cpu" / "world.cpython-311-x86_64-linux-gnu.so").write_bytes(b"")
    assert native.extensions_present(package) == any(
        suffix == ".cpython-311-x86_64-linux-gnu.so" for suffix in native.EXTENSION_SUFFIXES)


def _vsim(*args, pure):
    env = {k: v for k, v in os.environ.items() if k != "VSIM_PURE_PYTHON"}
    if pure:
        env["VSIM_PURE_PYTHON"] = "1"
    return subprocess.run([sys.executable, "-m", "vsim", *args], env=env, check=True,
                          capture_output=True, text=True).stdout


def test_pure_python_mode_loads_the_sources():
    out = _vsim("--version", pure=True)
    assert "scheduler: python (VSIM_PURE_PYTHON)" in out
    code = "import vsim.cpu.machine as m, vsim.cpu.world as w; print(m.__file__, w.__file__)"
    env = dict(os.environ, VSIM_PURE_PYTHON="1")
    files = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                           capture_output=True, text=True).stdout.split()
    assert all(f.endswith(".py") for f in files), files


@pytest.mark.skipif(vsim.SCHEDULER_BUILD != "compiled",
                    reason=f"the scheduler is not compiled here ({vsim.SCHEDULER_BUILD})")
@pytest.mark.parametrize("scheduler, extra", [
    ("esx5_proportional_share", ()),
    ("linux_cfs", ("--set", "vm.limit=0.6")),  # cgroups throttled and released: tasks leave and rejoin
    ("linux_eevdf", ()),
    ("xen_credit", ("--set", "vm.limit=2.0")),  # capped domains parked and unparked
])
def test_compiled_and_python_schedulers_give_the_same_bytes(scheduler, extra):
    args = ("run", "configs/voip-vsphere5/fig3.toml", "--set", "vm.instances=12",
            "--set", f'host.scheduler="schedulers/{scheduler}"', *extra,
            "--duration", "4", "--seed", "5", "--json", "-")
    compiled, pure = _vsim(*args, pure=False), _vsim(*args, pure=True)
    assert json.loads(compiled)["summary"]["jitter"]["samples"] > 0
    assert compiled == pure


@pytest.mark.skipif(vsim.SCHEDULER_BUILD != "compiled",
                    reason=f"the scheduler is not compiled here ({vsim.SCHEDULER_BUILD})")
@pytest.mark.parametrize("config", [
    "configs/validation/net_bursty.toml",  # a media server emitting stream by stream, through htb
    "configs/voip-vsphere5/fig6.toml",  # vNICs beside a flood on the shared uplink
])
def test_compiled_and_python_network_paths_give_the_same_bytes(config):
    args = ("run", config, "--duration", "2", "--seed", "3", "--json", "-")
    compiled, pure = _vsim(*args, pure=False), _vsim(*args, pure=True)
    assert json.loads(compiled)["summary"]["jitter"]["samples"] > 0
    assert compiled == pure


def test_setup_compiles_exactly_the_modules_the_guard_knows():
    setup_py = Path(__file__).resolve().parents[1] / "setup.py"
    tree = ast.parse(setup_py.read_text())
    # everything but the closing setup(...) call, which would build
    tree.body = [node for node in tree.body if not (
        isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
        and getattr(node.value.func, "id", None) == "setup")]
    namespace = {"__file__": str(setup_py)}
    exec(compile(tree, str(setup_py), "exec"), namespace)
    paths = namespace["COMPILED"]
    assert [p[:-3].replace("/", ".") for p in paths] == list(native.COMPILED)


@pytest.mark.skipif(vsim.SCHEDULER_BUILD != "compiled",
                    reason=f"the scheduler is not compiled here ({vsim.SCHEDULER_BUILD})")
def test_compiled_and_python_give_the_same_bytes_for_a_xen_appliance_beside_dom0():
    """Xen's credit scheduler, Dom0 forwarding every message and the guest's IPIs on a host with
    socket contention (each socket's clock), two vCPUs a VM past cfg 4's knee."""
    args = ("run", "configs/xen-appliances/cfg4.toml", "--set", "group.asterisk.traffic.params.rate=150",
            "--duration", "4", "--seed", "2", "--json", "-")
    compiled, pure = _vsim(*args, pure=False), _vsim(*args, pure=True)
    assert json.loads(compiled)["summary"]["sip"]["asterisk[0]"]["calls_attempted_per_s"] > 0
    assert compiled == pure
