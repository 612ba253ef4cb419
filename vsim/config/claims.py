"""The papers' claims (``paper_claims.toml``, shipped in this package) and simulated values for them.

Each claim is a number or trend a study states, with the band a faithful
model should land in. A study recipe turns simulation results into
``Simulated`` values keyed by claim id; ``in_band`` checks them the way the
project's scoring tool does.
"""

import math
from dataclasses import dataclass
from functools import cache


@dataclass(frozen=True)
class Claim:
    """One claim of ``paper_claims.toml``."""

    id: str
    study: str
    figure: str
    metric: str
    paper: object
    band: list
    note: str = ""


@dataclass(frozen=True)
class Simulated:
    """The simulated value of a claim, its 95% interval where one applies, its sweep and a note
    on how to read the value (empty when there is nothing to say)."""

    value: float | list[float] | None  # None: the runs do not give it (too short, say); a list:
    # a claim of several values (one per VM)
    ci: tuple | None
    sweep: str
    note: str = ""


def load_claims():
    """Every claim of the packaged ``paper_claims.toml``, in file order."""
    import tomllib  # here, with importlib.resources: ``vsim --version`` and most
    from importlib import resources  # ``--help`` pages read no claim
    text = resources.files("vsim.config").joinpath("paper_claims.toml").read_text("utf-8")
    return [Claim(id=c["id"], study=c["study"], figure=c["figure"], metric=c["metric"],
                  paper=c["paper"], band=c["band"], note=c.get("note", ""))
            for c in tomllib.loads(text)["claim"]]


@cache
def study_names():
    """The studies of the claims file, sorted: the names a scenario's ``study`` key may take."""
    return tuple(sorted({claim.study for claim in load_claims()}))


@cache
def claim_ids():
    """Every claim id of the claims file: what a model parameter's ``fitted_to`` may name."""
    return frozenset(claim.id for claim in load_claims())


def in_band(value, band):
    """Whether ``value`` (a number or a list of numbers) lies within ``band``; null never does."""
    if value is None:
        return False
    if isinstance(value, list):
        return (isinstance(band[0], list) and len(band) == len(value)
                and all(in_band(v, b) for v, b in zip(value, band)))
    low, high = band
    return isinstance(value, (int, float)) and not math.isnan(value) and low <= value <= high
