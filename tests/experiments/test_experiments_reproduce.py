"""Tests of the reproduce machinery: every claim reported once, parallel = serial, claim arithmetic."""

import hashlib
import json
import math
from types import SimpleNamespace

import numpy as np
import pytest

from summaries import typed_summary
from vsim.core.errors import InputError
from vsim.experiments import voip_vsphere5
from vsim.config.claims import Claim, Simulated, load_claims
from vsim.experiments.comparison import LEGEND, markdown, summary_line
from vsim.experiments.ledger import DesignChoice
from vsim.experiments.reproduce import (REPO, STUDIES, StudyResult, check_recipe_study, claim_rows, claims_json,
                                        results_json, run_studies, recipe, select_studies,
                                        write_all_study_outputs, write_study_outputs)
from vsim.build.load import load_scenario
from vsim.outputs.atomic import output_set
from vsim.config.run_length import RunPlan
from vsim.sweep.executor import Point, Sweep, Task, run_tasks, sweep_tasks

TINY = RunPlan(duration=3.0, warmup=1.0, replications=2)
MODELLED = ("voip5.fig2", "voip5.fig3", "voip5.fig4", "voip5.fig6", "voip5.tab2")


@pytest.fixture(scope="module")
def claims():
    return load_claims()


@pytest.fixture(scope="module")
def serial(claims):
    results = run_studies(["voip-vsphere5"], TINY, jobs=1)
    return results, claim_rows(claims, results)


def test_every_claim_reported_exactly_once(claims, serial):
    doc = json.loads(claims_json(serial[1]))
    ids = [entry["id"] for entry in doc["claims"]]
    assert sorted(ids) == sorted(claim.id for claim in claims)
    assert len(ids) == len(set(ids))
    assert all(set(entry) == {"id", "value", "fitted", "kind", "scenario"} for entry in doc["claims"])


def test_modelled_claims_are_numbers_and_others_null(serial):
    entries = json.loads(claims_json(serial[1]))["claims"]
    for entry in entries:
        if entry["id"].startswith(MODELLED):
            assert isinstance(entry["value"], float) and math.isfinite(entry["value"]), entry
            assert entry["scenario"] in voip_vsphere5.CONFIGS.values()
        else:
            assert entry["value"] is None and entry["fitted"] is False, entry


def test_fitted_follows_the_models_provenance(serial):
    results, rows = serial
    fitted = {sweep.config: sweep.fitted for sweep in results[0].sweeps.values()}
    assert fitted[results[0].sweeps["fig3"].config], "the voip models name claims in fitted_to"
    assert "voip5.tab2.p99_jitter_ms.without_netioc" in fitted[results[0].sweeps["fig6"].config]
    assert "voip5.tab2.p99_jitter_ms.without_netioc" not in fitted[results[0].sweeps["fig3"].config]
    for row in rows:
        if row.value is not None:
            assert row.fitted == (row.claim.id in fitted[row.scenario])


def test_each_claim_has_one_honest_kind(serial):
    results, rows = serial
    fitted = {sweep.config: sweep.fitted for sweep in results[0].sweeps.values()}
    for row in rows:
        if row.claim.study in STUDIES and row.claim.study != "voip-vsphere5":
            assert row.kind == "not run" and row.value is None  # a modelled study left out of this run
            assert f"vsim reproduce {row.claim.study}" in row.note
        elif row.value is None:
            assert row.kind == "not modelled"
        elif row.claim.id in fitted[row.scenario]:
            assert row.kind == "fitted"
        elif row.claim.id in voip_vsphere5.BY_CONSTRUCTION:
            assert row.kind == "by construction"
            assert voip_vsphere5.BY_CONSTRUCTION[row.claim.id] in row.note
        else:
            assert row.kind == "predicted"
    kinds = {row.claim.id: row.kind for row in rows}
    assert kinds["voip5.fig3.bandwidth_mbps.inst12"] == "by construction"
    assert kinds["voip5.fig2.mean_jitter_ms.streams20"] == "fitted"  # timer_median
    assert kinds["voip5.fig3.p99_jitter_ms.inst12"] == "fitted"  # guest background bursts
    assert kinds["voip5.tab2.p99_jitter_ms.without_netioc"] == "fitted"  # the client's stalls
    assert kinds["voip5.tab2.p99_jitter_ms.with_netioc"] == "predicted"


