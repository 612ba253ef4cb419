"""The run summary's types (``vsim.results.run_summary_types``): written as JSON in their fields'
order, the optional ones where a run has them, read back the same, and read by dotted paths
that name an unknown field and the fields there are."""

import dataclasses
import json
import typing
from functools import cache
from pathlib import Path

import pytest

from vsim.build.load import load_scenario
from vsim.engines.simulation import Simulation
from vsim.results import run_summary_types
from vsim.results.plain_data import INLINED, OPTIONAL, json_keys
from vsim.results.run_summary_types import RunSummary, summary_field

ROOT = Path(__file__).resolve().parents[2]

# Short runs that, between them, have every optional section and key of the summary: an uplink
# with bulk traffic and voice beside it (offered and configured rates), TCP streams (a demand)
# and request/response traffic without a measuring conference, CPU-bound VMs, host tasks, steal and the measured VM's own
# settings, an adaptive jitter buffer's note, a replayed trace's packets and a web application.
RUNS = {
    "voice beside a flood": ("voip-vsphere5/fig6.toml", []),
    "netperf beside TCP streams": ("whatif/netperf_beside_tcp_stream.toml",
                                   ["client.measuring_conference=false"]),
    "CPU-bound neighbours": ("whatif/noisy_neighbours.toml", []),
    "host tasks and steal": ("validation/cpu_cgroups.toml", []),
    "adaptive jitter buffer": ("voip-vsphere5/fig2.toml", ['client.jitter_buffer="adaptive"']),
    "replayed flood": ("whatif/replayed_flood.toml", []),
    "SIP server": ("sip-jvm-gc/fig8.toml", []),
    "SIP appliance and Dom0 under Xen": ("xen-appliances/cfg3.toml", []),
    "SIP appliance beside nttcp through Dom0": ("xen-appliances/cfg5.toml", []),
    "SIP appliance beside IOzone through Dom0": ("xen-appliances/cfg6.toml", []),
    "web application beside TCP streams": ("netioc-vsphere6/exp2_reserved.toml",
                                           ["group.olio.traffic.params.users=30",
                                            "group.olio.traffic.params.think_time=0.5"]),
}


@cache
def summary(name):
    """The summary of run ``name`` of ``RUNS``, 2 s long."""
    config, overrides = RUNS[name]
    return Simulation(load_scenario(ROOT / "configs" / config, overrides), seed=1).run(2.0, 0.5)


@pytest.fixture(params=list(RUNS))
def run(request):
    return summary(request.param)


def test_the_json_holds_the_fields_in_their_order():
    plain = summary("voice beside a flood").to_json()
    assert list(plain) == json_keys(RunSummary)[:len(plain) - 2] + ["uplink", "client_stalls"]
    assert list(plain["vms"]["vm0"]) == json_keys(run_summary_types.MediaVm)


def test_a_summary_read_back_from_its_json_is_the_same(run):
    text = json.dumps(run.to_json(), indent=2)
    again = RunSummary.from_json(json.loads(text))
    assert again == run and json.dumps(again.to_json(), indent=2) == text


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
            if field.metadata.get(INLINED):
                keys.update(json_keys(typing.get_args(hints[field.name])[0]))
            else:
                keys.add(field.name)
    return keys


def test_the_runs_between_them_have_every_optional_key():
    seen = set().union(*(_keys(summary(name).to_json()) for name in RUNS))
    assert _optional_keys() - seen == set()


def test_a_key_the_types_do_not_have_is_refused_by_name(run):
    plain = run.to_json()
    with pytest.raises(ValueError, match="Jitter has no field stddev_ms"):
        RunSummary.from_json({**plain, "jitter": {**plain["jitter"], "stddev_ms": 1.0}})


def test_a_dotted_path_reads_the_field_it_names(run):
    assert summary_field(run, "jitter.samples") == run.jitter.samples
    assert summary_field(run, "host.cpu_util_pct") == run.host.cpu_util_pct
    section = next(name for name in ("vms", "sip", "traffic_vms") if getattr(run, name))
    vm, entry = next(iter(getattr(run, section).items()))
    assert summary_field(run, f"{section}.{vm}.used_pct") == entry.cpu.used_pct  # a field written inline


def test_a_dotted_path_reads_the_conference_while_traffic_runs():
    run = summary("voice beside a flood")
    assert (summary_field(run, "uplink.during_traffic.jitter_mean_ms")
            == run.uplink.during_traffic.conference.jitter_mean_ms)
    with pytest.raises(LookupError, match="uplink.during_traffic has no 'jitter_mean_ms' in this run"):
        summary_field(summary("netperf beside TCP streams"), "uplink.during_traffic.jitter_mean_ms")


def test_a_dotted_path_into_a_section_the_run_lacks_says_so():
    with pytest.raises(LookupError, match="uplink is absent from this run, so it has no groups"):
        summary_field(summary("CPU-bound neighbours"), "uplink.groups")


def test_an_unknown_dotted_path_names_the_field_and_those_there_are(run):
    with pytest.raises(LookupError) as error:
        summary_field(run, "jitter.p95_ms")
    assert str(error.value) == ("jitter.p95_ms: jitter has no 'p95_ms'; it has measuring_conference, "
                                "samples, mean_ms, p99_ms, definition")


def test_indexing_a_summary_as_the_old_dict_still_works_with_a_deprecation_warning(run):
    with pytest.warns(DeprecationWarning, match="indexing a run summary is deprecated"):
        assert run["jitter"] == run.to_json()["jitter"]
