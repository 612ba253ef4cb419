"""Tests of the names probes give what they create."""

import os

from hypothesis import given, strategies as st

from vsim.probe import names

PIDS = st.integers(1, 4194304)  # up to the kernel's largest pid_max


@given(PIDS)
def test_every_name_encodes_its_owner(pid):
    for name in (*names.netns_names(pid), *names.veth_names(pid), names.cgroup_name(pid),
                 names.tmp_prefix(pid, "net") + "k2x9q"):
        assert names.owner(name) == pid


@given(PIDS)
def test_interface_names_fit_ifnamsiz(pid):
    assert all(len(name) <= 15 for name in names.veth_names(pid))


def test_other_names_have_no_owner():
    assert names.owner("eth0") is None
    assert names.owner("vsim-probe-x") is None


def test_a_running_owner_is_alive_and_an_exited_one_not(dead_pid):
    assert names.owner_alive(os.getpid())
    assert not names.owner_alive(dead_pid)
