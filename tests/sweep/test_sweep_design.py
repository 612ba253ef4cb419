"""Designs of several keys against their definitions, and a sweep of two keys run whole."""

import math
import subprocess
import sys
from pathlib import Path

import pandas
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vsim.config.schema_sweep import SweepSection
from vsim.config.sweep_design import Axis, design_points
from vsim.config.typed import from_dict
from vsim.config.vary import vary_table
from vsim.core.errors import InputError
from vsim.sweep import open_store, run_sweep

ROOT = Path(__file__).resolve().parents[2]

value_lists = st.lists(st.integers(0, 50), min_size=1, max_size=5, unique=True)


@given(st.lists(value_lists, min_size=1, max_size=3))
def test_a_grid_is_every_combination_once_first_axis_outermost(lists):
    axes = [Axis(f"k{i}", tuple(values)) for i, values in enumerate(lists)]
    points = design_points(axes, "grid")
    assert len(points) == math.prod(len(values) for values in lists)
    assert len(set(points)) == len(points)
    assert [point[0] for point in points][::len(points) // len(lists[0])] == lists[0]


@given(value_lists, st.integers(1, 4))
def test_a_zip_takes_the_values_side_by_side(values, width):
    axes = [Axis(f"k{i}", tuple(v + i for v in values)) for i in range(width)]
    assert design_points(axes, "zip") == [tuple(v + i for i in range(width)) for v in values]


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 40), st.integers(1, 4), st.integers(0, 2 ** 32 - 1))
def test_a_latin_hypercube_has_one_point_per_stratum_per_axis(n, dims, seed):
    axes = [Axis(f"k{i}", low=float(i), high=float(i + 2)) for i in range(dims)]
    points = design_points(axes, "lhs", n, seed)
    assert len(points) == n
    for i, axis in enumerate(axes):
        strata = sorted(int((point[i] - axis.low) / (axis.high - axis.low) * n) for point in points)
        assert strata == list(range(n))


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["random", "lhs", "sobol"]), st.integers(1, 64), st.integers(0, 10 ** 6))
def test_a_sample_lies_in_its_ranges_and_repeats_from_its_seed(design, n, seed):
    axes = [Axis("x", low=0.5, high=2.5), Axis("n", low=1, high=16, integer=True),
            Axis("ht", (True, False))]
    points = design_points(axes, design, n, seed)
    assert points == design_points(axes, design, n, seed)
    assert 1 <= len(points) <= n and len(set(points)) == len(points)
    for x, count, ht in points:
        assert 0.5 <= x <= 2.5 and isinstance(count, int) and 1 <= count <= 16 and ht in (True, False)


@pytest.mark.parametrize("table, where", [
    ({"axis": [{"key": "vm.instances", "values": [1]}, {"key": "vm.instances", "values": [2]}]},
     "sweep.axis[1].key"),
    ({"axis": [{"key": "vm.instances", "low": 1, "high": 8}]}, "sweep.axis[0].values"),
    ({"axis": [{"key": "vm.instances", "low": 1, "high": 8}], "design": "lhs"}, "sweep.points"),
    ({"axis": [{"key": "vm.instances", "values": [1, 2]}, {"key": "host.hyperthreading", "values": [True]}],
      "design": "zip"}, "sweep.axis[1].values"),
    ({"axis": [{"key": "host.hyperthreading", "low": 0, "high": 1}], "design": "sobol", "points": 4},
     "sweep.axis[0].low"),
    ({"axis": [{"key": "vm.instances", "low": 1.5, "high": 8}], "design": "lhs", "points": 4},
     "sweep.axis[0].low"),
    ({"axis": [{"key": "vm.instancs", "values": [1]}]}, "sweep.axis[0].key"),
])
def test_a_bad_design_is_refused_at_its_key(table, where):
    with pytest.raises(InputError) as error:
        from_dict(SweepSection, table, source="s.toml", path="sweep")
    assert error.value.where == where


