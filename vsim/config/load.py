"""Read a scenario file: TOML, command-line overrides, typed validation, models.

The result is a ``Loaded`` scenario: the typed ``Scenario`` plus the typed
component models it references and the steal trace it names. Checking it
against those models (vCPUs against logical CPUs, reservations against
capacity) is the build stage's job: ``vsim.build.load.load_scenario`` reads
and checks in one call, and is what commands use.
"""

import hashlib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Optional

from vsim.config import schema_models
from vsim.config.claims import study_names
from vsim.config.models import DEFAULT_MODELS_DIR, load_model
from vsim.config.named_tables import naming_tables, scenario_table_names, split_named_key, with_named_value
from vsim.config.readable import confine, given_on_command_line, is_file
from vsim.config.schema_cluster import is_cluster_file
from vsim.config.schema_scenario import Scenario
from vsim.config.schema_sweep import MODEL_REF_KEYS, names_a_model
from vsim.config.typed import check_field, fail, from_dict, scalar_fields
from vsim.config.value_origins import FROM_CONFIG, ValueOrigins
from vsim.core.errors import InputError, did_you_mean
from vsim.traces.steal_trace import read_steal_trace

# checker(scenario, models, source, models_dir): raises InputError where they disagree
Checker = Callable[[Scenario, dict, str, Path], None]


@dataclass(frozen=True)
class Loaded:
    """A validated scenario with its component models and, when ``host.steal_trace`` names one,
    the steal trace read and checked (``vsim.traces.steal_trace.StealTrace``).

    ``checker`` is the cross-check against the models that every changed point
    passes (``vsim.build.checks.check_against_models``, given by the build stage's
    ``load_scenario``); None checks nothing more than the schema. ``origins`` says where
    each value came from (``vsim.config.value_origins``); without it every value counts
    as the config's. ``given`` holds the ``--set`` assignments of the command line: a path
    one of them sets is read wherever it is (``vsim.config.readable``).
    """

    source: str
    scenario: Scenario
    models: dict
    steal: Any = None
    models_dir: Path = DEFAULT_MODELS_DIR
    checker: Optional[Checker] = None
    origins: Optional[ValueOrigins] = None
    given: tuple = ()

    def origin(self, key):
        """Where the value of the dotted ``key`` came from: ``--set``, the config or the default."""
        return FROM_CONFIG if self.origins is None else self.origins.of(key)

    def fitted_claims(self):
        """Claim ids that any parameter of the scenario's models was fitted to."""
        return set().union(*(m.fitted_claims() for m in self.models.values()))

    def model_files(self):
        """Per role, the model file the scenario ran with: its ref and the start of its SHA-256,
        so a result can be traced to the models' exact contents after a file is edited."""
        return {role: f"{model.ref} sha256:{hashlib.sha256(model.path.read_bytes()).hexdigest()[:12]}"
                for role, model in sorted(self.models.items())}

    def files_read(self, sweep_points=True):
        """(what, path) of every file the scenario was read from: its config, each model file
        (and, with ``sweep_points``, those the points of a sweep over a model key load), its
        steal trace and the traces its ``packets_replay`` groups replay. No output of the run
        may be one of them."""
        files = [("the config", Path(self.source))]
        loads = [self.models]
        sweep = self.scenario.sweep
        if sweep_points and sweep is not None and any(names_a_model(key) for key in sweep.keys()):
            loads += [self.at(setting).models for setting in sweep.settings()]
        for models in loads:
            files += [(f"the {role} model", model.path) for role, model in sorted(models.items())]
        if self.scenario.host.steal_trace is not None:
            files.append(("host.steal_trace", Path(self.source).parent / self.scenario.host.steal_trace))
        files += [(f"group.{group.name}.traffic.params.trace", Path(self.source).parent / trace)
                  for group, trace in replayed_traces(self.scenario)]
        return files

    def with_value(self, key, value):
        """The same scenario with one dotted key (``vm.instances``, ``params.host.ht_rate``)
        changed and re-checked."""
        return self.at(((key, value),))

    def at(self, setting):
        """The same scenario with each (dotted key, value) of ``setting`` changed, in order, and
        re-checked once they all are (one point of a design of several keys: the keys changed
        one at a time could pass through a scenario that does not hold together)."""
        changed, models = self.scenario, self.models
        for key, value in setting:
            changed, models = with_point(changed, models, key, value, self.source, self.models_dir,
                                         self.given)
        if self.checker is not None:
            with naming_tables(self.source, scenario_table_names(changed)):
                self.checker(changed, models, self.source, self.models_dir)
        return replace(self, scenario=changed, models=models)


def replayed_traces(scenario):
    """(group, trace path as the scenario gives it) of every ``packets_replay`` group."""
    return [(group, group.traffic.params["trace"]) for group in scenario.group
            if group.traffic is not None and group.traffic.kind == "packets_replay"
            and isinstance(group.traffic.params.get("trace"), str)]


