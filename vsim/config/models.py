"""Component models: parameter files in ``models/`` with their provenance.

A model file has a ``[meta]`` table and one ``[params.NAME]`` table per
parameter holding ``value`` and exactly one of ``source`` (where the number
comes from) or ``fitted_to`` (the claim ids it was fitted to). Values are then
validated into the typed dataclasses of ``vsim.config.schema_models``. A ref's
folder says which kind of model it is (``MODEL_KINDS``), so a ref of another kind
than the key wants (a host model as the scheduler) is refused by name, before its
parameters are read.
"""

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from vsim.config.data_dirs import data_root
from vsim.config.readable import confine, is_file
from vsim.core.errors import InputError, excerpt
from vsim.config.claims import claim_ids
from vsim.config import schema_models
from vsim.config.schema_cluster import ClusterModel
from vsim.config.toml_io import load_toml
from vsim.config.typed import from_dict

DEFAULT_MODELS_DIR = data_root() / "models"

MODEL_KINDS = {  # the folder of models/ that holds each kind of model
    "hosts": schema_models.HostModel,
    "schedulers": schema_models.SchedulerModel,
    "nics": schema_models.NicModel,
    "vnics": schema_models.VnicModel,
    "codecs": schema_models.CodecModel,
    "workloads": schema_models.MediaServerModel,
    "clients": schema_models.ClientModel,
    "sip_servers": schema_models.SipServerModel,
    "tcp_receivers": schema_models.TcpReceiverModel,
    "disk_benchmarks": schema_models.DiskBenchmarkModel,
    "web_apps": schema_models.WebAppModel,
    "jvm_gc": schema_models.JvmGcModel,
    "netstacks": schema_models.NetStackModel,
    "clusters": ClusterModel,
}


def params_kind(params):
    """The kind (a ``MODEL_KINDS`` folder) of a model whose ``[params]`` are ``params``: the first
    that has every one of them, else None."""
    for kind, cls in MODEL_KINDS.items():
        if set(params) <= {field.name for field in dataclasses.fields(cls)}:
            return kind
    return None


@dataclass(frozen=True)
class Model:
    """A loaded component model: typed values plus each parameter's provenance."""

    ref: str
    path: Path
    values: object
    provenance: dict

    def fitted_claims(self):
        """Claim ids any parameter of this model was fitted to."""
        return {claim for origin in self.provenance.values()
                if isinstance(origin, list) for claim in origin}


def model_path(models_dir, ref):
    """The TOML file of model ``ref`` (``"hosts/dell_r710_x5690"``) under ``models_dir``."""
    return Path(models_dir) / f"{ref}.toml"


