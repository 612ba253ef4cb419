"""A VM's CPU settings: shares default to 1000 per vCPU, reservation and limit as set."""

from hypothesis import given, strategies as st

from vsim.config.cpu_settings import cpu_settings
from vsim.config.schema_sections import VmSection


@given(st.integers(1, 64))
def test_shares_default_to_1000_per_vcpu(vcpus):
    settings = cpu_settings(VmSection(vcpus=vcpus))
    assert settings["shares"] == 1000.0 * vcpus


@given(st.integers(1, 64), st.floats(1, 1e6), st.floats(0, 64), st.none() | st.floats(0.1, 64))
def test_set_values_are_kept(vcpus, shares, reservation, limit):
    vm = VmSection(vcpus=vcpus, shares=shares, reservation=reservation, limit=limit)
    assert cpu_settings(vm) == {"shares": shares, "reservation": reservation, "limit": limit}
