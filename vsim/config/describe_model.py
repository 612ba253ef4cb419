"""The text ``vsim describe MODEL`` prints: a model's parameters and where each value comes from.

A model ref ``<folder>/<name>`` names a file of ``models/``; its folder says which typed model
it is (``MODEL_KINDS``). Each parameter the model sets is listed with its value and unit, what
it means (the schema's doc) and its provenance: the source it was taken from, or the claims it
was fitted to, so a reader can check every number a simulation uses. Parameters of another
policy than the model's (a scheduler model sets only its own) are left out.
"""

import dataclasses
from pathlib import Path

from vsim.core.errors import InputError, did_you_mean
from vsim.config.describe_config import toml_text
from vsim.config.models import DEFAULT_MODELS_DIR, MODEL_KINDS, load_model, params_kind
from vsim.config.toml_io import load_toml


def model_file_ref(path):
    """(models folder, ref) of a model file ``<models>/<folder>/<name>.toml`` whose folder is one
    of ``MODEL_KINDS`` (``models/codecs/g729.toml``), else None: such a file is a model, not a
    config. A ref written as a file name (``workloads/vmcd_g729.toml``) that names no file here is
    the ref in vsim's own models."""
    path = Path(path)
    if path.suffix != ".toml" or path.parent.name not in MODEL_KINDS:
        return None
    ref = f"{path.parent.name}/{path.stem}"
    if not path.is_file() and str(path.parent) == path.parent.name:  # a ref written with .toml
        return DEFAULT_MODELS_DIR, ref
    return path.parent.parent, ref


def own_model_kind(path):
    """The kind (a ``MODEL_KINDS`` folder) of a model file kept outside such a folder: the first
    kind that has every parameter its ``[params]`` sets; None for a file with tables other than
    ``[meta]`` and ``[params]`` (a config)."""
    data = load_toml(path)
    if "params" not in data or not set(data) <= {"meta", "params"} or not isinstance(data["params"], dict):
        return None
    kind = params_kind(data["params"])
    if kind is None:
        nearest = max(MODEL_KINDS, key=lambda name: len(set(data["params"]) & _parameters(name)))
        stray = sorted(set(data["params"]) - _parameters(nearest))[0]
        hint = did_you_mean(stray, _parameters(nearest))
        raise InputError(path, f"params.{stray}", f"unknown parameter of a {nearest.removesuffix('s')} model "
                         f"(the kind nearest its other parameters); "
                         + (hint or f"expected one of: {', '.join(sorted(_parameters(nearest)))}"))
    return kind


def _parameters(kind):
    """The names of the parameters a model of ``kind`` (a ``MODEL_KINDS`` folder) may set."""
    return {field.name for field in dataclasses.fields(MODEL_KINDS[kind])}


def describe_model(ref, models_dir=DEFAULT_MODELS_DIR, kind=None):
    """The text of ``vsim describe <folder>/<name>`` (or of a model file of the user's own, a path
    ``ref`` ending in .toml, of ``kind``): the model's file, description, and each of its
    parameters with its value, unit, meaning and where the value comes from."""
    kind = kind or ref.split("/")[0]
    if kind not in MODEL_KINDS:
        raise InputError(ref, None, "expected a config file (*.toml) or a model ref <folder>/<name> with "
                         f"folder one of: {', '.join(MODEL_KINDS)}")
    model = load_model(models_dir, ref, MODEL_KINDS[kind], referrer="describe", key="TARGET",
                       given=True)  # a file named on the command line
    lines = [f"{ref}  ({model.path})"]
    description = load_toml(model.path).get("meta", {}).get("description")
    if description:
        lines.append(f"  {description}")
    for field in dataclasses.fields(MODEL_KINDS[kind]):
        if field.name not in model.provenance:  # a parameter of another policy than this model's
            continue
        unit = field.metadata.get("unit")
        doc = field.metadata.get("doc")
        value = toml_text(getattr(model.values, field.name)) + (f" {unit}" if unit else "")
        lines.append(f"  {field.name} = {value}" + (f"  ({doc})" if doc else ""))
        origin = model.provenance[field.name]
        fitted = isinstance(origin, list)
        lines.append(f"      fitted to: {', '.join(origin)}" if fitted else f"      source: {origin}")
    return "\n".join(lines)
