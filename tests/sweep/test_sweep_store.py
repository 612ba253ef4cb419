"""``vsim sweep --store DIR``: finished replications kept, read back instead of run, and the
outputs byte-identical to a run without the store; ``points.csv`` and ``runs.csv``."""

import csv
import os
import re
import signal
from pathlib import Path

import pytest

from cli_run import vsim
from processes import Vsim, wait_for
from vsim.sweep import executor

REPO = Path(__file__).resolve().parents[2]
CONFIG = str(REPO / "configs" / "voip-vsphere5" / "fig3.toml")
SHORT = ["--duration", "1", "--replications", "1", "--quiet"]
TWO = ["--set", "sweep.values=[1,2]"]


def counts(err):
    """(reused, run) from the store's line on stderr."""
    found = re.search(r"store .*: (\d+) replications? reused, (\d+) to run", err)
    assert found, err
    return int(found[1]), int(found[2])


def outputs(capsys, tmp_path, name, *args, store=None):
    """Run a sweep writing --json and --out under ``name``; (their bytes by file name, stderr)."""
    more = [] if store is None else ["--store", str(store)]
    code, _, err = vsim(capsys, "sweep", CONFIG, *args, "--json", str(tmp_path / f"{name}.json"),
                        "--out", str(tmp_path / name), *more)
    assert code == 0, err
    files = {path.name: path.read_bytes() for path in (tmp_path / name).iterdir()}
    files["json"] = (tmp_path / f"{name}.json").read_bytes()
    return files, err


def no_runs(monkeypatch):
    def refuse(task):
        raise AssertionError(f"ran {task.label()}")
    monkeypatch.setattr(executor, "run_task", refuse)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_rerun_from_the_store_runs_nothing_and_writes_the_same_bytes(capsys, tmp_path, monkeypatch, jobs):
    # 12 VMs: their per-VM entries (vm1, vm2, ..., vm10) must come back in their own order,
    # which sums over them are taken in, not sorted as text (vm1, vm10, ...)
    points = ["--set", "sweep.values=[1,12]"]
    plain, _ = outputs(capsys, tmp_path, "plain", *points, *SHORT, "--jobs", jobs)
    first, err = outputs(capsys, tmp_path, "first", *points, *SHORT, "--jobs", jobs, store=tmp_path / "store")
    assert counts(err) == (0, 2)
    assert len(list((tmp_path / "store").iterdir())) == 2
    no_runs(monkeypatch)
    again, err = outputs(capsys, tmp_path, "again", *points, *SHORT, store=tmp_path / "store")
    assert counts(err) == (2, 0)
    assert plain.keys() == first.keys() == again.keys()
    for name in plain:
        assert plain[name] == first[name] == again[name], name


def test_a_larger_sweep_reuses_the_smaller_ones_replications(capsys, tmp_path):
    outputs(capsys, tmp_path, "small", *TWO, *SHORT, store=tmp_path / "store")
    larger = ["--set", "sweep.values=[1,2,3]", "--duration", "1", "--replications", "2", "--quiet"]
    stored, err = outputs(capsys, tmp_path, "large", *larger, store=tmp_path / "store")
    assert counts(err) == (2, 4)
    plain, _ = outputs(capsys, tmp_path, "plain", *larger)
    assert stored == plain


def test_a_changed_model_parameter_is_run_again(capsys, tmp_path):
    outputs(capsys, tmp_path, "a", *TWO, *SHORT, store=tmp_path / "store")
    _, err = outputs(capsys, tmp_path, "b", *TWO, *SHORT, "--set", "params.host.ht_rate=0.5", store=tmp_path / "store")
    assert counts(err) == (0, 2)
    _, err = outputs(capsys, tmp_path, "c", *TWO, *SHORT, store=tmp_path / "store")
    assert counts(err) == (2, 0)


def test_an_edited_config_runs_only_what_it_changes(capsys, tmp_path):
    config = tmp_path / "fig3.toml"
    text = Path(CONFIG).read_text()
    config.write_text(text)
    base = ["sweep", str(config), *TWO, *SHORT, "--store", str(tmp_path / "store")]
    code, _, err = vsim(capsys, *base)
    assert code == 0 and counts(err) == (0, 2), err
    config.write_text(text.replace("streams_per_instance = 120", "streams_per_instance = 60"))
    code, _, err = vsim(capsys, *base)
    assert code == 0 and counts(err) == (0, 2), err
    config.write_text(text)
    code, _, err = vsim(capsys, *base)
    assert code == 0 and counts(err) == (2, 0), err


def test_a_damaged_store_file_is_ignored_with_a_note_and_run_again(capsys, tmp_path):
    outputs(capsys, tmp_path, "a", *TWO, *SHORT, store=tmp_path / "store")
    damaged = sorted((tmp_path / "store").iterdir())[0]
    damaged.write_text('{"format": 1, "key"')
    other = sorted((tmp_path / "store").iterdir())[1]
    other.write_text(other.read_text().replace('"format": 1', '"format": 99'))
    _, err = outputs(capsys, tmp_path, "b", *TWO, *SHORT, store=tmp_path / "store")
    assert counts(err) == (0, 2)
    assert err.count("vsim: note: ignoring") == 2
    _, err = outputs(capsys, tmp_path, "c", *TWO, *SHORT, store=tmp_path / "store")
    assert counts(err) == (2, 0) and "ignoring" not in err


