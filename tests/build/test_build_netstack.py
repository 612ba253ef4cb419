"""Stack cost models checked against the paths that use them: one line naming the key."""

import shutil

import pytest

from vsim.build.load import load_scenario
from vsim.build.netstack import check_tso, layer, load_layer_model
from vsim.config.models import DEFAULT_MODELS_DIR
from vsim.core.errors import InputError
from vsim.experiments import esx35_net
from vsim.experiments.reproduce import REPO

VM2NATIVE = esx35_net.CONFIGS["vm2native"]


def _setup(overrides=()):
    return esx35_net.setup(VM2NATIVE, load_scenario(REPO / VM2NATIVE, list(overrides)))


def _one_line(error):
    text = str(error.value)
    assert "\n" not in text
    return text


def test_an_mtu_the_device_does_not_support_is_refused_naming_the_key():
    with pytest.raises(InputError) as error:
        _setup(["group.netperf.vnic=vnics/e1000_esx35", "group.netperf.traffic.params.mtu=9000"])
    assert error.value.where == "group.netperf.traffic.params.mtu"
    assert "netstacks/e1000_esx35" in _one_line(error) and "68-1500" in _one_line(error)


def test_an_mtu_above_vmxnet_jumbo_frames_is_refused():
    with pytest.raises(InputError) as error:
        _setup(["group.netperf.traffic.params.mtu=9001"])
    assert error.value.where == "group.netperf.traffic.params.mtu" and "68-9000" in _one_line(error)


def test_tso_on_a_device_without_it_is_refused():
    device = load_layer_model("netstacks/e1000_esx35", "device", "scenario.toml", "group.netperf.vnic")
    with pytest.raises(InputError) as error:
        check_tso(device, 45, "scenario.toml", "group.netperf.vnic")
    assert (error.value.source, error.value.where) == ("scenario.toml", "group.netperf.vnic")
    assert "no TCP segmentation offload" in _one_line(error)
    check_tso(device, 1, "scenario.toml", "group.netperf.vnic")  # no TSO asked: fine


def test_a_virtual_nic_without_a_device_model_is_refused():
    with pytest.raises(InputError) as error:
        _setup(["group.netperf.vnic=vnics/vmxnet3"])
    assert error.value.where == "group.netperf.vnic" and "vnics/vmxnet_esx35" in _one_line(error)


def test_a_guest_profile_without_a_cost_its_path_needs_is_refused_naming_the_parameter(tmp_path):
    folder = tmp_path / "netstacks"
    folder.mkdir()
    text = (DEFAULT_MODELS_DIR / "netstacks" / "linux64.toml").read_text()
    start = text.index("[params.rx_per_packet]")
    end = text.index("[params.", start + 1)
    (folder / "bad.toml").write_text(text[:start] + text[end:])
    with pytest.raises(InputError) as error:
        load_layer_model("netstacks/bad", "guest", "scenario.toml", "guest", models_dir=tmp_path)
    assert error.value.where == "params.rx_per_packet" and str(error.value.source).endswith("bad.toml")
    assert "missing" in _one_line(error)


def test_a_layer_of_another_kind_is_refused():
    with pytest.raises(InputError) as error:
        load_layer_model("netstacks/vswitch_esx35", "guest", "scenario.toml", "guest")
    assert error.value.where == "guest" and "a vswitch layer" in _one_line(error)


def test_cycles_become_seconds_at_the_clock():
    model = load_layer_model("netstacks/linux64", "guest", "s", "k")
    stack = layer(model, 2.0e9)
    assert stack.tx_per_packet == model.values.tx_per_packet / 2.0e9
    assert stack.window_bytes == model.values.window_bytes and stack.ack_every == model.values.ack_every


def test_a_host_without_a_clock_is_refused(tmp_path):
    shutil.copytree(DEFAULT_MODELS_DIR / "hosts", tmp_path / "hosts")
    from vsim.build.netstack import host_clock
    with pytest.raises(InputError) as error:
        host_clock("hosts/dell_r710_x5690", "s", "host.model", models_dir=tmp_path)
    assert error.value.where == "params.clock_hz"
