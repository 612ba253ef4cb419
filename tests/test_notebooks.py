"""The notebooks run in a real kernel, top to bottom, with a short run length, and are
committed without outputs."""

import json
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))
FULL_LENGTH = "DURATION = 30.0"
SHORT_LENGTH = "DURATION = 2.0"


def test_there_are_the_four_notebooks_the_docs_link():
    assert {path.stem for path in NOTEBOOKS} >= {"quickstart", "whatif_hyperthreading",
                                                  "sweep_designs", "validation"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_is_committed_without_outputs(path):
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None, \
                f"{path.name}: clear its outputs before committing (jupyter nbconvert --clear-output --inplace)"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs_in_a_kernel(path):
    notebook = nbformat.read(path, as_version=4)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert sum(FULL_LENGTH in cell.source for cell in code) == 1, \
        f"{path.name}: the run length is shortened for the test; its line must stay '{FULL_LENGTH}'"
    for cell in code:
        cell.source = cell.source.replace(FULL_LENGTH, SHORT_LENGTH)
    client = NotebookClient(notebook, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    client.execute(env={"MPLBACKEND": "Agg"})
    errors = [output for cell in code for output in cell.get("outputs", [])
              if output.get("output_type") == "error"]
    assert not errors
