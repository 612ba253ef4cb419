"""Reproduce studies: run their sweeps, compute every claim, write JSON, figures and tables.

The JSON names every claim of ``paper_claims.toml`` exactly once: claims of a
study that was run and modelled get their simulated value, all others null
(and ``fitted`` false), so tools can score any subset the same way. All
sweeps of all requested studies go into one task list, so ``--jobs`` keeps
every worker busy across figures.
"""

import importlib
import json
import math
from functools import partial
from dataclasses import dataclass
from pathlib import Path

from vsim.outputs.atomic import after_commit, captured_outputs, write_bytes, write_text
from vsim.config.data_dirs import data_root
from vsim.core.errors import InputError
from vsim.outputs.stale_outputs import listed_outputs, remove_stale, written_digests
from vsim.experiments.comparison import (BY_CONSTRUCTION, FITTED, NOT_MODELLED, NOT_RUN, PREDICTED, Row,
                                         write_comparison)
from vsim.experiments.ledger import load_design_choices, selected_on
from vsim.experiments.registry import STUDIES
from vsim.build.load import load_scenario
from vsim.cluster.replications import run_cluster_sweep
from vsim.build.memory import check_memory
from vsim.build.work import check_work
from vsim.config.run_length import RunPlan
from vsim.sweep.executor import LocalProcesses, Sweep, point_runs, run_tasks, sweep_tasks
from vsim.sweep.store import run_stored, sweep_keys

REPO = data_root()  # holds the studies' configs/


def recipe(name):
    """The recipe module of the modelled study ``name``: its CONFIGS, claim_values and draw_figures."""
    return importlib.import_module(STUDIES[name])




@dataclass(frozen=True)
class StudyResult:
    """A study's sweeps by name and the simulated value of each claim it models."""

    name: str
    sweeps: dict
    simulated: dict


def check_recipe_study(name, loaded):
    """A config of study ``name``'s recipe names that study (its ``study`` key); ``InputError``
    naming the config and the key otherwise."""
    if loaded.scenario.study != name:
        raise InputError(loaded.source, "study", f"expected \"{name}\" (a config of study {name}'s "
                         f"recipe), got {'nothing' if loaded.scenario.study is None else repr(loaded.scenario.study)}")


def select_studies(names, claims):
    """Split the requested study names (all when empty) into (modelled, not yet modelled).

    A name that is neither modelled nor a study of the claims file is an ``InputError``.
    """
    known = sorted({claim.study for claim in claims} | set(STUDIES))
    for name in names:
        if name not in known:
            raise InputError("reproduce", f"STUDY '{name}'",
                             f"unknown study; expected one of: {', '.join(known)}")
    chosen = list(dict.fromkeys(names)) or known
    return [n for n in chosen if n in STUDIES], [n for n in chosen if n not in STUDIES]


