"""The Fig 3 scenario shortened for the scenario tests, and a model value changed in a loaded one."""

from dataclasses import replace
from pathlib import Path

from vsim.build.load import load_scenario

ROOT = Path(__file__).resolve().parents[1]
FIG3 = ROOT / "configs" / "voip-vsphere5" / "fig3.toml"


def fig3(*overrides):
    """Fig 3's scenario as 3 s runs with 0.5 s of warm-up, then ``overrides``."""
    return load_scenario(FIG3, ["run.duration=3", "run.warmup=0.5", *overrides])


def with_model(loaded, role, **values):
    """``loaded`` with the model of ``role`` given ``values`` in place of its own."""
    model = loaded.models[role]
    models = dict(loaded.models, **{role: replace(model, values=replace(model.values, **values))})
    return replace(loaded, models=models)
