"""Tests of finding the cpu controller, of the weight and quota files, and (as root) of a group's life."""

import os
import subprocess
import sys
from functools import partial
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from vsim.probe import cgroups
from vsim.probe.guard import Guard
from vsim.probe.names import cgroup_name

from probe_helpers import needs_root

HYBRID = """\
tmpfs /sys/fs/cgroup tmpfs rw 0 0
cgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0
cgroup /sys/fs/cgroup/cpuacct cgroup rw,relatime,cpuacct 0 0
cgroup2 /sys/fs/cgroup/unified cgroup2 rw 0 0
"""
UNIFIED = "cgroup2 /sys/fs/cgroup cgroup2 rw,nsdelegate 0 0\n"


def test_v2_is_used_when_it_has_the_cpu_controller():
    found = cgroups.find_cpu_hierarchy(UNIFIED, lambda root: ["cpuset", "cpu", "io"])
    assert found == cgroups.Hierarchy(2, Path("/sys/fs/cgroup"))


def test_a_hybrid_machine_falls_back_to_the_v1_cpu_hierarchy():
    found = cgroups.find_cpu_hierarchy(HYBRID, lambda root: ["hugetlb"])
    assert found == cgroups.Hierarchy(1, Path("/sys/fs/cgroup/cpu"))


def test_no_cpu_controller_means_none():
    assert cgroups.find_cpu_hierarchy("cgroup2 /x cgroup2 rw 0 0\n", lambda root: ["memory"]) is None


@given(st.integers(1, 10000))
def test_shares_are_proportional_to_weight(weight):
    assert cgroups.shares_of_weight(weight) == max(2, round(weight * 1024 / 100))


def test_the_default_weight_is_the_default_shares():
    assert cgroups.shares_of_weight(100) == 1024


def test_settings_for_each_version():
    assert cgroups.settings(2, 300, 0.5, 100000) == {"cpu.weight": "300", "cpu.max": "50000 100000"}
    assert cgroups.settings(2, 100, None, 20000) == {"cpu.weight": "100", "cpu.max": "max 20000"}
    assert cgroups.settings(1, 200, None, 100000) == {"cpu.shares": "2048", "cpu.cfs_period_us": "100000",
                                                      "cpu.cfs_quota_us": "-1"}


@needs_root
def test_a_group_takes_a_process_and_is_removed_with_it(cpu_hierarchy):
    with Guard(30) as guard:
        parent = cgroups.create_parent(cpu_hierarchy, cgroup_name(os.getpid()))
        guard.on_exit("remove", cgroups.remove_tree, parent)
        files = cgroups.settings(cpu_hierarchy.version, 200, 0.5, 100000)
        group = cgroups.create_group(cpu_hierarchy, parent, "vm0", files)
        for file, value in files.items():
            assert (group / file).read_text().split() == value.split()
        child = guard.start([sys.executable, "-c", "import time; time.sleep(60)"],
                            before_exec=partial(cgroups.join, group), stdin=subprocess.DEVNULL)
        assert (group / "cgroup.procs").read_text().split() == [str(child.pid)]
    assert not parent.exists()


@needs_root
def test_remove_tree_kills_what_is_left_inside(cpu_hierarchy, dead_pid):
    parent = cgroups.create_parent(cpu_hierarchy, cgroup_name(dead_pid))
    group = cgroups.create_group(cpu_hierarchy, parent, "vm0", {})
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                             preexec_fn=partial(cgroups.join, group))
    cgroups.remove_tree(parent)
    assert child.wait(10) == -9
    assert not parent.exists()


def test_on_v2_the_cpu_controller_is_enabled_down_to_the_vms(tmp_path):
    hierarchy = cgroups.Hierarchy(2, tmp_path)  # a stand-in directory: the files the kernel would get
    parent = cgroups.create_parent(hierarchy, "vsim-probe-1", {"cpu.weight": "1000"})
    group = cgroups.create_group(hierarchy, parent, "vm0", cgroups.settings(2, 300, 0.5, 100000))
    assert (tmp_path / "cgroup.subtree_control").read_text() == "+cpu"
    assert (parent / "cgroup.subtree_control").read_text() == "+cpu"
    assert (parent / "cpu.weight").read_text() == "1000"
    assert (group / "cpu.max").read_text() == "50000 100000"


@needs_root
def test_remove_tree_kills_a_process_that_joins_while_it_removes(cpu_hierarchy, dead_pid, monkeypatch):
    """A child the probe was starting as it was interrupted joins its group after the group was
    first found empty: its rmdir then failed with 'Device or resource busy' until it gave up."""
    parent = cgroups.create_parent(cpu_hierarchy, cgroup_name(dead_pid))
    group = cgroups.create_group(cpu_hierarchy, parent, "vm0", {})
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                             preexec_fn=partial(cgroups.join, group))
    real_pids, calls = cgroups._pids, []

    def joined_after_the_first_look(path):
        calls.append(path)
        return [] if len(calls) == 1 else real_pids(path)

    monkeypatch.setattr(cgroups, "_pids", joined_after_the_first_look)
    try:
        cgroups.remove_tree(parent, timeout_s=2.0)
    finally:
        monkeypatch.undo()
        cgroups.remove_tree(parent)
    assert child.wait(10) == -9


@needs_root
def test_remove_tree_names_exactly_the_groups_it_could_not_remove(cpu_hierarchy, dead_pid, monkeypatch):
    parent = cgroups.create_parent(cpu_hierarchy, cgroup_name(dead_pid))
    busy, free = (cgroups.create_group(cpu_hierarchy, parent, name, {}) for name in ("vm0", "vm1"))
    real_rmdir = Path.rmdir

    def busy_vm0(path):
        if path == busy:
            raise OSError(16, "Device or resource busy")
        real_rmdir(path)

    monkeypatch.setattr(Path, "rmdir", busy_vm0)
    try:
        with pytest.raises(RuntimeError) as caught:
            cgroups.remove_tree(parent, timeout_s=0.1)
    finally:
        monkeypatch.undo()
        cgroups.remove_tree(parent)
    assert str(caught.value) == f"{busy} and {parent} remain (Device or resource busy)"
    assert not free.exists()
