"""Tests of the tc bottleneck's command lines, and (as root) that tc accepts each shape on a veth."""

import pytest

from vsim.probe import netns
from vsim.probe.qdisc import FLOOD_CLASS, SHAPES, Bottleneck, max_burst_bytes, tc_commands

from probe_helpers import needs_ip, needs_root


def bottleneck(shape, limit=50):
    return Bottleneck(shape, 2e6, limit, 5000, 50000, 1e6, 2e6, 5e5, 1e6)


@pytest.mark.parametrize("shape", ["pfifo", "bfifo"])
def test_a_fifo_sits_under_a_token_bucket(shape):
    root, child = tc_commands("dev0", bottleneck(shape, 77))
    assert root[root.index("root") + 3] == "tbf" and "2000000bit" in root
    assert child[-3:] == [shape, "limit", "77"] and "parent" in child


def test_tbf_has_rate_burst_and_limit():
    command, = tc_commands("dev0", bottleneck("tbf", 64000))
    assert command[-6:] == ["rate", "2000000bit", "burst", "5000", "limit", "64000"]


def test_htb_sends_the_flood_port_to_the_flood_class():
    commands = tc_commands("dev0", bottleneck("htb"))
    flood_filter = commands[-1]
    assert flood_filter[flood_filter.index("dport") + 1] == "50000"
    assert flood_filter[-1] == FLOOD_CLASS
    flood_class = next(c for c in commands if FLOOD_CLASS in c and "class" in c)
    assert flood_class[-6:-2] == ["rate", "500000bit", "ceil", "1000000bit"]


def test_htb_shared_puts_voice_and_flood_in_one_class_and_one_pfifo():
    commands = tc_commands("dev0", bottleneck("htb_shared", 100))
    assert not any("filter" in c for c in commands)
    leaf = [c for c in commands if "class" in c and "1:10" in c]
    assert len(leaf) == 1 and leaf[0][-6:-2] == ["rate", "2000000bit", "ceil", "2000000bit"]
    assert commands[-1][-3:] == ["pfifo", "limit", "100"] and "1:10" in commands[-1]


def test_an_unknown_shape_is_refused():
    with pytest.raises(ValueError):
        tc_commands("dev0", bottleneck("red"))


@needs_root
@needs_ip
@pytest.mark.parametrize("shape", SHAPES)
def test_tc_installs_every_shape(veth_pair, shape):
    for command in tc_commands(veth_pair.sender_if, bottleneck(shape)):
        netns.run(command, veth_pair.sender_ns)
    shown = netns.run(["tc", "qdisc", "show", "dev", veth_pair.sender_if], veth_pair.sender_ns)
    assert ("htb" if shape.startswith("htb") else "tbf") in shown
    if shape in ("pfifo", "bfifo"):
        assert shape in shown
    if shape == "htb_shared":
        assert "pfifo" in shown


def test_htbs_buckets_fill_at_the_root_and_class_rates():
    assert bottleneck("htb").bucket_rates_bps() == (2e6, 1e6, 5e5)
    assert bottleneck("tbf").bucket_rates_bps() == (2e6,)


@needs_root
@needs_ip
def test_the_largest_burst_is_the_largest_tc_keeps(veth_pair):
    """One byte more and tc wraps the bucket's size around without a word."""
    most = max_burst_bytes(8000)
    shown = []
    for burst in (most, most + 1):
        slow = Bottleneck("tbf", 8000, 64000, burst, 50000)
        command, = tc_commands(veth_pair.sender_if, slow)
        netns.run(command, veth_pair.sender_ns)
        shown.append(netns.run(["tc", "qdisc", "show", "dev", veth_pair.sender_if], veth_pair.sender_ns))
        netns.run(["tc", "qdisc", "del", "dev", veth_pair.sender_if, "root"], veth_pair.sender_ns)
    assert f"burst {most}b" in shown[0]
    assert f"burst {most + 1}b" not in shown[1]
