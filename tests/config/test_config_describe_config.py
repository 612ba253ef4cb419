"""Tests of the text ``vsim describe CONFIG`` prints."""

import tomllib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vsim.build.load import load_scenario
from vsim.config.describe_config import describe_config, toml_text

ROOT = Path(__file__).resolve().parents[2]
EXP1 = ROOT / "configs" / "netioc-vsphere6" / "exp1.toml"
FIG3 = ROOT / "configs" / "voip-vsphere5" / "fig3.toml"


def blocks(text):
    """{heading: [lines under it]} in order, a heading repeated for each table of an array."""
    found = []
    for line in text.splitlines():
        if line.startswith("["):
            found.append((line.split("    #")[0], []))
        elif found and line.strip():
            found[-1][1].append(line.strip())
    return found


def test_each_group_and_tree_node_is_a_block_of_its_own_keys():
    found = blocks(describe_config(load_scenario(EXP1)))
    groups = [lines for heading, lines in found if heading == "[[group]]"]
    nodes = [lines for heading, lines in found if heading == "[[netioc.node]]"]
    assert [lines[0].split("    #")[0] for lines in groups] == ['name = "netperf"', 'name = "nfs"',
                                                                  'name = "vmotion"']
    assert [lines[0].split("    #")[0] for lines in nodes] == [
        'name = "vm"', 'name = "vms"', 'name = "netperf_ports"', 'name = "nfs"', 'name = "vmotion"']
    netperf = {line.split(" = ")[0]: line for line in groups[0]}
    assert netperf["count"].startswith("count = 12    # an integer >= 1; set in file; VMs in the group")
    assert netperf["traffic.active_from"].startswith("traffic.active_from = 0.0    # a number >= 0 and <= 1; "
                                                     "default 0.0; fraction of the run")
    assert 'traffic.kind = "tcp_stream"' in netperf["traffic.kind"]
    ports = {line.split(" = ")[0]: line for line in nodes[2]}
    assert ports["members"].startswith('members = ["netperf"]    # a list of strings; set in file')
    assert ports["reservation_mbps"].startswith("reservation_mbps = 4800.0    # a number >= 0 (Mb/s)")


def test_no_python_reprs_and_the_arrays_are_not_under_params():
    text = describe_config(load_scenario(EXP1))
    assert "Section(" not in text and "(name=" not in text
    params = dict(blocks(text))["[params]"]
    assert [line.split(" = ")[0] for line in params] == ["params"]
    assert "\n[netioc]\n" not in text  # it holds nothing but its array of nodes


def test_an_empty_array_lists_the_keys_each_of_its_tables_takes():
    found = dict(blocks(describe_config(load_scenario(FIG3))))
    keys = [line.split("    #")[0] for line in found["[[group]]"]]
    assert keys[:3] == ["name", "count", "vcpus"] and "traffic.kind" in keys and "traffic" not in keys
    assert any(line.startswith("count    # an integer >= 1; default 1; VMs in the group")
               for line in found["[[group]]"])
    assert [line.split("    #")[0] for line in found["[[netioc.node]]"]][:3] == ["name", "kind", "parent"]


def test_a_group_without_traffic_shows_the_table_unset_not_its_keys(tmp_path):
    text = EXP1.read_text().replace('[[group]]\nname = "netperf"\ncount = 12\nvcpus = 1\n[group.traffic]\n'
                                    'kind = "tcp_stream"',
                                    '[[group]]\nname = "netperf"\ncount = 12\nvcpus = 1\n'
                                    'workload = "media_server"\nstreams = 10')
    path = tmp_path / "exp1.toml"
    path.write_text(text)
    netperf = [lines for heading, lines in blocks(describe_config(load_scenario(path))) if heading == "[[group]]"][0]
    keys = [line.split(" = ")[0] for line in netperf]
    assert "traffic" in keys and not any(key.startswith("traffic.") for key in keys)


VALUES = st.recursive(
    st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(min_size=1, max_size=5), inner,
                                                                max_size=3),
    max_leaves=8)


@given(VALUES)
def test_a_value_is_written_as_toml_reads_it(value):
    assert tomllib.loads(f"v = {toml_text(value)}")["v"] == value


@pytest.mark.parametrize("value, text", [(None, "(unset)"), ((1, 2), "[1, 2]"),
                                         ({"pps": 5.0, "ip_bytes": 264}, "{ pps = 5.0, ip_bytes = 264 }")])
def test_values_in_the_description(value, text):
    assert toml_text(value) == text