def test_the_store_is_refused_inside_the_programs_folders(capsys):
    code, _, err = vsim(capsys, "sweep", CONFIG, *TWO, *SHORT, "--store", str(REPO / "models" / "store"))
    assert code == 2 and "--store" in err and "expected an output outside" in err


def test_a_sweep_killed_midway_keeps_its_finished_replications(capsys, tmp_path):
    store = tmp_path / "store"
    args = ["sweep", CONFIG, *TWO, "--duration", "1", "--replications", "4", "--store", store]
    with Vsim(*args, cwd=tmp_path) as run:
        wait_for(lambda: store.is_dir() and any(not p.name.startswith(".") for p in store.iterdir()),
                 what="a stored replication")
        os.kill(run.pid, signal.SIGKILL)
        run.finish()
    kept = [p for p in store.iterdir() if not p.name.startswith(".")]  # a temporary file may stay
    assert 1 <= len(kept) <= 8
    code, _, err = vsim(capsys, *map(str, args), "--quiet")
    assert code == 0, err
    reused, ran = counts(err)
    assert (reused, ran) == (len(kept), 8 - len(kept))


def test_points_and_runs_csv_have_a_row_per_point_and_per_replication(capsys, tmp_path):
    code, _, err = vsim(capsys, "sweep", CONFIG, *TWO, "--duration", "1", "--replications", "2", "--quiet",
                        "--out", str(tmp_path / "out"))
    assert code == 0, err
    with open(tmp_path / "out" / "points.csv", newline="") as f:
        points = list(csv.DictReader(f))
    with open(tmp_path / "out" / "runs.csv", newline="") as f:
        runs = list(csv.DictReader(f))
    assert [row["vm.instances"] for row in points] == ["1", "2"]
    assert [row["replications"] for row in points] == ["2", "2"]
    assert [(row["vm.instances"], row["seed"]) for row in runs] == [("1", "1"), ("1", "2"), ("2", "1"), ("2", "2")]
    for row in points:
        low, value, high = (float(row[f"host_cpu_pct{end}"]) for end in ("_low", "", "_high"))
        assert low <= value <= high
    assert set(runs[0]) == {"vm.instances", "seed"} | {name for name in points[0]
                                                      if not name.endswith(("_low", "_high"))} - {"replications"}


def test_an_edited_model_file_runs_its_replications_again(capsys, tmp_path):
    model = tmp_path / "workload.toml"
    text = (REPO / "models" / "workloads" / "vmcd_g729.toml").read_text()
    model.write_text(text)
    base = ["sweep", CONFIG, *TWO, *SHORT, "--set", f"vm.workload={model}", "--store", str(tmp_path / "store")]
    code, _, err = vsim(capsys, *base)
    assert code == 0 and counts(err) == (0, 2), err
    assert "value = 1.34e-4" in text
    model.write_text(text.replace("value = 1.34e-4", "value = 1.5e-4"))
    code, _, err = vsim(capsys, *base)
    assert code == 0 and counts(err) == (0, 2), err
    model.write_text(text + "\n")  # other bytes, the same parameters: its bytes are what counts
    code, _, err = vsim(capsys, *base)
    assert code == 0 and counts(err) == (0, 2), err


def test_capacity_reads_its_probes_back_from_the_store(capsys, tmp_path, monkeypatch):
    args = ["capacity", CONFIG, "--vary", "vm.instances", "--require", "host_cpu_pct<=20", "--high", "6",
            "--duration", "1", "--replications", "1", "--json", "-"]
    code, plain, err = vsim(capsys, *args, "--quiet")
    assert code == 0, err
    code, first, err = vsim(capsys, *args, "--store", tmp_path / "store")
    assert code == 0 and first == plain, err
    stored = len(list((tmp_path / "store").iterdir()))
    assert stored >= 2
    no_runs(monkeypatch)
    code, again, err = vsim(capsys, *args, "--store", tmp_path / "store")
    assert code == 0 and again == plain, err
    assert "0 to run" in err and "to run" in err and not re.search(r"[1-9]\d* to run", err)


def test_reproduce_reads_its_replications_back_from_the_store(capsys, tmp_path, monkeypatch):
    args = ["reproduce", "voip-vsphere5", "--duration", "1", "--replications", "1", "--quiet",
            "--store", tmp_path / "store"]
    code, _, err = vsim(capsys, *args, "--json", tmp_path / "a.json", "--figures", tmp_path / "a")
    assert code == 0, err
    reused, ran = counts(err)
    assert reused == 0 and ran == len(list((tmp_path / "store").iterdir()))
    no_runs(monkeypatch)
    code, _, err = vsim(capsys, *args, "--json", tmp_path / "b.json", "--figures", tmp_path / "b")
    assert code == 0 and counts(err) == (ran, 0), err
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    for path in (tmp_path / "a" / "voip-vsphere5").iterdir():
        assert path.read_bytes() == (tmp_path / "b" / "voip-vsphere5" / path.name).read_bytes(), path.name