def test_claims_a_design_choice_was_selected_on_are_marked(claims, serial):
    choice = DesignChoice("made-up choice", "x", ("y",), ("voip5.fig2.p99_jitter_ms.streams20",), "z")
    rows = {row.claim.id: row for row in claim_rows(claims, serial[0], [choice])}
    assert "made-up choice" in rows["voip5.fig2.p99_jitter_ms.streams20"].note
    assert "made-up choice" not in rows["voip5.fig2.mean_jitter_ms.streams20"].note
    default = {row.claim.id: row for row in serial[1]}
    assert "design choices selected on it" in default["voip5.fig3.mean_jitter_ms.inst12"].note


def test_summary_line_counts_modelled_claims_by_kind(serial):
    line = summary_line(serial[1])
    modelled = sum(row.kind not in ("not modelled", "not run") for row in serial[1])
    assert f" of {modelled} modelled claims in band (" in line
    not_run = sum(row.kind == "not run" for row in serial[1])
    assert not_run > 0 and "by construction" in line and line.endswith(
        f"{sum(row.kind == 'not modelled' for row in serial[1])} not modelled yet; {not_run} not run")
    voip_only = [row for row in serial[1] if row.claim.study == "voip-vsphere5"]
    assert summary_line(voip_only).endswith(" not modelled yet")


def test_parallel_matches_serial_byte_for_byte(serial):
    results, rows = serial
    parallel = run_studies(["voip-vsphere5"], TINY, jobs=2)
    assert claims_json(claim_rows(load_claims(), parallel)) == claims_json(rows)
    assert results_json(parallel[0]) == results_json(results[0])


def test_replications_share_seeds_across_points(serial):
    sweep = serial[0][0].sweeps["fig3"]
    assert all(point.seeds == (1, 2) for point in sweep.points)
    assert sweep.xs() == [1, 2, 4, 6, 8, 10, 12]


def test_outputs_written(tmp_path, serial):
    results, rows = serial
    outdir = tmp_path / "voip-vsphere5"
    outdir.mkdir()
    (outdir / "fig5.svg").write_text("a figure the study no longer draws")
    (outdir / "fig7.svg").write_text("a figure the study no longer draws, since edited")
    (outdir / "notes.md").write_text("the user's own file")
    digests = {"fig5.svg": hashlib.sha256(b"a figure the study no longer draws").hexdigest(),
               "fig7.svg": hashlib.sha256(b"a figure the study no longer draws").hexdigest()}
    (outdir / "results.json").write_text(json.dumps({"files": ["fig5.svg", "fig7.svg", "notes.md", "results.json"],
                                                     "sha256": digests}))
    written = write_study_outputs(tmp_path, results[0], rows)
    expected = {f"{stem}.{ext}" for stem in ("fig2", "fig3", "fig3_vms", "fig4", "fig6", "table2")
                for ext in ("png", "svg")}
    expected |= {"comparison.md", "comparison.csv", "results.json"}
    assert {p.name for p in outdir.iterdir()} == expected | {"notes.md", "fig7.svg"}
    assert expected == {p.name for p in written}
    manifest = json.loads((outdir / "results.json").read_text())
    assert set(manifest["files"]) == expected
    assert manifest["sha256"] == {name: hashlib.sha256((outdir / name).read_bytes()).hexdigest()
                                  for name in expected - {"results.json"}}
    table = (outdir / "comparison.md").read_text()
    assert LEGEND in table and " in band (" in table
    assert "Runs: fig2: 2 x 3 s (1 s warm-up) per point, seeds 1-2; fig3: 2 x 3 s" in table
    for stem in ("fig2", "fig3", "fig3_vms", "fig4"):
        svg = (outdir / f"{stem}.svg").read_text()
        assert "bootstrap" in svg and "seeds 1-2" in svg, stem
    assert table.count("| voip5.") == sum(row.claim.study == "voip-vsphere5" for row in rows)
    runs = json.loads((outdir / "results.json").read_text())["sweeps"]["fig2"]["points"]
    assert [len(point["runs"]) for point in runs] == [2] * 6


