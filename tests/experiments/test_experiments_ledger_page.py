"""The calibration ledger page is read from the model files, the design choices and the claims' kinds."""

import json
import shutil

import pytest

from vsim.config.models import DEFAULT_MODELS_DIR
from vsim.experiments.ledger import load_design_choices
from vsim.experiments.ledger_page import calibration_ledger, load_all_models, provenance_kind

CLAIMS = [{"id": "voip5.fig4.cpu_util_pct.inst12", "value": 89.7, "fitted": True, "kind": "fitted", "scenario": "x"},
          {"id": "voip5.fig3.jitter_monotone", "value": 0.96, "fitted": False, "kind": "predicted", "scenario": "x"},
          {"id": "xen.some.claim", "value": None, "fitted": False, "kind": "not modelled", "scenario": None}]


@pytest.fixture
def claims_json(tmp_path):
    path = tmp_path / "claims.json"
    path.write_text(json.dumps({"claims": CLAIMS}))
    return path


@pytest.mark.parametrize("origin, kind", [
    (["voip5.fig4.cpu_linearity_r2"], "fitted"),
    (["measured.timer_idle.python"], "fitted (measured trace)"),
    ("assumption: per-tick cost of a worker's wakeup", "assumption"),
    ("voip-vsphere5, Table 1", "sourced"),
])
def test_provenance_kind(origin, kind):
    assert provenance_kind(origin) == kind


def test_every_parameter_and_choice_has_its_row(claims_json):
    page = calibration_ledger(claims_json)
    for model in load_all_models():
        assert f"### {model.ref}" in page
        for name in model.provenance:
            assert f"| `{name}` |" in page, (model.ref, name)
    for choice in load_design_choices():
        assert f"| {choice.name} |" in page, choice.name
    assert "| `workloads/vmcd_g729` | `frame_cost` | `0.000134` s | `voip5.fig4.cpu_util_pct.inst12` |" in page


def test_claims_come_with_their_kind_fitted_parameters_and_choices(claims_json):
    page = calibration_ledger(claims_json)
    assert "| `voip5.fig4.cpu_util_pct.inst12` | fitted | `workloads/vmcd_g729.frame_cost` | no cache refill" in page
    assert "| `voip5.fig3.jitter_monotone` | predicted |  |  |" in page
    assert "`xen.some.claim`" not in page and "1 further claims are not modelled yet (ids starting `xen.`)" in page


def test_an_edited_model_file_changes_the_page(tmp_path, claims_json):
    models = tmp_path / "models"
    shutil.copytree(DEFAULT_MODELS_DIR, models)
    host = models / "hosts" / "dell_r710_x5690.toml"
    host.write_text(host.read_text().replace("value = 0.75", "value = 0.8"))
    page = calibration_ledger(claims_json, models)
    assert page != calibration_ledger(claims_json)
    assert "| `hosts/dell_r710_x5690` | `ht_rate` | `0.8` |" in page
