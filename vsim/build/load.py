"""A scenario file read (``vsim.config.load``) and checked against its models (``vsim.build.checks``).

This is how every command loads a scenario: what ``load_scenario`` returns
can be built and run, and each of its sweep points (``Loaded.with_value``)
is checked by the same code.
"""

from dataclasses import replace
from pathlib import Path

from vsim.build.checks import check_against_models
from vsim.build.host_steal import check_trace_cpus
from vsim.config.load import logical_cpus, read_scenario
from vsim.config.models import DEFAULT_MODELS_DIR
from vsim.config.named_tables import document_table_names, naming_tables
from vsim.config.override_source import blaming_overrides
from vsim.config.toml_io import apply_overrides, load_toml
from vsim.config.value_origins import ValueOrigins


FROM_FILE = "file"
"""``load_scenario``'s ``sweep`` default: the [sweep] table of the file, as overridden."""


def load_scenario(path, overrides=(), models_dir=DEFAULT_MODELS_DIR, sweep_points=True, sweep=FROM_FILE):
    """Read, override, validate, resolve and check the scenario at ``path``; an error at a key
    that ``overrides`` set names that ``--set``. Without ``sweep_points`` the points of its
    ``[sweep]`` are not checked one by one (``vsim run`` runs the file's own point only). A path
    that ``overrides`` set is the user's own, read wherever it is (``vsim.config.readable``).
    ``sweep``, unless ``FROM_FILE``, stands for the [sweep] table after the overrides: a table
    (the design ``--vary`` gives), or None for none (a replication runs its own point only)."""
    source = str(path)
    written = load_toml(path)
    data = apply_overrides(written, list(overrides))
    if sweep != FROM_FILE:
        data = {name: table for name, table in data.items() if name != "sweep"}
        if sweep is not None:
            data["sweep"] = sweep
    with blaming_overrides(source, overrides), naming_tables(source, document_table_names(data)):
        loaded = read_scenario(source, data, Path(models_dir), check_against_models, sweep_points,
                               overrides)
        check_trace_cpus(loaded.steal, logical_cpus(loaded.scenario, loaded.models["host"].values), source)
    return replace(loaded, origins=ValueOrigins(written, tuple(overrides)))