def test_studies_drawn_side_by_side_write_the_same_bytes_as_one_by_one(tmp_path, claims, serial):
    """Two studies drawn in two worker processes, handed back in memory and written here:
    the same files, byte for byte, as drawn in this process, and an earlier run's figure
    no study draws any more is removed either way."""
    results = serial[0] + run_studies(["esx35-net"], TINY, jobs=1)
    rows = claim_rows(claims, results)
    trees = {}
    for jobs in (1, 2):
        root = tmp_path / f"jobs{jobs}"
        stale = root / "esx35-net"
        stale.mkdir(parents=True)
        (stale / "old.svg").write_text("dropped")
        (stale / "results.json").write_text(json.dumps(
            {"files": ["old.svg"], "sha256": {"old.svg": hashlib.sha256(b"dropped").hexdigest()}}))
        with output_set():
            write_all_study_outputs(root, results, rows, jobs=jobs)
        trees[jobs] = {path.relative_to(root): path.read_bytes() for path in root.rglob("*") if path.is_file()}
    assert trees[1] == trees[2]
    assert not any(path.name == "old.svg" for path in trees[2])
    assert {path.parts[0] for path in trees[2]} == {"voip-vsphere5", "esx35-net"}


def test_every_vm_figure_gets_each_vm_of_each_replication(serial):
    point = serial[0][0].sweeps["fig3"].at(12)
    p99s = voip_vsphere5.every_vm_values(point, "jitter_p99_ms")
    assert len(p99s) == 12 * len(point.runs)
    measured = [run.jitter.p99_ms for run in point.runs]
    assert all(value in p99s for value in measured)


def test_study_selection(claims):
    assert select_studies([], claims)[0] == ["esx35-net", "netioc-vsphere6", "sip-jvm-gc", "voip-vsphere5",
                                             "xen-appliances"]
    # a study with claims but no recipe (made up here: every study of the claims file is modelled)
    pending = [*claims, Claim(id="made.up", study="made-up-study", figure="Fig 1", metric="m",
                              paper=1.0, band=[0.5, 1.5])]
    assert select_studies(["made-up-study", "voip-vsphere5"], pending) == (["voip-vsphere5"],
                                                                           ["made-up-study"])


def summary(mean=0.5, p99=1.0, loss=0.0, cpu=10.0, pps=72000.0, mbps=45.0):
    return {"jitter": {"mean_ms": mean, "p99_ms": p99},
            "voice": {"loss_fraction": loss, "packet_rate_pps": pps, "bandwidth_mbps": mbps},
            "host": {"cpu_util_pct": cpu}}


def flood_summary(lost_pps, mean, p99, offered_pps=6200.0):
    """A Fig 6 run's summary: voice loss and jitter while the flood runs."""
    return {"uplink": {"during_traffic": {"voice_loss_pps": lost_pps,
                                          "voice_loss_fraction": lost_pps / offered_pps,
                                          "jitter_mean_ms": mean, "jitter_p99_ms": p99}}}


def sweep(name, key, xs, runs_at):
    points = tuple(Point(x, (1, 2, 3), tuple(map(typed_summary, runs_at(x)))) for x in xs)
    return Sweep(name, f"configs/voip-vsphere5/{name}.toml", key, 3.0, 1.0, points, frozenset())


