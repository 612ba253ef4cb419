"""Tidy tables of a sweep: one row per replication and one per point, as Parquet and pandas.

The rows are those of ``points.csv`` and ``runs.csv`` (``vsim.sweep.report``): a column per
swept key, then ``seed`` (per replication) or ``replications`` (per point), then per metric its
value (per point: the trimmed mean and the ends of its 95 % interval, ``NAME_low``,
``NAME_high``); a missing metric is null. The swept columns keep their types (true/false,
integers, numbers, model names), so a notebook filters them without parsing text.

``run_sweep`` runs a scenario's sweep from Python and returns the replications' table;
``open_store`` reads a ``--store`` folder into one (a row per stored replication: its task's
config, keys and seed, and its summary's numbers flattened to dotted columns).
"""

import json
from pathlib import Path

from vsim.outputs.atomic import atomic_path


def runs_columns(sweep):
    """Columns of the one-row-per-replication table of ``sweep`` (name -> values)."""
    from vsim.sweep.report import sweep_metrics

    metrics = sweep_metrics(sweep)
    columns = {key: [] for key in sweep.keys()} | {"seed": []} | {m.name: [] for m in metrics}
    for point in sweep.points:
        for seed, run in zip(point.seeds, point.runs):
            for key, value in point.setting(sweep.key):
                columns[key].append(value)
            columns["seed"].append(seed)
            for metric in metrics:
                value = metric.read(run)
                columns[metric.name].append(None if value is None else float(value))
    return columns


def points_columns(sweep, reports):
    """Columns of the one-row-per-point table of ``sweep`` with its ``reports``."""
    from vsim.sweep.report import sweep_metrics

    metrics = sweep_metrics(sweep)
    columns = {key: [] for key in sweep.keys()} | {"replications": []}
    for metric in metrics:
        columns |= {f"{metric.name}{end}": [] for end in ("", "_low", "_high")}
    for point, report in zip(sweep.points, reports):
        for key, value in point.setting(sweep.key):
            columns[key].append(value)
        columns["replications"].append(len(point.runs))
        for metric in metrics:
            stat = report.stats[metric.name]
            ends = (None, None, None) if stat is None else (stat[0], *stat[1])
            for end, value in zip(("", "_low", "_high"), ends):
                columns[f"{metric.name}{end}"].append(None if value is None else float(value))
    return columns


def write_parquet(path, columns):
    """Write ``columns`` as a Parquet file at ``path``, atomically; the same columns give the
    same bytes (no timestamps; pyarrow's own version is the one thing written about it)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table({name: pa.array(values) for name, values in columns.items()})
    with atomic_path(Path(path)) as tmp:
        pq.write_table(table, tmp, compression="zstd")
    return Path(path)


def data_frame(columns):
    """A pandas DataFrame of ``columns``."""
    import pandas as pd

    return pd.DataFrame(columns)


def run_sweep(config, overrides=(), vary=(), design=None, points=None, design_seed=None,
              duration=None, replications=None, jobs=1, store=None):
    """Run the sweep of the scenario file ``config`` and return its replications as a DataFrame
    (``runs_columns``): ``overrides`` as ``--set``, ``vary`` as ``--vary`` (with ``design``,
    ``points``, ``design_seed``), ``duration`` and ``replications`` as the options of those names,
    ``jobs`` worker processes and ``store`` a result folder, as ``vsim sweep`` has them."""
    import dataclasses

    from vsim.build.load import FROM_FILE, load_scenario
    from vsim.config.run_length import RunPlan
    from vsim.config.vary import design_overrides, vary_table
    from vsim.core.errors import InputError
    from vsim.sweep.executor import Sweep, run_tasks, sweep_tasks
    from vsim.sweep.store import Store, run_stored, sweep_keys

    overrides = list(overrides)
    table = vary_table(list(vary), design, points, design_seed)
    if table is None:
        overrides += design_overrides(design, points, design_seed)
    loaded = load_scenario(config, overrides, sweep=FROM_FILE if table is None else table)
    if loaded.scenario.sweep is None:
        raise InputError(str(config), "sweep", "expected a [sweep] table, or vary=[...]")
    plan = RunPlan()
    if duration is not None:
        plan = dataclasses.replace(plan, duration=duration, warmup=None)
    if replications is not None:
        plan = dataclasses.replace(plan, replications=replications)
    length = plan.resolve(loaded.scenario.run)
    tasks = sweep_tasks(config, loaded, length.duration, length.warmup, length.replications, overrides)
    kept = None if store is None else Store(store, lambda line: None)
    keys = None if kept is None else sweep_keys(loaded, tasks)
    summaries = run_stored(tasks, keys, kept, lambda todo, finished: run_tasks(
        todo, jobs, finished_one=finished), None)
    result = Sweep.from_runs(Path(config).stem, str(config), tasks, summaries, ())
    return data_frame(runs_columns(result))


def _flat(prefix, value, row):
    """``value``'s numbers and strings into ``row`` under dotted names below ``prefix``."""
    if isinstance(value, dict):
        for name, item in value.items():
            _flat(f"{prefix}.{name}" if prefix else str(name), item, row)
    elif isinstance(value, (bool, int, float, str)) or value is None:
        row[prefix] = value


def open_store(path):
    """The replications a ``--store`` folder holds, as a DataFrame: per file (in name order) its
    ``config``, ``overrides``, each swept key as a column, ``seed``, ``duration``, ``warmup``,
    ``vsim`` (the version that ran it) and its summary flattened (``jitter.p99_ms``, ...).
    Files that are not a store's are left out."""
    rows = []
    for file in sorted(Path(path).glob("*.json")):
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
            task = data["task"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        row = {"config": task["config"], "overrides": " ".join(task["overrides"]), task["key"]: task["x"]}
        row |= {key: value for key, value in task.get("held", [])}
        row |= {"seed": task["seed"], "duration": task["duration"], "warmup": task["warmup"],
                "vsim": data.get("vsim")}
        _flat("", data["summary"], row)
        rows.append(row)
    import pandas as pd

    return pd.DataFrame(rows)
