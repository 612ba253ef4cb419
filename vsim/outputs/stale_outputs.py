"""Outputs a previous run left in a directory that this run did not write again.

A directory that receives a run's figures keeps whatever an earlier run put
there: a figure this run had no reason to draw (no loss, so no loss figure)
or another scenario's figures would sit beside the new results as if they
belonged to them. A run lists the files it wrote in its manifest (the
``files`` of its results.json: ``vsim sweep --out``, ``vsim validate --out``,
each study directory of ``vsim reproduce``); once the next run's files are in
place, those the previous manifest listed and this run did not write again
go (``listed_outputs`` and ``remove_stale``). Anything else in the directory
is the user's and stays.
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