def test_claim_arithmetic_on_synthetic_points():
    instances = [1, 2, 4, 6, 8, 10, 12]
    p99 = {1: 1.0, 2: 1.1, 4: 1.3, 6: 1.5, 8: 1.9, 10: 2.0, 12: 2.2}
    mean = {1: 0.4, 2: 0.5, 4: 0.45, 6: 0.6, 8: 0.7, 10: 0.8, 12: 0.9}
    cpu = {1: 5.0, 2: 12.0, 4: 20.0, 6: 33.0, 8: 41.0, 10: 55.0, 12: 60.0}

    def fig3_runs(x):
        # Middle replication holds the point's value; the outliers are trimmed away.
        return [summary(mean[x] - 0.01, p99[x] - 0.2, cpu=cpu[x] - 1, pps=71000.0),
                summary(mean[x], p99[x], loss=0.02 if x == 6 else 0.0, cpu=cpu[x], pps=72000.0),
                summary(mean[x] + 5.0, p99[x] + 9.0, cpu=cpu[x] + 50, pps=90000.0)]

    def fig2_runs(x):
        return [summary(0.3, 0.9), summary(0.4, 1.0, loss=0.001 if x == 20 else 0.0), summary(0.6, 1.2)]

    def fig6_runs(x):
        lost = {"fifo": 520.0, "netioc": 0.0}[x]
        return [flood_summary(lost - 30, 0.50, 1.9), flood_summary(lost, 0.60, 2.0),
                flood_summary(lost + 400, 3.0, 9.0)]

    values = voip_vsphere5.claim_values({
        "fig2": sweep("fig2", "vm.streams_per_instance", [20, 120], fig2_runs),
        "fig3": sweep("fig3", "vm.instances", instances, fig3_runs),
        "fig6": sweep("fig6", "host.uplink", ["fifo", "netioc"], fig6_runs),
    })

    def value(claim_id):
        return values[claim_id].value

    early = np.polyfit([1, 2, 4], [p99[x] for x in (1, 2, 4)], 1)[0]
    late = np.polyfit([4, 6, 8], [p99[x] for x in (4, 6, 8)], 1)[0]
    assert value("voip5.fig3.p99_slope_ratio") == pytest.approx(late / early)
    assert value("voip5.fig3.p99_slope_ratio") == pytest.approx(1.5)
    # Ranks of the means are 1,3,2,4,5,6,7: one swap, sum d^2 = 2, rho = 1 - 6*2/(7*48).
    assert value("voip5.fig3.jitter_monotone") == pytest.approx(1 - 12 / 336)
    r = np.corrcoef(instances, [cpu[x] for x in instances])[0, 1]
    assert value("voip5.fig4.cpu_linearity_r2") == pytest.approx(r * r)
    assert value("voip5.fig3.loss_fraction.max") == 0.02
    assert value("voip5.fig2.loss_fraction.max") == 0.001
    assert value("voip5.fig3.p99_jitter_ms.inst12") == pytest.approx(2.2)
    assert value("voip5.fig3.packet_rate_pps.inst12") == 72000.0
    assert value("voip5.fig4.cpu_util_pct.inst12") == 60.0
    assert value("voip5.fig2.mean_jitter_ms.streams120") == pytest.approx(0.4)
    low, high = values["voip5.fig2.mean_jitter_ms.streams20"].ci
    assert low < np.mean([0.3, 0.4, 0.6]) < high
    assert values["voip5.fig3.p99_slope_ratio"].ci is None
    assert value("voip5.fig6.loss_pps.without_netioc") == 520.0
    assert value("voip5.fig6.loss_fraction.without_netioc") == pytest.approx(520.0 / 6200)
    assert value("voip5.fig6.loss_fraction.with_netioc") == 0.0
    assert value("voip5.tab2.mean_jitter_ms.without_netioc") == pytest.approx(0.60)
    assert value("voip5.tab2.p99_jitter_ms.with_netioc") == pytest.approx(2.0)


