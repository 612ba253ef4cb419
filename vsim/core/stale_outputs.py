"""Outputs a previous run left in a directory that this run did not write again.

A directory that receives a run's figures keeps whatever an earlier run put
there: a figure this run had no reason to draw (no loss, so no loss figure)
or another scenario's figures would sit beside the new results as if they
belonged to them. Two kinds of directory are cleaned after the new files are
in place, so nothing is removed before its replacement exists:

- a directory owned by its outputs (``vsim reproduce``'s study directory):
  every file in it that this run did not write goes (``remove_unwritten``);
- a directory shared with other files (``vsim sweep --out``): only the files a
  previous run listed in its manifest (the ``files`` of its results.json) go
  (``listed_outputs`` and ``remove_stale``); anything else is the user's.
"""

import json
from pathlib import Path


def listed_outputs(manifest):
    """Names of the files a previous run listed in its JSON ``manifest`` (its ``files``), or none when
    the manifest is absent, unreadable or not such a list of plain file names."""
    try:
        names = json.loads(Path(manifest).read_text(encoding="utf-8")).get("files")
    except (OSError, ValueError, AttributeError):
        return set()
    if not isinstance(names, list):
        return set()
    return {name for name in names if isinstance(name, str) and name == Path(name).name and name not in ("", ".", "..")}


def remove_stale(directory, previous, written):
    """Remove each file named in ``previous`` from ``directory`` that is not among the paths ``written``;
    the names removed, sorted."""
    kept = {Path(path).name for path in written}
    removed = []
    for name in sorted(set(previous) - kept):
        path = Path(directory) / name
        if path.is_file() or path.is_symlink():
            path.unlink()
            removed.append(name)
    return removed


def remove_unwritten(directory, written):
    """Remove every file directly in ``directory`` that is not among the paths ``written``; the names
    removed, sorted."""
    directory = Path(directory)
    previous = [entry.name for entry in directory.iterdir() if entry.is_file() or entry.is_symlink()]
    return remove_stale(directory, previous, written)
