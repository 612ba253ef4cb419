"""Tests of the machine facts and the root and tool checks."""

import pytest
from hypothesis import given, strategies as st

from vsim.core.errors import InputError
from vsim.probe import machine


@given(st.integers(0, 10**9))
def test_steal_is_the_eighth_field_of_the_cpu_line_in_seconds(ticks):
    text = f"cpu  1 2 3 4 5 6 7 {ticks} 0 0\ncpu0 1 2 3 4 5 6 7 99 0 0\n"
    assert machine.steal_seconds(text) == ticks / machine.USER_HZ


def test_steal_without_a_cpu_line_is_an_error():
    with pytest.raises(ValueError):
        machine.steal_seconds("intr 1 2 3\n")


def test_facts_name_the_kernel_cpus_steal_and_load():
    before = machine.facts_before("vsim probe timer")
    after = machine.facts_after(before, 1.0)
    assert before["command"] == "vsim probe timer"
    assert before["cpus_online"] >= 1
    assert len(before["loadavg_before"].split()) == 3
    assert float(after["steal_s_during"]) >= 0
    assert {"kernel", "steal_s_before"} <= before.keys()
    assert {"steal_s_after", "loadavg_after", "steal_pct_of_cpus"} <= after.keys()


def test_without_root_a_probe_refuses(monkeypatch):
    monkeypatch.setattr(machine.os, "geteuid", lambda: 1000)
    with pytest.raises(InputError, match="needs root"):
        machine.require_root("net")


def test_a_missing_tool_is_named(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(InputError, match="needs 'tcpdump' on PATH.*apt-get"):
        machine.require_tools("net", "tcpdump", hint="apt-get install tcpdump")
