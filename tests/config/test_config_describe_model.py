"""Tests of the text ``vsim describe MODEL`` prints (the command itself is tested in tests/test_cli.py)."""

import dataclasses
import re

import pytest

from vsim.core.errors import InputError
from vsim.config.describe_model import MODEL_KINDS, describe_model, own_model_kind
from vsim.config.models import DEFAULT_MODELS_DIR

ROOT = DEFAULT_MODELS_DIR.parent
REFS = sorted(f"{kind}/{path.stem}" for kind in MODEL_KINDS for path in (DEFAULT_MODELS_DIR / kind).glob("*.toml"))


@pytest.mark.parametrize("ref", REFS)
def test_every_parameter_line_is_followed_by_its_provenance(ref):
    lines = describe_model(ref).splitlines()
    assert lines[0].startswith(f"{ref}  (") and lines[0].endswith(f"{ref}.toml)")
    fields = {field.name for field in dataclasses.fields(MODEL_KINDS[ref.split("/")[0]])}
    parameters = [i for i, line in enumerate(lines) if re.match(r"  \w+ = ", line)]
    assert parameters, ref
    for i in parameters:
        assert lines[i].split()[0] in fields
        assert lines[i + 1].startswith(("      source: ", "      fitted to: "))


def test_a_ref_outside_the_model_folders_names_them():
    with pytest.raises(InputError) as raised:
        describe_model("measurements/cyclictest_kvm_guest")
    assert "folder one of: hosts, schedulers, nics, vnics, codecs, workloads, clients" in str(raised.value)


def test_a_model_file_of_ones_own_outside_a_kinds_folder_is_described_by_its_parameters(tmp_path):
    own = tmp_path / "my_host.toml"
    own.write_text((ROOT / "models" / "hosts" / "dell_r710_x5690.toml").read_text())
    assert own_model_kind(own) == "hosts"
    text = describe_model(str(own), kind="hosts")
    assert text.startswith(f"{own}  ({own})") and "  ht_rate = 0.75" in text
    config = tmp_path / "scenario.toml"
    config.write_text((ROOT / "configs" / "voip-vsphere5" / "fig3.toml").read_text())
    assert own_model_kind(config) is None  # a config, not a model
    odd = tmp_path / "odd.toml"
    odd.write_text('[params.sockets]\nvalue = 2\nsource = "x"\n[params.stall_rate]\nvalue = 1.0\nsource = "y"\n')
    with pytest.raises(InputError) as caught:
        own_model_kind(odd)
    assert caught.value.where == "params.stall_rate"
    assert caught.value.expected.startswith("unknown parameter of a host model")
    assert "ht_rate" in caught.value.expected
