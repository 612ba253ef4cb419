"""The configuration reference page is the schema: every key and every model parameter, spelt as in TOML."""

import dataclasses

from vsim.config.models import MODEL_KINDS
from vsim.config.reference import cell, configuration_reference, default_cell
from vsim.config.schema_scenario import Scenario
from vsim.config.typed import describe


def _block(text, heading):
    """The lines of the page under ``heading`` up to the next heading."""
    lines = text.splitlines()
    start = lines.index(heading)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("#")), len(lines))
    return "\n".join(lines[start:end])


ARRAYS = {"group": "[[group]]", "netioc.node": "[[netioc.node]]", "htb.node": "[[htb.node]]"}


def _place(key):
    """(heading, key as written in its table) where the page should list the scenario key ``key``."""
    for array, table in ARRAYS.items():
        if key.startswith(f"{array}[]."):
            return f"## `{table}`", key.removeprefix(f"{array}[].")
    section, _, rest = key.partition(".")
    return (f"## `[{section}]`", rest) if rest else ("## Top-level keys", key)


def test_every_scenario_key_has_a_row_under_its_table():
    page = configuration_reference()
    headings = {line for line in page.splitlines() if line.startswith("## ")}
    for key, kind, _, _ in describe(Scenario):
        if f"## `[{key}]`" in headings or key in ARRAYS or f"{key}.node" in ARRAYS:
            continue  # a table or array of tables: its keys are under its heading
        heading, written = _place(key)
        assert f"| `{written}` |" in _block(page, heading), key


def test_every_model_kind_lists_each_of_its_parameters():
    page = configuration_reference()
    for folder, cls in MODEL_KINDS.items():
        block = _block(page, f"### {folder}/")
        for field in dataclasses.fields(cls):
            assert f"| `{field.name}` |" in block, (folder, field.name)
    assert "`[params.host]`" in _block(page, "### hosts/") and "`[params.workload]`" in _block(page, "### workloads/")


def test_defaults_are_spelt_as_in_toml():
    assert [default_cell(text) for text in ("True", "'fifo'", "()", "None", "300.0", "required")] == \
        ["`true`", '`"fifo"`', "`[]`", "none", "`300.0`", "required"]
    assert '| `hyperthreading` | a boolean | `true` |' in configuration_reference()


def test_a_cell_stays_one_cell():
    assert cell("a | b\n  c") == "a \\| b c"
