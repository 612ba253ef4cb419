"""Load a scenario file: TOML, command-line overrides, typed validation, models.

The result is a ``Loaded`` scenario: the typed ``Scenario`` plus the typed
component models it references, checked against each other (vCPUs against
logical CPUs, reservations against capacity, affinity against the topology).
"""

import hashlib
import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from vsim.core.errors import InputError, did_you_mean
from vsim.experiments.claims import study_names
from vsim.net.sources import SOURCES, make_source
from vsim.scenario import schema_models
from vsim.scenario.cgroups import check_cgroup_settings
from vsim.scenario.cpu_settings import limit_beyond_vcpus
from vsim.scenario.host_steal import check_trace_cpus
from vsim.scenario.models import DEFAULT_MODELS_DIR, load_model
from vsim.scenario.named_tables import (document_table_names, named_where, naming_tables,
                                        scenario_table_names, split_named_key, with_named_value)
from vsim.scenario.netioc import netioc_tree
from vsim.scenario.override_source import blaming_overrides, depending_on
from vsim.scenario.schema_scenario import Scenario
from vsim.scenario.schema_sweep import MODEL_REF_KEYS
from vsim.scenario.toml_io import apply_overrides, load_toml
from vsim.scenario.typed import check_field, fail, from_dict, scalar_fields
from vsim.validate.steal_trace import read_steal_trace


@dataclass(frozen=True)
class Loaded:
    """A validated scenario with its component models and, when ``host.steal_trace`` names one,
    the steal trace read and checked (``vsim.validate.steal_trace.StealTrace``)."""

    source: str
    scenario: Scenario
    models: dict
    steal: Any = None
    models_dir: Path = DEFAULT_MODELS_DIR

    def fitted_claims(self):
        """Claim ids that any parameter of the scenario's models was fitted to."""
        return set().union(*(m.fitted_claims() for m in self.models.values()))

    def model_files(self):
        """Per role, the model file the scenario ran with: its ref and the start of its SHA-256,
        so a result can be traced to the models' exact contents after a file is edited."""
        return {role: f"{model.ref} sha256:{hashlib.sha256(model.path.read_bytes()).hexdigest()[:12]}"
                for role, model in sorted(self.models.items())}

    def with_value(self, key, value):
        """The same scenario with one dotted key (``vm.instances``, ``params.host.ht_rate``)
        changed and re-checked."""
        changed, models = with_point(self.scenario, self.models, key, value, self.source, self.models_dir)
        with naming_tables(self.source, scenario_table_names(changed)):
            check_against_models(changed, models, self.source, self.models_dir)
        return replace(self, scenario=changed, models=models)


def load_scenario(path, overrides=(), models_dir=DEFAULT_MODELS_DIR, sweep_points=True):
    """Read, override, validate and resolve the scenario at ``path``; an error at a key that
    ``overrides`` set names that ``--set``. Without ``sweep_points`` the points of its
    ``[sweep]`` are not checked one by one (``vsim run`` runs the file's own point only)."""
    source = str(path)
    data = apply_overrides(load_toml(path), list(overrides))
    with blaming_overrides(source, overrides), naming_tables(source, document_table_names(data)):
        scenario = from_dict(Scenario, data, source=source)
        check_study(scenario, source)
        models = apply_params(resolve_models(scenario, source, Path(models_dir)), scenario.params, source)
        checked = scenario if sweep_points else replace(scenario, sweep=None)
        check_against_models(checked, models, source, Path(models_dir))
        steal = steal_trace(scenario, source)
        check_trace_cpus(steal, logical_cpus(scenario, models["host"].values), source)
    return Loaded(source=source, scenario=scenario, models=models, steal=steal, models_dir=Path(models_dir))


def check_study(scenario, source):
    """A scenario that names a ``study`` names one of the claims file's (``study_names``)."""
    if scenario.study is not None and scenario.study not in study_names():
        fail(source, "study", f"expected a study of the claims file ({', '.join(study_names())}), "
             f"got {scenario.study!r}")


def steal_trace(scenario, source):
    """The steal trace that ``host.steal_trace`` names, relative to the scenario file (None: none);
    ``InputError`` when the file is missing or is not a well-formed steal trace."""
    name = scenario.host.steal_trace
    if name is None:
        return None
    path = Path(source).parent / name
    if not path.is_file():
        fail(source, "host.steal_trace", f"expected a steal trace file (vsim probe steal), relative to "
             f"this file; {path} is not a file")
    return read_steal_trace(path)


