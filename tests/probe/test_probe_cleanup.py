"""Tests (as root) of ``vsim probe cleanup``: leftovers of dead probes go, those of live ones stay."""

import os
import signal
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from probe_helpers import made_by, needs_cpu_cgroup, needs_ip, needs_root, needs_tcpdump
from cli_run import vsim
from probe_run import vsim_child
from vsim.probe import cgroups, netns
from vsim.probe.names import TMP_PREFIX, cgroup_name, netns_names, owner, tmp_prefix, veth_names


def leave_behind(pid, hierarchy):
    """Make what a probe ``pid`` would make, as if it had died without cleaning up."""
    for name in netns_names(pid):
        netns.run(["ip", "netns", "add", name])
    sender, receiver = veth_names(pid)
    netns.run(["ip", "link", "add", sender, "type", "veth", "peer", "name", receiver])
    (Path(tempfile.mkdtemp(prefix=tmp_prefix(pid, "net"))) / "capture.pcap").write_bytes(b"")
    if hierarchy is not None:
        cgroups.create_group(hierarchy, cgroups.create_parent(hierarchy, cgroup_name(pid)), "vm0", {})


@needs_root
@needs_ip
def test_leftovers_of_a_dead_probe_are_removed(capsys, dead_pid):
    hierarchy = cgroups.find_cpu_hierarchy()
    leave_behind(dead_pid, hierarchy)
    assert len(made_by(dead_pid)) == 5 + (hierarchy is not None)  # two namespaces, two veth ends, a directory
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
        assert len(made_by(live.pid)) == 5
        code, _, err = vsim(capsys, "probe", "cleanup", "--force")
        assert code == 0, err
        assert made_by(live.pid) == []
    finally:
        live.kill()
        live.wait()
        for name in netns_names(live.pid):
            netns.delete_netns(name)
        netns.delete_link(veth_names(live.pid)[0])
        for path in Path(tempfile.gettempdir()).glob(f"{TMP_PREFIX}{live.pid}-*"):
            shutil.rmtree(path)
    assert made_by(os.getpid()) == []


@needs_root
@needs_ip
@pytest.mark.parametrize("probe", [pytest.param(["cpu", "--vms", "1"], marks=needs_cpu_cgroup),
                                   pytest.param(["net"], marks=needs_tcpdump)])
def test_the_temporary_directory_of_a_killed_probe_is_removed(capsys, tmp_path, probe):
    temporary = Path(tempfile.gettempdir())
    before = set(temporary.glob(f"{TMP_PREFIX}*"))
    child = vsim_child("probe", *probe, "--duration", "30", "--out", str(tmp_path / "t.csv"))
    deadline = time.monotonic() + 20
    while len(made_by(child.pid)) < 2 and time.monotonic() < deadline:  # its directory and a cgroup or netns
        time.sleep(0.05)
    os.killpg(child.pid, signal.SIGKILL)  # the probe and everything it started, with no chance to clean up
    child.communicate(timeout=10)
    left = {path for path in set(temporary.glob(f"{TMP_PREFIX}*")) - before
            if owner(path.name) in (child.pid, None)}  # not those of other probes running meanwhile
    assert left, "the probe never made its temporary directory"
    code, out, err = vsim(capsys, "probe", "cleanup")
    assert code == 0, err
    assert not any(path.exists() for path in left)
    assert made_by(child.pid) == []


@needs_root
@needs_ip
@needs_tcpdump
@needs_cpu_cgroup
def test_the_next_probe_removes_what_a_killed_probe_left(capsys, tmp_path):
    """A net probe killed outright leaves its two namespaces and its temporary directory (and a veth
    end, when it dies setting them up): the next probe, of any kind, removes them and says so."""
    killed = vsim_child("probe", "net", "--duration", "30", "--out", str(tmp_path / "n.csv"))
    deadline = time.monotonic() + 20
    while len(made_by(killed.pid)) < 3 and time.monotonic() < deadline:  # two namespaces and a directory
        time.sleep(0.05)
    os.killpg(killed.pid, signal.SIGKILL)
    killed.communicate(timeout=10)
    left = made_by(killed.pid)
    assert len(left) >= 3, left
    code, _, err = vsim(capsys, "probe", "cpu", "--vms", "1", "--duration", "0.2", "--out", tmp_path / "c.csv")
    assert code == 0, err
    assert made_by(killed.pid) == []
    removed = next(line for line in err.splitlines() if "removed what probes killed earlier left: " in line)
    assert all(name in removed for name in left)
