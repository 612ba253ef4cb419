"""The ``vsim`` command's entry point: SIGINT and SIGTERM at any moment, from the first import on."""

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from processes import Vsim, caught_signals, wait_for

REPO = Path(__file__).resolve().parents[1]
FIG3 = REPO / "configs" / "voip-vsphere5" / "fig3.toml"
LINES = {signal.SIGINT: "vsim: interrupted", signal.SIGTERM: "vsim: interrupted by SIGTERM"}


@pytest.mark.parametrize("signum, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
@pytest.mark.parametrize("command", [["describe", "workloads/vmcd_g729"], ["probe", "steal", "--duration", "1"]],
                         ids=["describe", "probe"])
def test_a_signal_while_vsim_imports_is_one_line_and_the_signals_status(tmp_path, signum, status, command):
    """Sent as soon as vsim handles SIGTERM, before it has imported its commands (most of a
    second): not a traceback from the middle of an import, nor a silent death."""
    if "--duration" in command:
        command = command + ["--out", tmp_path / "steal.csv"]
    with Vsim(*command) as vsim:
        wait_for(lambda: signal.SIGTERM in caught_signals(vsim.pid) or vsim.process.poll() is not None,
                 timeout=10, what="vsim to handle SIGTERM")
        vsim.process.send_signal(signum)
        code, out, err = vsim.finish()
    assert (code, out, err) == (status, "", LINES[signum] + "\n")
    assert list(tmp_path.iterdir()) == []


def test_sigterm_while_outputs_are_written_leaves_no_temporary_file(tmp_path):
    """The outputs of a sweep (--out's files, --json) are written into temporary files and put in
    place together: a SIGTERM while they are being written leaves neither them nor a part of them."""
    out = tmp_path / "out"
    with Vsim("sweep", FIG3, "--set", "sweep.values=[1]", "--duration", "1", "--replications", "1",
              "--out", out, "--json", tmp_path / "r.json") as vsim:
        wait_for(lambda: out.is_dir() and any(path.name.startswith(".") for path in out.iterdir()),
                 what="a temporary output file")
        vsim.process.send_signal(signal.SIGTERM)
        code, _, err = vsim.finish()
    assert code == 143 and err.splitlines()[-1] == "vsim: interrupted by SIGTERM", err
    assert list(out.iterdir()) == [] and list(tmp_path.iterdir()) == [out]


SIGNAL_AT_IMPORT = '''
import atexit, os, signal, sys

WHEN = os.environ["VSIM_TEST_SIGINT"]


def send():
    # run from a string, as namedtuple's and dataclasses' generated methods are: CPython marks a
    # KeyboardInterrupt raised there as unhandled even when a caller catches it
    exec("os.kill(os.getpid(), signal.SIGINT)\\nfor _ in range(3): pass", {"os": os, "signal": signal})


class SentAsDropped:
    def __del__(self):  # a finalizer, whose exception Python prints as ignored and drops
        send()


class SignalAtImport:
    def find_spec(self, name, path=None, target=None):
        if name == WHEN.removesuffix(" in a finalizer"):
            sys.meta_path.remove(self)
            if WHEN.endswith(" in a finalizer"):
                SentAsDropped()
            else:
                send()
        return None


if WHEN == "exit":
    atexit.register(send)  # registered first, so run last, as the interpreter shuts down
else:
    sys.meta_path.insert(0, SignalAtImport())
'''


def _signals_as_a_terminal_has_them():
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _vsim_with_sigint(tmp_path, when, *args):
    """``python -m vsim ARGS`` with a SIGINT sent to itself when it first imports the module
    ``when`` (or as it exits, for ``"exit"``), from code run from a string; (status, stderr)."""
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(SIGNAL_AT_IMPORT)
    env = dict(os.environ, VSIM_TEST_SIGINT=when,
               PYTHONPATH=os.pathsep.join([str(hook), str(REPO), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-m", "vsim", *map(str, args)], env=env, cwd=REPO,
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
                          preexec_fn=_signals_as_a_terminal_has_them)
    return done.returncode, done.stderr


@pytest.mark.parametrize("when", ["vsim.core.interrupts", "vsim.cli", "vsim.cli in a finalizer"])
@pytest.mark.parametrize("command", [["describe", "workloads/vmcd_g729"], ["probe", "steal", "--duration", "1"]],
                         ids=["describe", "probe"])
def test_a_sigint_before_sigterm_is_handled_is_one_line_and_130(tmp_path, when, command):
    """A Ctrl-C from vsim's first line on, before vsim.core.interrupts is imported (a traceback
    from the middle of the import, before) or in string-made code of an import (status -2
    under ``python -m``, before, though vsim had said it was interrupted) or in a finalizer
    (printed as ignored, before, and the command ran to its end with status 0)."""
    if "--duration" in command:
        command = command + ["--out", tmp_path / "steal.csv"]
    assert _vsim_with_sigint(tmp_path, when, *command) == (130, LINES[signal.SIGINT] + "\n")
    assert [path.name for path in tmp_path.iterdir()] == ["hook"]


def test_a_sigint_once_the_command_is_done_leaves_its_status(tmp_path):
    """The command has written what it had to and returned 0: a Ctrl-C as the interpreter shuts
    down (a traceback from an exit hook, before) changes nothing."""
    assert _vsim_with_sigint(tmp_path, "exit", "--version") == (0, "")


def test_the_math_libraries_get_one_thread_unless_the_user_sized_them(monkeypatch):
    """Set before NumPy loads, inherited by --jobs workers; a size the user set is kept."""
    from vsim.__main__ import MATH_THREAD_VARIABLES, one_math_thread
    for name in MATH_THREAD_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MKL_NUM_THREADS", "4")
    one_math_thread()
    assert {name: os.environ[name] for name in MATH_THREAD_VARIABLES} == {
        "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "4"}