def apply_params(models, params, source):
    """The models with a scenario's ``[params.ROLE]`` values in place of their files' values.

    Each changed parameter's provenance says the scenario set it, so a fitted
    parameter that a scenario changes no longer counts as fitted for its claims.
    """
    changed = dict(models)
    for role, values in params.items():
        if role not in schema_models.MODEL_ROLES:
            fail(source, f"params.{role}", _unknown("a model role", role, list(schema_models.MODEL_ROLES)))
        model = models[role]
        cls = type(model.values)
        names = scalar_fields(cls)
        typed, provenance = {}, dict(model.provenance)
        for name, value in values.items():
            key = f"params.{role}.{name}"
            if name not in names:
                fail(source, key, _unknown(f"a number or true/false parameter of {model.ref}", name, names))
            typed[name] = check_field(cls, name, value, source=source, path=key)
            provenance[name] = f"set by {source} ({key})"
        values = replace(model.values, **typed)
        validate = getattr(values, "validate", None)
        if callable(validate):  # the model's cross-field checks, on the changed values
            validate(source, f"params.{role}")
        changed[role] = replace(model, values=values, provenance=provenance)
    return changed


def _unknown(what, name, names):
    hint = did_you_mean(name, names) or f"expected one of: {', '.join(names)}"
    return f"'{name}' is not {what}; {hint}"


def resolve_models(scenario, source, models_dir):
    """Load every component model the scenario names, keyed by role."""
    def model(ref, cls, key):
        return load_model(models_dir, ref, cls, referrer=source, key=key, base=Path(source).parent)

    models = {
        "host": model(scenario.host.model, schema_models.HostModel, "host.model"),
        "scheduler": model(scenario.host.scheduler, schema_models.SchedulerModel, "host.scheduler"),
        "nic": model(scenario.host.nic, schema_models.NicModel, "host.nic"),
        "vnic": model(scenario.vm.vnic, schema_models.VnicModel, "vm.vnic"),
        "workload": model(scenario.vm.workload, schema_models.MediaServerModel, "vm.workload"),
        "client": model(scenario.client.model, schema_models.ClientModel, "client.model"),
    }
    servers = [("vm.workload", models["workload"])] if scenario.vm.instances else []
    for index, group in enumerate(scenario.group):
        where = f"group[{index}]"
        models[group_role(group.name, "vnic")] = model(group.vnic, schema_models.VnicModel, f"{where}.vnic")
        if group.workload == "media_server":
            own = model(group.model, schema_models.MediaServerModel, f"{where}.model")
            servers.append((f"group.{group.name}.model", own))
            models[group_role(group.name, "workload")] = own
    models["codec"] = _common_codec(servers or [("vm.workload", models["workload"])], source, models_dir)
    return models


def _common_codec(servers, source, models_dir):
    """The codec every media server of the scenario sends: the first one's (``servers`` holds
    (key, workload model) of [vm], when it has instances, then of each media-server group), which
    every other must share, one frame size serving the whole host."""
    first_key, first = servers[0]
    for key, workload in servers[1:]:
        if workload.values.codec != first.values.codec:
            fail(source, key, f"expected a workload with the codec of {first_key} ({first.values.codec}): "
                              f"one frame size for every media server, got {workload.values.codec}")
    return load_model(models_dir, first.values.codec, schema_models.CodecModel,
                      referrer=str(first.path), key="params.codec", base=first.path.parent)


def group_role(name, role):
    """Key of a [[group]]'s own model in ``Loaded.models``: ``group.NAME.ROLE``."""
    return f"group.{name}.{role}"


def logical_cpus(scenario, host):
    """Logical CPUs the scenario's host has: every core's threads, or one per core with
    hyper-threading off."""
    threads = host.threads_per_core if scenario.host.hyperthreading else 1
    return host.sockets * host.cores_per_socket * threads


def check_against_models(scenario, models, source, models_dir=DEFAULT_MODELS_DIR):
    """Cross-checks that need both the scenario and its host: a refusal names a ``--set`` of
    the host's model, hyper-threading, scheduler or NIC it rests on."""
    with depending_on("host.model", "host.hyperthreading"):
        _check_against_host(scenario, models, source)
    if not scenario.vm.instances and not scenario.group:
        fail(source, "vm.instances", "expected at least one VM to simulate: vm.instances >= 1 or a "
             "[[group]] of VMs, and this scenario has neither")
    with depending_on("host.scheduler"):
        check_cgroup_settings(scenario, models["scheduler"].values, source)
    with depending_on("host.model", "host.hyperthreading"):
        check_groups(scenario, logical_cpus(scenario, models["host"].values), source)
    scenario.check_uplink(source)
    with depending_on("host.nic"):
        check_unshaped_nic(scenario, models["nic"].values, source)
        if scenario.netioc.node:
            netioc_tree(scenario, models["nic"].values.rate_bps, source)
    if scenario.host.numa_home_nodes:
        with depending_on("host.model", "host.hyperthreading"):
            check_home_nodes(scenario, models["host"].values, logical_cpus(scenario, models["host"].values),
                             source)
    if scenario.sweep is not None:
        check_sweep_points(scenario, models, source, models_dir)


