"""The run summary's types (``vsim.results.run_summary_types``) write the summary's JSON byte
for byte, read it back, and name the fields a dotted path may take."""

import dataclasses
import json
import typing
from functools import cache
from pathlib import Path

import pytest

from vsim.build.load import load_scenario
from vsim.engines.simulation import Simulation
from vsim.results import run_summary_types
from vsim.results.plain_data import FLATTENED, OPTIONAL, json_keys
from vsim.results.run_summary_types import RunSummary, summary_field

ROOT = Path(__file__).resolve().parents[2]

# Short runs that, between them, have every optional section and key of the summary: an uplink
# with bulk traffic and voice beside it (offered and configured rates), TCP streams (a demand)
# and request/response traffic, CPU-bound VMs, host tasks, steal and the measured VM's own
# settings without a measuring conference, and an adaptive jitter buffer's note.
RUNS = {
    "voice beside a flood": ("voip-vsphere5/fig6.toml", []),
    "netperf beside TCP streams": ("whatif/netperf_beside_tcp_stream.toml", []),
    "CPU-bound neighbours": ("whatif/noisy_neighbours.toml", []),
    "host tasks and steal": ("validation/cpu_cgroups.toml", []),
    "adaptive jitter buffer": ("voip-vsphere5/fig2.toml", ['client.jitter_buffer="adaptive"']),
}


@cache
def summary(name):
    """The summary of run ``name`` of ``RUNS``, 2 s long, as ``Simulation.run`` gives it."""
    config, overrides = RUNS[name]
    return Simulation(load_scenario(ROOT / "configs" / config, overrides), seed=1).run(2.0, 0.5)


@pytest.fixture(params=list(RUNS))
def run(request):
    return summary(request.param)


def test_the_types_write_the_summary_json_byte_for_byte(run):
    typed = RunSummary.from_json(run)
    assert json.dumps(typed.to_json(), indent=2) == json.dumps(run, indent=2)  # key order too


def test_a_summary_read_back_from_its_json_is_the_same(run):
    typed = RunSummary.from_json(run)
    assert RunSummary.from_json(json.loads(json.dumps(typed.to_json()))) == typed


def _keys(data):
    """Every key of the plain JSON ``data``, at any depth."""
    if isinstance(data, dict):
        return set(data).union(*map(_keys, data.values()))
    if isinstance(data, list):
        return set().union(*map(_keys, data))
    return set()


def _optional_keys():
    """The keys of the summary's types that a run may leave out."""
    keys = set()
    for cls in vars(run_summary_types).values():
        if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
            continue
        hints = typing.get_type_hints(cls)
        for field in dataclasses.fields(cls):
            if not (field.metadata.get(OPTIONAL) and field.default is None):
                continue
            if field.metadata.get(FLATTENED):
                keys.update(json_keys(typing.get_args(hints[field.name])[0]))
            else:
                keys.add(field.name)
    return keys


def test_the_runs_between_them_have_every_optional_key():
    seen = set().union(*(_keys(summary(name)) for name in RUNS))
    assert _optional_keys() - seen == set()


def test_a_key_the_types_do_not_have_is_refused_by_name(run):
    with pytest.raises(ValueError, match="Jitter has no field stddev_ms"):
        RunSummary.from_json({**run, "jitter": {**run["jitter"], "stddev_ms": 1.0}})


def test_a_dotted_path_reads_the_field_it_names(run):
    typed = RunSummary.from_json(run)
    assert summary_field(typed, "jitter.samples") == run["jitter"]["samples"]
    assert summary_field(typed, "host.cpu_util_pct") == run["host"]["cpu_util_pct"]
    vm, entry = next(iter(run["vms"].items()))
    assert summary_field(typed, f"vms.{vm}.used_pct") == entry["used_pct"]  # a flattened field


def test_an_unknown_dotted_path_names_the_field_and_those_there_are(run):
    typed = RunSummary.from_json(run)
    with pytest.raises(LookupError) as error:
        summary_field(typed, "jitter.p95_ms")
    assert str(error.value) == ("jitter.p95_ms: jitter has no 'p95_ms'; it has measuring_conference, "
                                "samples, mean_ms, p99_ms, definition")