def read_scenario(source, data, models_dir=DEFAULT_MODELS_DIR, checker=None, sweep_points=True, given=()):
    """The scenario of the parsed (and overridden) TOML ``data`` read from ``source``: typed,
    its study known, its models resolved with its ``[params]`` and passed through ``checker``
    (every point of its ``[sweep]`` too, unless not ``sweep_points``), its steal trace read.
    ``given`` holds the ``--set`` assignments that overrode ``data``: the paths they set may lie
    anywhere, the file's own only in its folder and vsim's data (``vsim.config.readable``)."""
    given = tuple(given)
    if is_cluster_file(data):
        raise InputError(source, "host", "expected one [host] table: [[host]] tables make a cluster "
                         "file, run by vsim cluster")
    scenario = from_dict(Scenario, data, source=source)
    check_study(scenario, source)
    models = apply_params(resolve_models(scenario, source, Path(models_dir), given), scenario.params, source)
    if checker is not None:
        checker(scenario if sweep_points else replace(scenario, sweep=None), models, source, Path(models_dir))
    steal = steal_trace(scenario, source, given)
    return Loaded(source=source, scenario=scenario, models=models, steal=steal,
                  models_dir=Path(models_dir), checker=checker, given=given)


def check_study(scenario, source):
    """A scenario that names a ``study`` names one of the claims file's (``study_names``)."""
    if scenario.study is not None and scenario.study not in study_names():
        fail(source, "study", f"expected a study of the claims file ({', '.join(study_names())}), "
             f"got {scenario.study!r}")


def steal_trace(scenario, source, given=()):
    """The steal trace that ``host.steal_trace`` names, relative to the scenario file (None: none),
    inside its folder unless ``given`` on the command line; ``InputError`` when the file is
    outside, missing or not a well-formed steal trace."""
    name = scenario.host.steal_trace
    if name is None:
        return None
    path = Path(source).parent / name
    if not given_on_command_line(["host.steal_trace"], given):
        confine(path, name, [Path(source).parent], source, "host.steal_trace", "a steal trace")
    if not is_file(path):
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


def resolve_models(scenario, source, models_dir, given=()):
    """Load every component model the scenario names, keyed by role; a model file's path that
    one of ``given`` (``--set`` assignments) set may lie anywhere (``vsim.config.readable``)."""
    def model(ref, cls, key, *spelt):
        return load_model(models_dir, ref, cls, referrer=source, key=key, base=Path(source).parent,
                          given=given_on_command_line([key, *spelt], given))

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
        models[group_role(group.name, "vnic")] = model(group.vnic, schema_models.VnicModel, f"{where}.vnic",
                                                       f"group.{group.name}.vnic")
        if group.stack is not None:
            models[group_role(group.name, "stack")] = model(group.stack, schema_models.NetStackModel,
                                                            f"{where}.stack", f"group.{group.name}.stack")
        if group.workload == "media_server":
            own = model(group.model, schema_models.MediaServerModel, f"{where}.model",
                        f"group.{group.name}.model")
            servers.append((f"group.{group.name}.model", own))
            models[group_role(group.name, "workload")] = own
        elif group.workload in ("tcp_receiver", "disk_benchmark"):
            kind = (schema_models.TcpReceiverModel if group.workload == "tcp_receiver"
                    else schema_models.DiskBenchmarkModel)
            models[group_role(group.name, "workload")] = model(
                group.model, kind, f"{where}.model", f"group.{group.name}.model")
        elif group.workload == "web_app":
            models[group_role(group.name, "workload")] = model(
                group.model, schema_models.WebAppModel, f"{where}.model", f"group.{group.name}.model")
        elif group.workload == "sip_server":
            models[group_role(group.name, "workload")] = model(
                group.model, schema_models.SipServerModel, f"{where}.model", f"group.{group.name}.model")
            if group.gc is not None:
                models[group_role(group.name, "gc")] = model(
                    group.gc, schema_models.JvmGcModel, f"{where}.gc", f"group.{group.name}.gc")
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
                      referrer=str(first.path), key="params.codec", base=first.path.parent,
                      outside_hint="a model file reads no file outside its own folder and vsim's models; "
                                   "to read it, put it beside the model file, or below")


def group_role(name, role):
    """Key of a [[group]]'s own model in ``Loaded.models``: ``group.NAME.ROLE``."""
    return f"group.{name}.{role}"


def logical_cpus(scenario, host):
    """Logical CPUs the scenario's host has (``HostModel.topology`` under its hyper-threading)."""
    return host.topology(scenario.host.hyperthreading).logical_cpus














def with_point(scenario, models, key, value, source, models_dir=DEFAULT_MODELS_DIR, given=()):
    """(scenario, models) with the dotted ``key`` set to ``value``: a scenario key
    (``vm.instances``), a key of a named table of an array (``group.flood.count``,
    ``netioc.node.voip.shares``), a model parameter (``params.host.ht_rate``), which changes
    the model too, or a key naming a model (``host.scheduler``, ``group.proxy.gc``), whose models
    are loaded again from ``models_dir`` with the scenario's [params] applied (a model file's path as
    ``resolve_models`` reads it, with ``given``)."""
    if key in MODEL_REF_KEYS:
        section, name = key.split(".")
        changed = replace(scenario, **{section: replace(getattr(scenario, section), **{name: value})})
        return changed, apply_params(resolve_models(changed, source, models_dir, given), changed.params, source)
    if key.startswith("params."):
        _, role, name = key.split(".")
        params = dict(scenario.params)
        params[role] = dict(params.get(role, {}), **{name: value})
        return (replace(scenario, params=params),
                apply_params(models, {role: {name: value}}, source))
    named = split_named_key(key)
    if named is not None and names_a_model(key):
        changed = with_named_value(scenario, named, value, source, "sweep.key")
        return changed, apply_params(resolve_models(changed, source, models_dir, given), changed.params, source)
    if named is not None:
        return with_named_value(scenario, named, value, source, "sweep.key"), models
    section, name = key.split(".")
    return replace(scenario, **{section: replace(getattr(scenario, section), **{name: value})}), models










