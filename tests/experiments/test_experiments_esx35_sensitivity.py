"""The esx35-net fits can be repeated: fitting again from the committed models gives the
committed values, and the sensitivity table has a row per assumption and factor."""

import pytest

from vsim.build.load import load_scenario
from vsim.experiments import esx35_net, esx35_sensitivity as sens
from vsim.experiments.reproduce import REPO


@pytest.fixture(scope="module")
def study():
    relative = esx35_net.CONFIGS["vm2native"]
    return esx35_net.setup(relative, load_scenario(REPO / relative))


def _value(ends, client, name, field):
    layers = [getattr(end, part) for per in ends.values() for end in per.values()
              for part in ("guest", "nic", "device", "vswitch")] + [client.guest, client.nic]
    return next(getattr(layer, field) for layer in layers if layer is not None and layer.name == name)


def test_refitting_the_committed_models_gives_their_fitted_values(study):
    _, ends, client, framing, link, params = study
    fitted_ends, fitted_client = sens.refit(ends, client, framing, link, params)
    for _, _, targets, _, _ in sens.FITS:
        for name, field in targets:
            assert _value(fitted_ends, fitted_client, name, field) == pytest.approx(
                _value(ends, client, name, field), rel=2e-3), (name, field)


def test_perturbing_an_assumption_changes_only_its_layers(study):
    _, ends, client, *_ = study
    ends2, client2 = sens._set(ends, client, [("vswitch_esx35", "copy_per_byte")], factor=2.0)
    assert _value(ends2, client2, "vswitch_esx35", "copy_per_byte") == 2 * _value(ends, client, "vswitch_esx35",
                                                                                    "copy_per_byte")
    assert _value(ends2, client2, "linux64", "rx_per_packet") == _value(ends, client, "linux64", "rx_per_packet")
