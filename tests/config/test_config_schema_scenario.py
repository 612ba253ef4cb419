"""The Scenario: the measured VM's own settings, the VM groups, and the uplink trees' members."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vsim.core.errors import InputError
from vsim.config.schema_scenario import Scenario
from vsim.config.typed import from_dict

SERVER = {"workload": "media_server", "streams": 10}


def scenario(data):
    return from_dict(Scenario, {"name": "t", **data}, source="t.toml")


@given(st.one_of(st.none(), st.floats(1, 1e5)), st.one_of(st.none(), st.floats(0, 2)))
def test_only_the_measured_vm_takes_its_own_settings(shares, reservation):
    own = {k: v for k, v in (("shares", shares), ("reservation", reservation)) if v is not None}
    s = scenario({"vm": {"vcpus": 4, "shares": 500.0}, "measured_vm": own})
    measured, other = s.vm_settings(0), s.vm_settings(1)
    assert other == s.vm
    assert measured.shares == (500.0 if shares is None else shares)
    assert measured.reservation == (0.0 if reservation is None else reservation)
    assert (measured.vcpus, measured.limit) == (4, None)


def test_group_names_start_with_vm():
    s = scenario({"group": [{"name": "a", **SERVER}, {"name": "b", **SERVER}]})
    assert s.group_names() == ["vm", "a", "b"]


def uplink_problem(data):
    try:
        scenario(data).check_uplink("t.toml")
    except InputError as error:
        return error.where
    return None


@pytest.mark.parametrize("key", ["netioc", "htb"])
@pytest.mark.parametrize("members, uplink, where", [
    (["vm", "a"], None, None),  # the tree is there but unused
    (["vm", "nobody"], None, "node[0].members"),  # members are VM groups, used or not
    (["vm", "a"], "same", None),
    (["vm"], "same", "node"),  # group a has no leaf
    (None, "same", "node"),  # no tree at all
])
def test_the_uplink_tree_places_every_vm_group(key, members, uplink, where):
    data = {"group": [{"name": "a", **SERVER}]}
    if members is not None:
        data[key] = {"node": [{"name": "leaf", "members": members}]}
    if uplink is not None:
        data["host"] = {"uplink": key}
    assert uplink_problem(data) == (None if where is None else f"{key}.{where}")
