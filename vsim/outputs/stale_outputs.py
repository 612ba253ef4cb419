"""Outputs a previous run left in a directory that this run did not write again.

A directory that receives a run's figures keeps whatever an earlier run put
there: a figure this run had no reason to draw (no loss, so no loss figure)
or another scenario's figures would sit beside the new results as if they
belonged to them. A run records the files it wrote in its manifest, the
results.json of ``vsim sweep --out``, ``vsim validate --out`` and each study
directory of ``vsim reproduce``: their names (``files``) and the SHA-256 of
each but the manifest itself (``sha256``, from ``written_digests``). Once
the next run's files are in place, a file the previous manifest recorded and
this run did not write again goes (``listed_outputs`` and ``remove_stale``),
but only when it is still the file written then: a plain name in the
directory (no folder, no ``..``) of a kind these folders receive
(``OUTPUT_SUFFIXES``), a regular file (not a link), with the digest
recorded. A manifest cannot make a run delete anything else: a file it
merely names, one edited since, one copied there under a recorded name, nor
a file of another kind (``my_notes.txt``) whose digest a manifest written by
hand gives correctly.
Everything else in the directory is the user's and stays.
"""

import hashlib
import json
import os
import re
import stat
from pathlib import Path

from vsim.outputs.atomic import output_bytes

_SHA256 = re.compile(r"[0-9a-f]{64}")
# what vsim writes into an output folder: figures, tables, reports and manifests
OUTPUT_SUFFIXES = frozenset({".png", ".svg", ".csv", ".parquet", ".md", ".json"})


def _sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def written_digests(paths):
    """{name: SHA-256 in hex} of each of ``paths`` as just written, for a manifest's ``sha256``
    (read from the temporary files of the open output set, before they are in place, or from
    memory when captured)."""
    return {Path(path).name: hashlib.sha256(output_bytes(path)).hexdigest() for path in paths}


def listed_outputs(manifest):
    """{name: SHA-256} of the files a previous run recorded in its JSON ``manifest`` (its ``sha256``
    of plain file names among its ``files`` whose suffix is one of ``OUTPUT_SUFFIXES``), or none when the manifest is absent, unreadable or
    records no digests."""
    try:
        doc = json.loads(Path(manifest).read_text(encoding="utf-8"))
        names, digests = doc.get("files"), doc.get("sha256")
    except (OSError, ValueError, AttributeError):
        return {}
    if not isinstance(names, list) or not isinstance(digests, dict):
        return {}
    return {name: digests[name] for name in names
            if isinstance(name, str) and name == Path(name).name and name not in ("", ".", "..")
            and Path(name).suffix in OUTPUT_SUFFIXES
            and isinstance(digests.get(name), str) and _SHA256.fullmatch(digests[name])}


def _still_written(path, digest):
    """Whether ``path`` is a regular file (not a link) holding the bytes of SHA-256 ``digest``."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return False
        return _sha256(path) == digest
    except OSError:
        return False


def remove_stale(directory, previous, written):
    """Remove each file of ``previous`` ({name: SHA-256}) from ``directory`` that is not among the
    paths ``written`` and still holds what was written; the names removed, sorted."""
    kept = {Path(path).name for path in written}
    removed = []
    for name in sorted(set(previous) - kept):
        path = Path(directory) / name
        if _still_written(path, previous[name]):
            path.unlink()
            removed.append(name)
    return removed