def _check_against_host(scenario, models, source):
    """The VMs' vCPUs, affinities and CPU settings fit the host's logical CPUs."""
    lcpus = logical_cpus(scenario, models["host"].values)
    vm = scenario.vm
    if vm.vcpus > lcpus:
        fail(source, "vm.vcpus", f"expected at most {lcpus} vCPUs (the host's logical CPUs), got {vm.vcpus}")
    if vm.affinity is not None:
        bad = [c for c in vm.affinity if c >= lcpus]
        if bad:
            fail(source, "vm.affinity", f"expected logical CPUs 0..{lcpus - 1}, got {bad[0]}")
        if vm.vcpus > len(vm.affinity):
            fail(source, "vm.affinity", f"expected at least as many logical CPUs as vCPUs ({vm.vcpus}), "
                 f"got {len(vm.affinity)}")
    check_cpu_settings(scenario, lcpus, source)


def check_unshaped_nic(scenario, nic, source):
    """A NIC model with no rate of its own (a veth) carries traffic only under htb, whose
    classes set the rates; any other uplink would serve at an infinite rate."""
    if math.isinf(nic.rate_bps) and scenario.host.uplink != "htb":
        fail(source, "host.uplink", f'expected "htb" on the NIC model {scenario.host.nic} (it has no '
             f'rate of its own: rate_bps = inf), got {scenario.host.uplink!r}')


def check_cpu_settings(scenario, lcpus, source):
    """Reservations within one VM's vCPUs and the host's capacity, and no limit
    below a reservation, the measured VM's own settings ([measured_vm]) included;
    [measured_vm] only where [vm] has a VM for it to set."""
    vm = scenario.vm
    own = scenario.measured_vm.overrides()
    if own and not vm.instances:
        fail(source, f"measured_vm.{next(iter(own))}",
             "expected [vm] instances > 0: [measured_vm] sets [vm]'s first VM, and [vm] has none")
    measured = scenario.vm_settings(0)
    for key, reservation in (("vm.reservation", vm.reservation),
                             ("measured_vm.reservation", measured.reservation)):
        if reservation > vm.vcpus:
            fail(source, key, f"expected at most {vm.vcpus} CPUs (one per vCPU), got {reservation}")
    for key, limit in (("vm.limit", vm.limit), ("measured_vm.limit", measured.limit)):
        if limit is not None and limit > vm.vcpus:
            fail(source, key, limit_beyond_vcpus(vm.vcpus, limit))
    if own.keys() & {"limit", "reservation"} and measured.limit is not None \
            and measured.limit < measured.reservation:
        fail(source, "measured_vm.limit" if "limit" in own else "measured_vm.reservation",
             f"expected the measured VM's limit ({measured.limit}) >= its reservation "
             f"({measured.reservation})")
    if vm.instances and measured.reservation + vm.reservation * (vm.instances - 1) > lcpus:
        if "reservation" in own:
            fail(source, "measured_vm.reservation", f"expected reservations within capacity: "
                 f"{measured.reservation} CPUs for the measured VM and {vm.instances - 1} x "
                 f"{vm.reservation} for the others exceed the host's {lcpus} logical CPUs")
        fail(source, "vm.reservation", f"expected reservations within capacity: {vm.instances} x "
             f"{vm.reservation} CPUs exceeds the host's {lcpus} logical CPUs")


def check_groups(scenario, lcpus, source):
    """Each [[group]] has a name of its own and its VMs fit the host, and all VMs'
    reservations fit its capacity."""
    names = [group.name for group in scenario.group]
    for index, name in enumerate(names):
        if name in names[:index]:
            fail(source, f"group[{index}].name", f"expected a group name used once, got {name!r}")
    vm = scenario.vm
    reserved = (scenario.vm_settings(0).reservation + vm.reservation * (vm.instances - 1)
                if vm.instances else 0.0)
    for index, group in enumerate(scenario.group):
        if group.vcpus > lcpus:
            fail(source, f"group[{index}].vcpus", f"expected at most {lcpus} vCPUs (the host's "
                 f"logical CPUs), got {group.vcpus}")
        if group.traffic is not None:
            check_traffic(group, f"group[{index}]", source)
        reserved += group.reservation * group.count
        if reserved > lcpus:
            fail(source, f"group[{index}].reservation", f"expected reservations within capacity: "
                 f"the VMs' reservations up to this group exceed the host's {lcpus} logical CPUs")
    if scenario.group and scenario.host.numa_home_nodes:
        fail(source, "host.numa_home_nodes", "expected no NUMA home nodes with [[group]] VMs "
             "(home nodes are dealt to [vm]'s identical VMs only)")