def run_studies(names, plan=RunPlan(), jobs=1, progress=None, store=None, executor=None):
    """Run the sweeps of the modelled studies ``names``; one ``StudyResult`` each.

    Every point is checked to fit in memory, ``jobs`` at a time, and the whole to be work
    that can finish (``vsim.build.work``), before any runs. A recipe with an ``evaluate``
    function computes its sweeps from its loaded configs itself (a closed-form model, no runs):
    ``evaluate({sweep name: (config, loaded)})`` returns {sweep name: sweep}, each with the
    ``config``, ``fitted``, ``stamp()`` and ``to_json()`` of a ``Sweep``. A recipe's
    ``CLUSTERS`` ({name: cluster file}) are run by ``vsim.cluster`` as ``ClusterSweep``s,
    which have those too, a task per replication on ``executor`` when one is given, else in
    this process (a cluster run takes milliseconds: worker processes for ``jobs`` would cost
    more than they save); they are not kept in ``store``. With ``store`` (a
    ``vsim.sweep.store.Store``), the replications it holds are read back instead of run, and
    those run are kept in it as each ends. ``executor`` (an ``Executor``, default local
    processes) is where the runs go.
    """
    studied, runs, counts, evaluated = [], [], [], {}
    for name in names:
        evaluate = getattr(recipe(name), "evaluate", None)
        for sweep_name, relative in recipe(name).CONFIGS.items():
            loaded = load_scenario(REPO / relative)
            check_recipe_study(name, loaded)
            if evaluate is not None:  # a recipe that evaluates its model from the configs, no runs
                evaluated.setdefault(name, {})[sweep_name] = (relative, loaded)
                continue
            length = plan.resolve(loaded.scenario.run)
            length.check(REPO / relative, loaded)
            studied.append((name, sweep_name, relative, loaded, length.duration, length.warmup,
                            length.replications))
            points = point_runs(REPO / relative, loaded, length.duration)
            runs += points
            counts += [length.replications] * len(points)
    check_memory(runs, jobs, duration_key="--duration")
    check_work(runs, counts, "run.duration" if plan.duration is None else "--duration",
               "run.replications" if plan.replications is None else "--replications")
    planned = [(name, sweep_name, relative, sweep_tasks(REPO / relative, loaded, duration, warmup, replications),
                loaded) for name, sweep_name, relative, loaded, duration, warmup, replications in studied]
    every = [task for *_, tasks, _ in planned for task in tasks]
    keys = None if store is None else [key for *_, tasks, loaded in planned for key in sweep_keys(loaded, tasks)]
    summaries = run_stored(every, keys, store, lambda todo, finished: run_tasks(
        todo, jobs, progress, finished_one=finished, executor=executor), None if store is None else store.note)
    sweeps = {name: {} for name in names}
    start = 0
    for name, sweep_name, relative, tasks, loaded in planned:
        runs = summaries[start:start + len(tasks)]
        start += len(tasks)
        sweeps[name][sweep_name] = Sweep.from_runs(sweep_name, relative, tasks, runs, loaded.fitted_claims(),
                                                   loaded.model_files())
    for name, configs in evaluated.items():
        sweeps[name].update(recipe(name).evaluate(configs))
    for name in names:
        for cluster_name, relative in getattr(recipe(name), "CLUSTERS", {}).items():
            sweeps[name][cluster_name] = run_cluster_sweep(cluster_name, relative, REPO, name, plan, executor)
    return [StudyResult(name, sweeps[name], recipe(name).claim_values(sweeps[name])) for name in names]


def _number(value):
    """A claim value for JSON: a float (a list of them for a claim of several), or None when it
    is missing (a run too short to give it) or not finite."""
    if value is None:
        return None
    if isinstance(value, (list, tuple)):  # a claim of several values (one per VM)
        return [_number(v) for v in value]
    value = float(value)
    return value if math.isfinite(value) else None


def _choices_note(names):
    """The note marking a claim that design choices were selected on."""
    listed = ", ".join(names) if len(names) <= 3 else f"{len(names)} choices"
    return f"design choices selected on it: {listed} (models/design_choices.toml)"


def claim_rows(claims, results, choices=None):
    """One comparison ``Row`` per claim, in claims-file order, with its honest kind and note.

    A claim is *fitted* when a model parameter of its sweep was fitted to it,
    *by construction* when its study recipe says the configuration fixes it,
    *predicted* otherwise; a claim of a modelled study left out of ``results``
    is *not run*, and one no modelled study computes is *not modelled*.
    ``choices`` (default: ``models/design_choices.toml``) marks the claims a
    design choice was selected on.
    """
    marks = selected_on(load_design_choices() if choices is None else choices)
    found = {claim_id: (result, simulated) for result in results
             for claim_id, simulated in result.simulated.items()}
    ran = {result.name for result in results}
    rows = []
    for claim in claims:
        if claim.study in STUDIES and claim.study not in ran:
            rows.append(Row(claim, None, None, NOT_RUN, "", f"run `vsim reproduce {claim.study}` for it"))
            continue
        if claim.id not in found:
            rows.append(Row(claim, None, None, NOT_MODELLED, ""))
            continue
        result, simulated = found[claim.id]
        sweep = result.sweeps[simulated.sweep]
        fixed = recipe(result.name).BY_CONSTRUCTION
        kind = FITTED if claim.id in sweep.fitted else BY_CONSTRUCTION if claim.id in fixed else PREDICTED
        notes = [fixed.get(claim.id, ""), simulated.note]
        if claim.id in marks:
            notes.append(_choices_note(marks[claim.id]))
        rows.append(Row(claim, _number(simulated.value), simulated.ci, kind, sweep.config,
                        "; ".join(note for note in notes if note)))
    return rows


