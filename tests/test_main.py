"""The ``vsim`` command's entry point: SIGINT and SIGTERM at any moment, from the first import on."""

import signal
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