def test_vary_gives_the_axes_in_order_with_values_or_ranges():
    table = vary_table(["host.hyperthreading=true,false", "vm.instances=1:16"], "lhs", 8, 3)
    assert table == {"axis": [{"key": "host.hyperthreading", "values": [True, False]},
                              {"key": "vm.instances", "low": 1, "high": 16}],
                     "design": "lhs", "points": 8, "design_seed": 3}
    with pytest.raises(InputError) as error:
        vary_table(["vm.instances"])
    assert "expected KEY=V1,V2" in str(error.value)


def sweep(tmp_path, name, *extra):
    out = tmp_path / name
    done = subprocess.run([sys.executable, "-m", "vsim", "sweep", "configs/whatif/hyperthreading.toml",
                           "--vary", "host.hyperthreading=true,false", "--vary", "vm.instances=1,2",
                           "--duration", "1.5", "--replications", "2", "--quiet", "--out", str(out), *extra],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return out, done


def test_a_two_key_grid_is_the_same_serial_and_in_two_processes(tmp_path):
    serial, done = sweep(tmp_path, "serial")
    parallel, _ = sweep(tmp_path, "parallel", "--jobs", "2")
    for name in ("points.csv", "runs.csv", "summary.md", "points.parquet", "runs.parquet"):
        assert (serial / name).read_bytes() == (parallel / name).read_bytes()
    runs = pandas.read_parquet(serial / "runs.parquet")
    assert list(runs.columns[:3]) == ["host.hyperthreading", "vm.instances", "seed"] and len(runs) == 8
    assert runs["host.hyperthreading"].dtype == bool and runs["vm.instances"].tolist() == [1, 1, 2, 2] * 2
    rows = (serial / "points.csv").read_text().splitlines()
    assert rows[0].startswith("host.hyperthreading,vm.instances,replications,")
    assert [row.split(",")[:2] for row in rows[1:]] == [["true", "1"], ["true", "2"], ["false", "1"], ["false", "2"]]
    assert (serial / "hyperthreading_host.png").exists()


def test_a_bad_vary_is_one_line_naming_the_key(tmp_path):
    done = subprocess.run([sys.executable, "-m", "vsim", "sweep", "configs/whatif/hyperthreading.toml",
                           "--vary", "vm.instances=1:4", "--quiet"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "sweep.axis[0].values" in done.stderr


def test_the_python_api_returns_the_replications_and_reads_the_store_back(tmp_path):
    config = ROOT / "configs" / "whatif" / "hyperthreading.toml"
    runs = run_sweep(config, vary=["host.hyperthreading=true,false", "vm.instances=1,2"], design="zip",
                     duration=1.5, replications=1, store=tmp_path / "store")
    assert runs[["host.hyperthreading", "vm.instances", "seed"]].values.tolist() == [[True, 1, 1], [False, 2, 1]]
    stored = open_store(tmp_path / "store").sort_values("vm.instances")
    assert stored["host.hyperthreading"].tolist() == [True, False]
    assert stored["jitter.p99_ms"].tolist() == runs["jitter_p99_ms"].tolist()


def test_a_two_key_grid_resumes_from_its_store_and_a_larger_one_reuses_it(tmp_path):
    store = str(tmp_path / "store")
    first, _ = sweep(tmp_path, "first", "--store", store)
    out = tmp_path / "larger"
    done = subprocess.run([sys.executable, "-m", "vsim", "sweep", "configs/whatif/hyperthreading.toml",
                           "--vary", "host.hyperthreading=true,false", "--vary", "vm.instances=1,2,3",
                           "--duration", "1.5", "--replications", "2", "--store", store, "--out", str(out)],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "8 replications reused, 4 to run" in done.stderr
    rows = {tuple(row.split(",")[:3]): row for row in (out / "runs.csv").read_text().splitlines()[1:]}
    for row in (first / "runs.csv").read_text().splitlines()[1:]:
        assert rows[tuple(row.split(",")[:3])] == row
