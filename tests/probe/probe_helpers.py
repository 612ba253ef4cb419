"""Helpers shared by the probe tests: root and tool markers, and what a probe left behind.

Tests that create kernel objects need root; without it they are skipped
with that reason (CI runs them as root).
"""

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from vsim.probe import cgroups, netns
from vsim.probe.names import CGROUP_PREFIX, NETNS_PREFIX, TMP_PREFIX, VETH_PREFIX, owner

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root: creates namespaces, qdiscs or cgroups")
needs_ip = pytest.mark.skipif(shutil.which("ip") is None or shutil.which("tc") is None,
                              reason="needs iproute2 (ip, tc)")
needs_cpu_cgroup = pytest.mark.skipif(cgroups.find_cpu_hierarchy() is None,
                                      reason="needs a cgroup hierarchy with the cpu controller")
needs_tcpdump = pytest.mark.skipif(shutil.which("tcpdump") is None, reason="needs tcpdump")


def made_by(pid):
    """Namespaces, root-namespace links, cgroups and temporary directories whose names say probe ``pid``
    made them."""
    found = [name for name in netns.list_netns() if name.startswith(NETNS_PREFIX) and owner(name) == pid]
    found += [name for name in netns.list_links() if name.startswith(VETH_PREFIX) and owner(name) == pid]
    hierarchy = cgroups.find_cpu_hierarchy()
    if hierarchy is not None:
        found += [path.name for path in hierarchy.root.iterdir()
                  if path.name.startswith(CGROUP_PREFIX) and owner(path.name) == pid]
    found += [path.name for path in Path(tempfile.gettempdir()).iterdir()
              if path.name.startswith(TMP_PREFIX) and owner(path.name) == pid]
    return found


def one_line_error(err):
    """The single 'vsim: error: ...' line of ``err`` (fails if there is anything else)."""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("vsim: error: ")
    return lines[0]
