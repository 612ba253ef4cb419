"""The comparison table: paper value, band, simulated value and interval per claim.

Written as Markdown (for people, with the fitted/predicted legend and a
summary line) and CSV (for tools, one row per claim). A claim is *fitted*
when a model parameter was fitted to it, so landing in its band is no
evidence for the model; every other claim is *predicted*.
"""

import csv
import io
import math
from dataclasses import dataclass

from vsim.core.atomic import write_text
from vsim.experiments.claims import Claim, in_band

LEGEND = "fitted = a model parameter was fitted to this claim (see models/); predicted = everything else"
COLUMNS = ("id", "figure", "paper", "band", "simulated", "ci_low", "ci_high", "in_band", "kind")


@dataclass(frozen=True)
class Row:
    """One claim with its simulated value (None when not modelled) and the config behind it."""

    claim: Claim
    value: float | None
    ci: tuple | None
    fitted: bool
    scenario: str

    @property
    def in_band(self):
        return in_band(self.value, self.claim.band)

    @property
    def kind(self):
        return "fitted" if self.fitted else "predicted"


def summary_line(rows):
    """``N of M in band (K fitted); U not modelled yet``."""
    hits = [row for row in rows if row.in_band]
    missing = sum(row.value is None for row in rows)
    return (f"{len(hits)} of {len(rows)} in band ({sum(row.fitted for row in hits)} fitted); "
            f"{missing} not modelled yet")


def _text(value, short=False):
    """A number or list of numbers as text (``inf``, ``[0.3, 0.5]``), empty for None.

    ``short`` rounds to 4 significant digits, or to a whole number from 10,000 up.
    """
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_text(v, short) for v in value) + "]"
    if isinstance(value, float) and math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if not short:
        return repr(value)
    return f"{value:.0f}" if abs(value) >= 1e4 else f"{value:.4g}"


def markdown(title, rows):
    """The table as Markdown, with the legend above it and the summary line below."""
    lines = [f"# {title}", "", LEGEND, "",
             "| claim | figure | paper | band | simulated | 95% CI | in band | kind |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for row in rows:
        simulated = _text(row.value, short=True) if row.value is not None else "not modelled"
        lines.append(f"| {row.claim.id} | {row.claim.figure} | {_text(row.claim.paper)} "
                     f"| {_text(row.claim.band)} | {simulated} | {_text(row.ci, short=True)} "
                     f"| {'yes' if row.in_band else 'no'} | {row.kind} |")
    lines += ["", summary_line(rows), ""]
    return "\n".join(lines)


def csv_text(rows):
    """The table as CSV, one row per claim, numbers at full precision."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in rows:
        low, high = row.ci if row.ci is not None else (None, None)
        writer.writerow([row.claim.id, row.claim.figure, _text(row.claim.paper), _text(row.claim.band),
                         _text(row.value), _text(low), _text(high),
                         "yes" if row.in_band else "no", row.kind])
    return out.getvalue()


def write_comparison(outdir, title, rows):
    """Write ``comparison.md`` and ``comparison.csv`` into ``outdir``; return their paths."""
    paths = [outdir / "comparison.md", outdir / "comparison.csv"]
    write_text(paths[0], markdown(title, rows))
    write_text(paths[1], csv_text(rows))
    return paths
