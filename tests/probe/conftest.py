"""Fixtures for the probe tests that build and tear down namespaces and cgroups.

Each fixture checks after the test that nothing it or the code under test
made is left behind.
"""

import os
import subprocess

import pytest

from probe_helpers import made_by
from vsim.probe import cgroups, netns
from vsim.probe.guard import Guard


@pytest.fixture
def veth_pair():
    """Two namespaces joined by a veth pair (this process's names), removed after the test."""
    with Guard(60) as guard:
        yield netns.create(guard, os.getpid())
    assert made_by(os.getpid()) == []


@pytest.fixture
def cpu_hierarchy():
    """The cgroup hierarchy with the cpu controller; skip if there is none."""
    hierarchy = cgroups.find_cpu_hierarchy()
    if hierarchy is None:
        pytest.skip("no cgroup hierarchy with the cpu controller")
    return hierarchy


@pytest.fixture
def dead_pid():
    """The pid of a process that has exited (names owned by it are leftovers)."""
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid
