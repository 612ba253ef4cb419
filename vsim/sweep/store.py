"""A resumable store of finished replications: one JSON file per replication, in a folder.

Each replication of a sweep is named by a SHA-256 key of everything its result depends on:
the scenario as resolved at its point (the config after its ``--set`` overrides, with the
point's value; its ``[sweep]`` table and the run length, seed and replications of its
``[run]`` left out, since the task gives them), the bytes of every file the point reads
(model files, steal trace, replayed packet traces), the seed, the run length (duration and
warm-up), the engine and vsim's version. A rerun of the same sweep, or of a larger one
holding it (more values, more replications), reads the replications already stored instead
of running them; a changed model file or config changes the key of the replications it
touches, and those alone are run again.

A replication's file is written as it finishes (a temporary file in the folder, then renamed),
so a sweep stopped by Ctrl-C, SIGTERM or SIGKILL keeps every replication that had finished,
and none half-written. A file that cannot be read, or is of another format, is ignored with
one note and its replication run again (and its file rewritten).
"""

import dataclasses
import hashlib
import json
from pathlib import Path

from vsim import __version__
from vsim.outputs.atomic import write_text
from vsim.results.run_summary_types import RunSummary

FORMAT = 1
"""The store files' format version: a file of another is ignored."""

ENGINE = "auto"
"""The engine a sweep's replications run with (``simulate``'s default)."""


def _plain(value):
    """JSON for what ``json`` cannot write itself (paths, enums, sets): their repr."""
    if isinstance(value, (set, frozenset)):
        return sorted(repr(item) for item in value)
    return repr(value)


def point_digest(loaded):
    """SHA-256 of a scenario at one point: its resolved content and the bytes of its files."""
    scenario = loaded.scenario
    run = dataclasses.replace(scenario.run, duration=1.0, warmup=0.0, seed=0, replications=1)
    content = dataclasses.asdict(dataclasses.replace(scenario, sweep=None, run=run))
    files = [(what, hashlib.sha256(Path(path).read_bytes()).hexdigest())
             for what, path in loaded.files_read(sweep_points=False)[1:]]
    text = json.dumps({"scenario": content, "files": files}, sort_keys=True, default=_plain)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def task_key(point, task):
    """The store key of ``task``, a replication at the point whose ``point_digest`` is ``point``."""
    named = {"format": FORMAT, "vsim": __version__, "engine": ENGINE, "point": point,
             "key": task.key, "x": task.x, "seed": task.seed,
             "duration": task.duration, "warmup": task.warmup}
    if task.held:  # only then: the keys of the replications of one key stay what they were
        named["held"] = [list(pair) for pair in task.held]
    text = json.dumps(named, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sweep_keys(loaded, tasks):
    """The store key of every task of ``loaded``'s sweep, in task order."""
    digests = {}
    keys = []
    for task in tasks:
        if task.setting() not in digests:
            digests[task.setting()] = point_digest(loaded.at(task.setting()))
        keys.append(task_key(digests[task.setting()], task))
    return keys


class Store:
    """The folder ``directory`` of stored replications; ``note`` is called with each note."""

    def __init__(self, directory, note):
        self.directory = Path(directory)
        self.note = note

    def path(self, key):
        return self.directory / f"{key}.json"

    def read(self, key):
        """The stored summary of ``key``, or None (missing; unreadable or of another format:
        with a note)."""
        path = self.path(key)
        if not path.exists():
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("key") != key:
                raise ValueError(f"expected format {FORMAT} for key {key[:12]}")
            return RunSummary.from_json(data["summary"])
        except Exception as exc:  # any damage means: run it again
            self.note(f"vsim: note: ignoring {path} ({type(exc).__name__}: {exc}); "
                      f"its replication is run again")
            return None

    def write(self, key, task, summary):
        """Store ``summary``, the result of ``task``, under ``key`` (atomically)."""
        data = {"format": FORMAT, "key": key, "vsim": __version__,
                "task": {"config": task.config, "overrides": list(task.overrides), "key": task.key,
                         "x": task.x, "seed": task.seed, "duration": task.duration,
                         "warmup": task.warmup, "engine": ENGINE},
                "summary": summary.to_json()}
        if task.held:
            data["task"]["held"] = [list(pair) for pair in task.held]
        self.directory.mkdir(parents=True, exist_ok=True)
        # not sort_keys: the summary's own order (vm1, vm2, ..., vm10) is the order sums are taken in
        write_text(self.path(key), json.dumps(data) + "\n")


def run_stored(tasks, keys, store, run, note):
    """Summaries of ``tasks`` in task order: those ``store`` holds read back, the others run
    by ``run(tasks, finished)`` (``finished(index, summary)`` stores each as it ends); ``note``
    (unless None) is told how many were reused and how many run. Without a store,
    ``run(tasks, None)``."""
    if store is None:
        return run(tasks, None)
    results = [store.read(key) for key in keys]
    missing = [i for i, result in enumerate(results) if result is None]
    if note is not None:
        note(f"vsim: store {store.directory}: {len(tasks) - len(missing)} replication"
             f"{'s' if len(tasks) - len(missing) != 1 else ''} reused, {len(missing)} to run")

    def finished(index, summary):
        store.write(keys[missing[index]], tasks[missing[index]], summary)

    for index, summary in zip(missing, run([tasks[i] for i in missing], finished)):
        results[index] = summary
    return results
