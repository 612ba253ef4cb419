"""The esx35-net recipe: every claim from the stack cost model, its kinds honest, its outputs
deterministic."""

import json

import pytest

from vsim.config.claims import load_claims
from vsim.experiments import esx35_net
from vsim.experiments.reproduce import claim_rows, claims_json, recipe, results_json, run_studies, write_study_outputs

FITTED = {"esx35.vm2native.linux64.recv_mbps", "esx35.vm2vm.win64.mbps",
          "esx35.vm2vm.win32.mbps", "esx35.rr.vm2vm.linux.tps", "esx35.rr.vm2vm.windows.tps"}
PREDICTED = {"esx35.vm2native.linux64.send_mbps", "esx35.vm2vm.linux.mbps", "esx35.rr.vm2vm_latency_reduction"}


@pytest.fixture(scope="module")
def reproduced():
    results = run_studies([esx35_net.NAME], jobs=1)
    return results, claim_rows(load_claims(), results)


def test_the_study_is_registered():
    assert recipe("esx35-net") is esx35_net


def test_every_claim_of_the_study_has_a_number(reproduced):
    rows = [row for row in reproduced[1] if row.claim.study == "esx35-net"]
    assert len(rows) == 8
    assert all(isinstance(row.value, float) for row in rows)


def test_kinds_follow_the_models_provenance(reproduced):
    kinds = {row.claim.id: row.kind for row in reproduced[1] if row.claim.study == "esx35-net"}
    assert {c for c, k in kinds.items() if k == "fitted"} == FITTED
    assert {c for c, k in kinds.items() if k == "predicted"} == PREDICTED


def test_vm_native_and_vm_vm_come_from_one_mechanism(reproduced):
    values = reproduced[0][0].sweeps["vm2native"].values
    for guest in esx35_net.GUESTS:
        # native has the hypervisor's layers taken out: never slower than the VM
        assert values[f"{guest}.native.send.mbps"] >= values[f"{guest}.vm2native.send.mbps"] - 1e-9
        assert values[f"{guest}.native.recv.mbps"] >= values[f"{guest}.vm2native.recv.mbps"] - 1e-9
        # no wire between two VMs on one vSwitch: past the 1 GbE goodput
        assert values[f"{guest}.vm2vm.mbps"] > values[f"{guest}.native.send.mbps"]
        assert values[f"{guest}.rr.vm2vm.rtt_us"] < values[f"{guest}.rr.vm2native.rtt_us"]


def test_what_ifs_move_the_way_their_mechanism_says(reproduced):
    sweeps = reproduced[0][0].sweeps
    for guest in esx35_net.GUESTS:
        base = sweeps["vm2native"].values[f"{guest}.vm2vm.mbps"]
        assert sweeps["tso_off"].values[f"{guest}.vm2vm.mbps"] <= base
        assert sweeps["jumbo_10gbe"].values[f"{guest}.vm2native.send.mbps"] > 941.5


def test_reruns_are_byte_identical_serial_or_parallel(reproduced, tmp_path):
    results, rows = reproduced
    again = run_studies([esx35_net.NAME], jobs=2)
    assert claims_json(claim_rows(load_claims(), again)) == claims_json(rows)
    assert results_json(again[0]) == results_json(results[0])


def test_outputs_written(tmp_path, reproduced):
    results, rows = reproduced
    written = write_study_outputs(tmp_path, results[0], rows)
    names = {p.name for p in written}
    for stem in ("fig4_7_vm2native", "fig8_9_vm2vm", "fig10_11_rr", "whatif"):
        assert {f"{stem}.png", f"{stem}.svg"} <= names
    assert {"comparison.md", "comparison.csv", "results.json"} <= names
    doc = json.loads((tmp_path / "esx35-net" / "results.json").read_text())
    assert set(doc["sweeps"]) == set(esx35_net.CONFIGS)


def test_a_bad_config_stops_the_study_with_one_line_and_exit_2(capsys, tmp_path, monkeypatch):
    from cli_run import one_line_error, vsim
    from vsim.experiments.reproduce import REPO
    text = (REPO / esx35_net.CONFIGS["vm2native"]).read_text().replace("mtu = 1500", "mtu = 9100")
    (tmp_path / "vm2native.toml").write_text(text)
    monkeypatch.setitem(esx35_net.CONFIGS, "vm2native", str(tmp_path / "vm2native.toml"))
    code, _, err = vsim(capsys, "reproduce", "esx35-net", "--json", str(tmp_path / "out.json"),
                        "--figures", str(tmp_path / "figures"))
    line = one_line_error(err)
    assert code == 2
    assert "group.netperf.traffic.params.mtu" in line and "68-9000" in line and "9100" in line