def test_slope_ratio_undefined_when_first_slope_is_flat():
    assert math.isnan(voip_vsphere5.slope_ratio([(1, 1.0), (2, 1.0), (4, 1.0)], [(4, 1.0), (8, 2.0)]))
    assert voip_vsphere5.slope_ratio([(0, 0.0), (1, 1.0)], [(1, 1.0), (3, 5.0)]) == pytest.approx(2.0)


def test_worker_input_error_reaches_the_parent_intact(tmp_path):
    missing = str(tmp_path / "missing.toml")
    task = Task(missing, (), "vm.instances", 1, 0, 1, 1, 2.0, 1.0)
    with pytest.raises(InputError, match="file not found") as caught:
        run_tasks([task], jobs=2)
    assert caught.value.source == missing


def test_progress_lines_name_task_and_count():
    config = REPO / voip_vsphere5.CONFIGS["fig3"]
    tasks = sweep_tasks(config, load_scenario(config), 1.0, 0.5, 2)[:3]
    lines = []
    summaries = run_tasks(tasks, jobs=1, progress=lines.append)
    assert len(summaries) == 3 and all(s.jitter.samples > 0 for s in summaries)
    assert [line.split("  ")[0] for line in lines] == [
        "[0/3] 3 runs, 1 at a time: a line as each ends", "[1/3] fig3 vm.instances=1 rep 1/2", "[2/3] fig3 vm.instances=1 rep 2/2",
        "[3/3] fig3 vm.instances=2 rep 1/2"]


def test_each_modelled_study_names_its_recipe():
    assert all(recipe(name).NAME == name for name in STUDIES)


@pytest.mark.parametrize("name", sorted(STUDIES))
def test_every_config_of_a_study_recipe_names_that_study(name):
    for relative in recipe(name).CONFIGS.values():
        loaded = load_scenario(REPO / relative)
        assert loaded.scenario.study == name, relative
        check_recipe_study(name, loaded)


@pytest.mark.parametrize("overrides, named", [(["study=esx35-net"], "'esx35-net'"), ([], "'voip-vsphere5'")])
def test_a_recipe_refuses_a_config_of_another_study(overrides, named):
    loaded = load_scenario(REPO / voip_vsphere5.CONFIGS["fig3"], overrides)
    with pytest.raises(InputError) as info:
        check_recipe_study("netioc-vsphere6", loaded)
    err = info.value
    assert (err.source, err.where) == (loaded.source, "study")
    assert '"netioc-vsphere6"' in err.expected and named in err.expected


def test_a_claim_value_the_runs_do_not_give_is_null_and_said_so():
    """A modelled claim whose runs are too short to give it (no whole second for a per-second
    minimum) is reported as null, not as a crash nor as 'not modelled'."""
    claim_id = "netioc6.exp1.min_vm_mbps"
    result = StudyResult("netioc-vsphere6", {"exp1": SimpleNamespace(fitted=set(), config="exp1.toml")},
                         {claim_id: Simulated(None, None, "exp1")})
    rows = claim_rows(load_claims(), [result])
    (row,) = [row for row in rows if row.claim.id == claim_id]
    assert row.value is None and row.kind == "predicted" and not row.in_band
    assert json.loads(claims_json(rows))
    line = next(line for line in markdown("t", rows).splitlines() if line.startswith(f"| {claim_id} "))
    assert "n/a (the runs do not give it)" in line


def test_replications_that_cannot_finish_are_refused_before_any_task_is_made(monkeypatch):
    """``vsim reproduce --replications 1000000000000`` made its tasks, and ran, first."""
    monkeypatch.setattr("vsim.experiments.reproduce.sweep_tasks",
                        lambda *args, **kwargs: pytest.fail("made the tasks before checking the work"))
    with pytest.raises(InputError) as error:
        run_studies(["voip-vsphere5"], RunPlan(replications=10 ** 12))
    assert error.value.where == "--replications"
    assert "--replications = 1e+12 (the command line)" in str(error.value)
