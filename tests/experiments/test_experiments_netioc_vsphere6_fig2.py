"""netioc-vsphere6 Fig 2 across both hosts: the cluster's claims, their kinds and the figure."""

import json
from pathlib import Path

import pytest

from vsim.cluster.replications import cluster_length, run_cluster_sweep
from vsim.config.claims import in_band, load_claims
from vsim.config.run_length import QUICK, RunPlan
from vsim.config.schema_cluster import ClusterRunSection
from vsim.core.errors import InputError
from vsim.experiments import netioc_vsphere6_fig2 as fig2
from vsim.experiments.reproduce import StudyResult, claim_rows
from vsim.sweep.executor import LocalProcesses

ROOT = Path(__file__).resolve().parents[2]
CLAIMS = {claim.id: claim for claim in load_claims()}


@pytest.fixture(scope="module")
def sweep():
    return run_cluster_sweep(fig2.CLUSTER, fig2.CONFIG, ROOT, "netioc-vsphere6")


def test_after_each_migration_the_hosts_share_out_their_uplinks_as_the_closed_form_says(sweep):
    """Reservations first, the rest by equal shares, in the bytes NetIOC counts (a 45-frame TSO
    segment's data and one header), as on one host (test_experiments_netioc_vsphere6.py)."""
    counted = 1448 + 66 / 45
    goodput = 1448 / counted
    capacity = 10 * counted / 1538
    values = fig2.fig2_claims(sweep)
    b = values["netioc6.fig2.b.after_migration_gbps"].value
    c = values["netioc6.fig2.c.after_migration_gbps"].value
    assert b == pytest.approx([(7.5 + (capacity - 7.5) / 2) * goodput, capacity * goodput,
                               (capacity - 7.5) / 2 * goodput])
    assert c == pytest.approx([capacity * goodput, (4.5 + (capacity - 7.5) / 2) * goodput,
                               (3.0 + (capacity - 7.5) / 2) * goodput])
    for claim_id, value in values.items():
        assert in_band(value.value, CLAIMS[claim_id].band), (claim_id, value)


def test_the_delay_is_drs_s_wait_and_the_vmotion_and_its_note_says_how_often_it_exceeds_the_period(sweep):
    delay = fig2.fig2_claims(sweep)[fig2.DELAY]
    low, high = delay.ci
    assert low <= delay.value <= high
    assert len(sweep.runs) == 10 and len({run.first_pass for run in sweep.runs}) == 10
    every = [d for run in sweep.runs for _, d in run.fault_delays()]
    assert f"over all {len(every)} faults" in delay.note and f"{sum(d <= 300 for d in every)} within 300 s" in delay.note
    assert max(every) < 300 + 60  # at most a whole period and a vMotion


def test_the_claims_are_predicted_and_marked_with_the_design_choices_selected_on_them(sweep):
    result = StudyResult("netioc-vsphere6", {fig2.CLUSTER: sweep}, fig2.fig2_claims(sweep))
    rows = {row.claim.id: row for row in claim_rows(list(CLAIMS.values()), [result])}
    for claim_id in (*fig2.STEPS, fig2.DELAY):
        assert rows[claim_id].kind == "predicted" and rows[claim_id].scenario == fig2.CONFIG
        assert "design choices selected on it" in rows[claim_id].note
    assert not sweep.fitted & {*fig2.STEPS, fig2.DELAY}


def test_a_quick_plan_keeps_the_time_series_whole_and_an_explicit_one_sets_it():
    run = ClusterRunSection(duration=1200.0, replications=10)
    assert cluster_length(QUICK, run) == (1200.0, 3)
    assert cluster_length(RunPlan(duration=20.0, replications=2), run) == (20.0, 2)
    assert cluster_length(RunPlan(), run) == (1200.0, 10)


def test_a_cluster_file_of_another_study_is_refused(tmp_path):
    (tmp_path / "c.toml").write_text((ROOT / fig2.CONFIG).read_text().replace(
        'study = "netioc-vsphere6"', 'study = "voip-vsphere5"'))
    with pytest.raises(InputError) as error:
        run_cluster_sweep("c", "c.toml", tmp_path, "netioc-vsphere6")
    assert error.value.where == "study" and "voip-vsphere5" in error.value.expected


def test_the_figure_is_written(tmp_path, sweep):
    written = fig2.fig2_cluster_figure(tmp_path / "fig2_cluster", sweep, list(CLAIMS.values()))
    assert [path.name for path in written] == ["fig2_cluster.png", "fig2_cluster.svg"]
    assert "after each migration (steps b, c)" in (tmp_path / "fig2_cluster.svg").read_text()


def test_replications_on_worker_processes_are_those_run_here(sweep):
    """A replication is a task of plain values (the file, the seed, the length): run on two
    worker processes, the sweep is byte for byte the serial one."""
    parallel = run_cluster_sweep(fig2.CLUSTER, fig2.CONFIG, ROOT, "netioc-vsphere6", RunPlan(replications=4),
                                 executor=LocalProcesses(2))
    serial = run_cluster_sweep(fig2.CLUSTER, fig2.CONFIG, ROOT, "netioc-vsphere6", RunPlan(replications=4))
    assert json.dumps(parallel.to_json()) == json.dumps(serial.to_json())
    assert [run.seed for run in parallel.runs] == [1, 2, 3, 4]
    assert json.dumps(serial.runs[1].to_json()) == json.dumps(sweep.runs[1].to_json())
