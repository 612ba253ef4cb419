"""Tests of ``vsim probe cpu``: weight and quota lists, the per-VM summary, and (as root) a short run and
interrupted ones."""

import os
import signal
import warnings
from functools import partial
from pathlib import Path

import numpy as np
import pytest

from probe_helpers import made_by, needs_cpu_cgroup, needs_root
from cli_run import vsim
from processes import Vsim, wait_for
from vsim.core.errors import InputError
from vsim.probe import cgroups, cpu_probe
from vsim.probe.guard import Interrupted
from vsim.probe.names import cgroup_name
from vsim.probe.cpu_probe import check_ran, parse_quota, parse_weight, per_vm, vm_lines, vm_summary
from vsim.traces.vsim_trace import read_trace


def test_one_value_applies_to_every_vm_and_a_list_to_each():
    assert per_vm("200", 3, "--weight", parse_weight) == [200, 200, 200]
    assert per_vm("0.5,max", 2, "--quota", parse_quota) == [0.5, None]


@pytest.mark.parametrize("text", ["1,2", "0", "10001", "x"])
def test_bad_weights_are_input_errors(text):
    with pytest.raises(InputError, match="--weight"):
        per_vm(text, 3, "--weight", parse_weight)


def test_the_summary_counts_lateness_overruns_and_emission_spread():
    rows = np.array([[0.00, 0.001, 0.006], [0.02, 0.021, 0.026], [0.04, 0.045, 0.070]])
    lateness, overruns, jitter_ms = vm_summary(rows, 0.02)
    assert lateness.startswith("n=3 mean=2333.3us")
    assert overruns == 1  # only the last tick ends after the next is due
    assert jitter_ms == pytest.approx(1e3 * np.std([0.006, 0.006, 0.030]))


def test_a_vm_that_ran_no_tick_is_said_so_without_nan_or_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        summary, cpu_per_tick = vm_lines(np.zeros((0, 3)), 50, 0.0, 0.02)
    assert summary.startswith("no tick ran: all 50 were never begun") and cpu_per_tick == "none: no tick ran"


def test_a_run_in_which_no_vm_ran_a_tick_is_an_error():
    empty = np.zeros((0, 3))
    with pytest.raises(InputError, match="no VM ran a tick"):
        check_ran([("vm0", 0, empty), ("vm1", 0, empty)])
    check_ran([("vm0", 0, empty), ("vm1", 0, np.array([[0.0, 0.001, 0.002]]))])


@needs_root
@needs_cpu_cgroup
def test_a_short_run_writes_a_cpu_ticks_trace_and_removes_its_groups(capsys, tmp_path):
    out = tmp_path / "cpu.csv"
    code, stdout, err = vsim(capsys, "probe", "cpu", "--vms", "2", "--workers", "1", "--work-ms", "1",
                             "--weight", "100,200", "--quota", "max,0.5", "--parent-weight", "300",
                             "--duration", "0.4",
                             "--out", str(out))
    assert code == 0, err
    trace = read_trace(out)
    assert trace.kind == "cpu_ticks"
    assert sorted(set(trace.columns["vm"])) == ["vm0", "vm1"]
    c = trace.columns
    for vm in ("vm0", "vm1"):  # ticks from 0 on: the 20 of 0.4 s, fewer if the worker fell behind
        ticks = c["tick"][np.asarray(c["vm"]) == vm]
        assert 1 <= len(ticks) <= 20 and list(ticks) == list(range(len(ticks)))
    assert np.all(c["start_s"] >= c["scheduled_s"]) and np.all(c["end_s"] >= c["start_s"])
    assert {"calibration", "cgroup_interface", "cgroup_vm1", "summary_vm0", "steal_s_during",
            "cpu_ms_per_tick_vm1"} <= trace.meta.keys()
    parent = trace.meta["cgroup_parent"]
    assert "cpu.weight=300" in parent or "cpu.shares=3072" in parent
    assert made_by(os.getpid()) == []


@needs_root
@needs_cpu_cgroup
def test_a_group_that_cannot_be_removed_is_named_not_said_removed(capsys, tmp_path, monkeypatch):
    """Interrupted while its workers run, and vm0's rmdir failing with 'Device or resource busy':
    it said everything it set up was removed while vm0, vm1 and their parent were still there."""
    hierarchy = cgroups.find_cpu_hierarchy()
    parent = hierarchy.root / cgroup_name(os.getpid())
    real_rmdir, real_remove_tree = Path.rmdir, cgroups.remove_tree

    def busy_vm0(path):
        if path == parent / "vm0":
            raise OSError(16, "Device or resource busy")
        real_rmdir(path)

    def interrupted(*args):
        raise Interrupted(signal.SIGINT)

    monkeypatch.setattr(Path, "rmdir", busy_vm0)
    monkeypatch.setattr(cgroups, "remove_tree", partial(real_remove_tree, timeout_s=0.1))
    monkeypatch.setattr(cpu_probe, "_run_workers", interrupted)
    try:
        code, out, err = vsim(capsys, "probe", "cpu", "--vms", "2", "--duration", "1", "--out", tmp_path / "c.csv")
    finally:
        monkeypatch.undo()
        real_remove_tree(parent)
    assert code == 130 and out == ""
    _, warning, hint, last = err.splitlines()
    assert warning == (f"vsim: warning: could not remove cgroup {parent}: {parent / 'vm0'} and {parent} remain "
                       f"(Device or resource busy)")
    assert "`vsim probe cleanup` (or the next probe) removes it" in hint
    assert last == ("vsim: probe cpu interrupted by SIGINT; not everything it set up could be removed "
                    "(named above), no trace written")
    assert list(tmp_path.iterdir()) == []


@needs_root
@needs_cpu_cgroup
def test_sigterm_to_the_probe_alone_stops_it_and_its_workers_with_status_143(tmp_path):
    with Vsim("probe", "cpu", "--vms", "2", "--duration", "30", "--out", tmp_path / "c.csv") as probe:
        wait_for(lambda: len(probe.members(b"vsim.probe.cpu_worker")) == 2, what="both workers")
        probe.process.send_signal(signal.SIGTERM)
        code, out, err = probe.finish()
        probe.wait_gone()
    assert code == 143 and out == ""
    assert err.splitlines()[-1] == ("vsim: probe cpu interrupted by SIGTERM; everything it set up was removed, "
                                    "no trace written")
    assert made_by(probe.pid) == [] and list(tmp_path.iterdir()) == []
