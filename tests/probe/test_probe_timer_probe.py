"""Short runs of ``vsim probe timer``: well-formed traces with machine facts (idle, loaded, cyclictest)."""

import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from cli_run import vsim
from vsim.probe.load import BUSY_LOOP
from vsim.traces.vsim_trace import read_trace

FACTS = {"command", "kernel", "cpus_online", "steal_s_before", "steal_s_after", "loadavg_before",
         "loadavg_after", "lateness_summary"}


@pytest.mark.parametrize("load", ["none", "cpu"])
def test_a_short_run_writes_a_timer_trace(capsys, tmp_path, load):
    out = tmp_path / "timer.csv"
    code, stdout, err = vsim(capsys, "probe", "timer", "--period", "0.01", "--threads", "2",
                             "--duration", "0.5", "--load", load, "--out", str(out))
    assert code == 0, err
    trace = read_trace(out)
    assert trace.kind == "timer" and FACTS <= trace.meta.keys()
    assert trace.meta["command"].startswith("vsim probe timer --period 0.01 --threads 2")
    assert sorted(set(trace.columns["thread"])) == [0, 1]
    assert np.all(trace.columns["lateness_s"] >= 0)
    assert "wrote" in stdout
    assert busy_loop_children() == []


def busy_loop_children():
    """This process's children that run the probe's busy loop."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            parent = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
            command = (proc / "cmdline").read_bytes().decode(errors="replace")
        except (OSError, IndexError):
            continue
        if parent == os.getpid() and BUSY_LOOP in command:
            found.append(proc.name)
    return found


@pytest.mark.skipif(shutil.which("cyclictest") is None, reason="needs rt-tests' cyclictest")
def test_cyclictest_writes_the_same_kind_of_trace(capsys, tmp_path):
    out = tmp_path / "timer.csv"
    code, _, err = vsim(capsys, "probe", "timer", "--via", "cyclictest", "--duration", "1", "--out", str(out))
    assert code == 0, err
    trace = read_trace(out)
    assert trace.meta["via"] == "cyclictest" and trace.meta["tool_version"].startswith("cyclictest")
    assert len(trace) > 0 and np.all(trace.columns["lateness_s"] >= 0)