def load_model(models_dir, ref, cls, *, referrer="scenario", key="model", base=None, given=False,
               outside_hint=None):
    """Load ``models/<ref>.toml`` and validate its values into ``cls``; a ref of another kind than
    ``cls``, or one that names no file, is an ``InputError`` blaming ``referrer`` and ``key`` and
    listing the models of the kind wanted. A ref ending in ``.toml`` is a model file of the
    user's own: a path, relative to ``base`` (the referring file's folder) unless absolute, and
    inside that folder or ``models_dir`` unless ``given`` on the command line
    (``vsim.config.readable``). A ref never leaves ``models_dir``. ``outside_hint`` says how to
    read a model file outside anyway, where ``--set`` cannot name it (a model file's own codec,
    a cluster file's models)."""
    folders = [folder for folder, kind in MODEL_KINDS.items() if kind is cls]
    wanted = f"a {folders[0].removesuffix('s')} model ({folders[0]}/NAME)" if folders else "a model"
    if ref.endswith(".toml"):
        path = Path(base or ".") / ref
        if not given:
            confine(path, ref, [Path(base or "."), Path(models_dir)], referrer, key, "a model file",
                    outside_hint)
        if not is_file(path):
            raise InputError(referrer, key, f"no model file {path}; expected {wanted} or the path of a "
                                            f"model file of your own, relative to {referrer}'s folder")
    else:
        confine(model_path(models_dir, ref), ref, [Path(models_dir)], referrer, key, "a model ref",
                "a ref names a model of vsim's models; a model file of your own is named by its path, "
                "NAME.toml")
        folder = ref.split("/")[0]
        if folders and folder in MODEL_KINDS and folder not in folders:
            raise InputError(referrer, key, f"expected {wanted}, {_available(models_dir, folders)}; got "
                                            f"'{ref}', a {folder.removesuffix('s')} model")
        path = model_path(models_dir, ref)
        if not is_file(path):
            raise InputError(referrer, key, f"no model '{ref}' in {models_dir}; expected {wanted} (or the path "
                                            f"of a model file of your own, NAME.toml), "
                                            f"{_available(models_dir, folders)}")
    data = load_toml(path)
    params = data.get("params")
    if not isinstance(params, dict):
        raise InputError(path, "params", "expected [params.NAME] tables")
    extra = set(data) - {"meta", "params"}
    if extra:
        raise InputError(path, excerpt(sorted(extra)[0]), "unknown table; expected [meta] and [params.NAME]")
    _check_meta(path, data.get("meta", {}))
    kind = params_kind(params) if ref.endswith(".toml") else None  # vsim's own: its folder says
    if kind is not None and MODEL_KINDS[kind] is not cls:
        raise InputError(referrer, key, f"expected {wanted} or a file of one, got {path}, whose parameters "
                                        f"are those of a {kind.removesuffix('s')} model")
    values, provenance = {}, {}
    for name, entry in params.items():
        where = f"params.{excerpt(name)}"
        if not isinstance(entry, dict) or "value" not in entry:
            raise InputError(path, where, "expected a table with 'value' and 'source' or 'fitted_to'")
        unknown = set(entry) - {"value", "source", "fitted_to"}
        if unknown:
            raise InputError(path, f"{where}.{excerpt(sorted(unknown)[0])}",
                             "unknown key; expected value, source or fitted_to")
        has_source, has_fit = "source" in entry, "fitted_to" in entry
        if has_source == has_fit:
            raise InputError(path, where, "expected exactly one of 'source' or 'fitted_to'")
        origin = entry["fitted_to"] if has_fit else entry["source"]
        if has_fit and not (isinstance(origin, list) and all(isinstance(c, str) for c in origin)):
            raise InputError(path, f"{where}.fitted_to", "expected a list of claim ids")
        unknown_claims = [c for c in origin if not c.startswith("measured.") and c not in claim_ids()] \
            if has_fit else []
        if unknown_claims:
            raise InputError(path, f"{where}.fitted_to", f"expected ids of paper_claims.toml's claims or "
                             f"measured.SET.TRACE, got {excerpt(repr(unknown_claims[0]))}")
        values[name] = entry["value"]
        provenance[name] = list(origin) if has_fit else str(origin)
    typed = from_dict(cls, values, source=str(path), path="params")
    return Model(ref=ref, path=path, values=typed, provenance=provenance)


def _check_meta(path, meta):
    """Refuse a ``[meta]`` table that is not one optional ``description`` string: a misspelt key
    (``desription``) would otherwise vanish from ``vsim describe`` without a word."""
    if not isinstance(meta, dict):
        raise InputError(path, "meta", "expected a table [meta] with description = \"...\"")
    unknown = sorted(set(meta) - {"description"})
    if unknown:
        raise InputError(path, f"meta.{excerpt(unknown[0])}", "unknown key; expected description")
    if not isinstance(meta.get("description", ""), str):
        raise InputError(path, "meta.description", f"expected a string, got {excerpt(repr(meta['description']))}")



def _available(models_dir, folders):
    """'one of: ...' listing the models in ``folders`` of ``models_dir``, or where none were found.
    Only those folders are listed: a models folder given by mistake (the current directory) may
    hold any number of unrelated files."""
    found = [path for folder in folders for path in sorted((Path(models_dir) / folder).glob("*.toml"))]
    if not found:
        return "none found in " + ", ".join(f"{Path(models_dir) / folder}/" for folder in folders)
    return "one of: " + ", ".join(path.relative_to(models_dir).with_suffix("").as_posix()
                                  for path in found)