def check_traffic(group, where, source):
    """A group's traffic: a source of the registry, from an idle VM, with its parameters."""
    kind = group.traffic.kind
    if kind not in SOURCES:
        fail(source, f"{where}.traffic.kind", did_you_mean(str(kind), sorted(SOURCES))
             or f"expected one of {', '.join(sorted(SOURCES))}, got {kind!r}")
    if group.workload != "idle":
        fail(source, f"{where}.traffic", "expected traffic from an idle VM only (a media "
             "server's traffic is its frames)")
    make_source(kind, group.traffic.params, source, f"{where}.traffic.params",
                np.random.default_rng(0))  # its own checks of the parameters


def with_point(scenario, models, key, value, source, models_dir=DEFAULT_MODELS_DIR):
    """(scenario, models) with the dotted ``key`` set to ``value``: a scenario key
    (``vm.instances``), a key of a named table of an array (``group.flood.count``,
    ``netioc.node.voip.shares``), a model parameter (``params.host.ht_rate``), which changes
    the model too, or a key naming a model (``host.scheduler``), whose models are loaded again
    from ``models_dir`` with the scenario's [params] applied."""
    if key in MODEL_REF_KEYS:
        section, name = key.split(".")
        changed = replace(scenario, **{section: replace(getattr(scenario, section), **{name: value})})
        return changed, apply_params(resolve_models(changed, source, models_dir), changed.params, source)
    if key.startswith("params."):
        _, role, name = key.split(".")
        params = dict(scenario.params)
        params[role] = dict(params.get(role, {}), **{name: value})
        return (replace(scenario, params=params),
                apply_params(models, {role: {name: value}}, source))
    named = split_named_key(key)
    if named is not None:
        return with_named_value(scenario, named, value, source, "sweep.key"), models
    section, name = key.split(".")
    return replace(scenario, **{section: replace(getattr(scenario, section), **{name: value})}), models


def check_sweep_points(scenario, models, source, models_dir=DEFAULT_MODELS_DIR):
    """Every point of the sweep must pass the cross-checks, so no run fails halfway through."""
    key = scenario.sweep.key
    for index, value in enumerate(scenario.sweep.values):
        loads_models = key in MODEL_REF_KEYS
        if not loads_models:  # a table the key names but the scenario lacks: the key's fault
            point, point_models = with_point(scenario, models, key, value, source, models_dir)
        try:
            if loads_models:  # a model the point names but cannot load: the point's fault
                point, point_models = with_point(scenario, models, key, value, source, models_dir)
            check_against_models(replace(point, sweep=None), point_models, source, models_dir)
        except InputError as error:
            shown = str(value).lower() if isinstance(value, bool) else value
            where = named_where(error.where, scenario_table_names(scenario))
            fail(source, f"sweep.values[{index}]", f"at {key} = {shown}, {where}: {error.expected}")


def _vms_per_node(instances, host):
    """VMs on the busiest home node when ``instances`` VMs are dealt round-robin."""
    return -(-instances // host.sockets)


def _node_reservations(scenario, host):
    """CPUs reserved on each home node, the VMs dealt round-robin over the sockets."""
    reserved = [0.0] * host.sockets
    for index in range(scenario.vm.instances):
        reserved[index % host.sockets] += scenario.vm_settings(index).reservation
    return reserved


def check_home_nodes(scenario, host, lcpus, source):
    """A VM must fit its home node, and the node's VMs' reservations its logical CPUs."""
    vm = scenario.vm
    per_node = lcpus // host.sockets
    if vm.affinity is not None:
        fail(source, "host.numa_home_nodes", "expected no vm.affinity with NUMA home nodes "
             "(a VM with CPU affinity is not placed by the NUMA scheduler)")
    if vm.vcpus > per_node:
        fail(source, "vm.vcpus", f"expected at most {per_node} vCPUs with NUMA home nodes (one "
             f"socket's logical CPUs; VMs wider than a node are not modelled), got {vm.vcpus}")
    if max(_node_reservations(scenario, host)) > per_node:
        measured = scenario.measured_vm.reservation
        key = "vm.reservation" if measured is None else "measured_vm.reservation"
        fail(source, key, f"expected the reservations of one NUMA home node's "
             f"{_vms_per_node(vm.instances, host)} VMs within its {per_node} logical CPUs, "
             f"got {vm.reservation} CPUs each"
             + ("" if measured is None else f" and {measured} for the measured VM"))
