"""Tests (as root) of ``vsim probe cleanup``: leftovers of dead probes go, those of live ones stay."""

import os
import subprocess

from probe_helpers import made_by, needs_ip, needs_root
from cli_run import vsim
from vsim.probe import cgroups, netns
from vsim.probe.names import cgroup_name, netns_names, veth_names


def leave_behind(pid, hierarchy):
    """Make what a probe ``pid`` would make, as if it had died without cleaning up."""
    for name in netns_names(pid):
        netns.run(["ip", "netns", "add", name])
    sender, receiver = veth_names(pid)
    netns.run(["ip", "link", "add", sender, "type", "veth", "peer", "name", receiver])
    if hierarchy is not None:
        cgroups.create_group(hierarchy, cgroups.create_parent(hierarchy, cgroup_name(pid)), "vm0", {})


@needs_root
@needs_ip
def test_leftovers_of_a_dead_probe_are_removed(capsys, dead_pid):
    hierarchy = cgroups.find_cpu_hierarchy()
    leave_behind(dead_pid, hierarchy)
    assert len(made_by(dead_pid)) == 4 + (hierarchy is not None)  # two namespaces, two veth ends
    code, out, err = vsim(capsys, "probe", "cleanup")
    assert code == 0, err
    assert made_by(dead_pid) == []
    assert "removed" in out


@needs_root
@needs_ip
def test_those_of_a_running_probe_stay_unless_forced(capsys):
    live = subprocess.Popen(["sleep", "60"])
    try:
        leave_behind(live.pid, None)
        vsim(capsys, "probe", "cleanup")
        assert len(made_by(live.pid)) == 4
        code, _, err = vsim(capsys, "probe", "cleanup", "--force")
        assert code == 0, err
        assert made_by(live.pid) == []
    finally:
        live.kill()
        live.wait()
        for name in netns_names(live.pid):
            netns.delete_netns(name)
        netns.delete_link(veth_names(live.pid)[0])
    assert made_by(os.getpid()) == []
