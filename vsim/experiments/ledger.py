"""The design choices of the calibrated model that were tried against the studies' claims.

A model parameter compared with a claim says so itself (``fitted_to`` in its
model file). A *design choice* — a mechanism kept, a rule picked among
alternatives — can be selected on a claim just as well, without any number
being fitted. ``models/design_choices.toml`` lists each such choice with the
alternatives tried, the claims looked at and why it was kept, so that the
comparison table can mark every claim a choice was selected on, and the
calibration ledger page (``vsim.experiments.ledger_page``) shows the same table for people.
"""

from dataclasses import dataclass

from vsim.core.errors import InputError
from vsim.config.models import DEFAULT_MODELS_DIR
from vsim.config.toml_io import load_toml

CHOICES_FILE = "design_choices.toml"
FIELDS = ("name", "chosen", "alternatives", "claims", "why")


@dataclass(frozen=True)
class DesignChoice:
    """One choice: its short name, what was chosen, what else was tried, the claims looked at, why."""

    name: str
    chosen: str
    alternatives: tuple
    claims: tuple
    why: str


def load_design_choices(models_dir=DEFAULT_MODELS_DIR):
    """Every ``[[choice]]`` of ``models/design_choices.toml``, in file order."""
    path = models_dir / CHOICES_FILE
    choices = []
    for index, entry in enumerate(load_toml(path).get("choice", [])):
        missing = [name for name in FIELDS if name not in entry]
        unknown = sorted(set(entry) - set(FIELDS))
        if missing or unknown:
            raise InputError(path, f"choice[{index}]",
                             f"expected the keys {', '.join(FIELDS)}"
                             + (f"; missing {', '.join(missing)}" if missing else "")
                             + (f"; unknown {', '.join(unknown)}" if unknown else ""))
        choices.append(DesignChoice(entry["name"], entry["chosen"], tuple(entry["alternatives"]),
                                    tuple(entry["claims"]), entry["why"]))
    return choices


def selected_on(choices):
    """Claim id -> names of the design choices selected on it (in file order)."""
    marks = {}
    for choice in choices:
        for claim in choice.claims:
            marks.setdefault(claim, []).append(choice.name)
    return marks