def claims_json(rows):
    """The ``{"claims": [...]}`` document, one entry per row (``kind`` beside the ``fitted`` flag)."""
    entries = [{"id": row.claim.id, "value": row.value, "fitted": row.fitted, "kind": row.kind,
                "scenario": row.scenario}
               for row in rows]
    return json.dumps({"claims": entries}, indent=2, allow_nan=False) + "\n"


def results_json(result, files=None, digests=None):
    """Every replication's summary of a study, compact, for re-analysis without re-running; with
    ``files``, the names of the files written beside it, and with ``digests`` their SHA-256 (so
    the next run knows its own, ``vsim.outputs.stale_outputs``)."""
    doc = {"study": result.name, "sweeps": {name: sweep.to_json() for name, sweep in result.sweeps.items()}}
    if files is not None:
        doc["files"] = sorted(files)
    if digests is not None:
        doc["sha256"] = digests
    return json.dumps(doc, sort_keys=True, separators=(",", ":")) + "\n"


def write_study_outputs(figures_dir, result, rows):
    """Figures, comparison table and per-run results of one study; returns the paths written.

    results.json lists the files written (``files``) and their digests (``sha256``); once they
    are in place, those an earlier run recorded and this one did not write again (a figure
    since dropped) are removed, if unchanged since. Other files in the study's directory are
    the user's and stay."""
    outdir = Path(figures_dir) / result.name
    return _replacing_outputs(outdir, lambda: _study_files(outdir, result, rows))


def _replacing_outputs(outdir, write):
    """Run ``write()`` (it writes a study's files into ``outdir`` and returns their paths); once
    they are in place, remove what the previous run recorded there and this one did not write."""
    previous = listed_outputs(outdir / "results.json")
    written = write()
    after_commit(partial(remove_stale, outdir, previous, written))
    return written


def _write_rendered(files):
    """Write the ``(path, bytes)`` a worker rendered; their paths."""
    for path, data in files:
        write_bytes(path, data)
    return [path for path, _data in files]


def _study_files(outdir, result, rows):
    """Write the figures, comparison table and results.json of ``result`` into ``outdir``;
    the paths written."""
    study_claims = [row.claim for row in rows if row.claim.study == result.name]
    written = recipe(result.name).draw_figures(outdir, result.sweeps, study_claims)
    written += write_comparison(outdir, f"{result.name}: paper vs simulated",
                                [row for row in rows if row.claim.study == result.name],
                                [sweep.stamp() for sweep in result.sweeps.values()])
    digests = written_digests(written)
    written.append(outdir / "results.json")
    write_text(outdir / "results.json", results_json(result, [path.name for path in written], digests))
    return written


def _rendered_study(task):
    """In a worker: the files of one study, ``task`` = (figures_dir, result, rows), rendered
    in memory ([(path, bytes)] in the order written) and written nowhere."""
    figures_dir, result, rows = task
    with captured_outputs() as captured:
        _study_files(Path(figures_dir) / result.name, result, rows)
    return list(captured.items())


def write_all_study_outputs(figures_dir, results, rows, jobs=1):
    """``write_study_outputs`` for every study of ``results``; with ``jobs`` above 1 the studies
    are drawn side by side in that many worker processes of this machine (drawing is most of
    what is left once the runs end), which render them in memory and hand the bytes back to
    be written here, into the open output set, so that a worker ended at any moment leaves no
    file. The costliest to draw (the most sweeps) are handed out first. The same bytes either
    way."""
    workers = min(jobs, len(results))
    if workers <= 1:
        for result in results:
            write_study_outputs(figures_dir, result, rows)
        return
    order = sorted(range(len(results)), key=lambda i: (-len(results[i].sweeps), i))
    tasks = [(str(figures_dir), results[i], rows) for i in order]
    rendered = dict(LocalProcesses(workers).outcomes(_rendered_study, tasks))
    for position, index in enumerate(order):
        _replacing_outputs(Path(figures_dir) / results[index].name,
                           partial(_write_rendered, rendered[position]))
