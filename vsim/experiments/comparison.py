"""The comparison table: paper value, band, simulated value and interval per claim.

Written as Markdown (for people, with the legend, how the runs were made and
a summary line) and CSV (for tools, one row per claim). Each claim has one
honest kind:

- *fitted*: a model parameter was fitted to it, so landing in its band is no
  evidence for the model;
- *by construction*: the scenario fixes the value whatever the model does
  (the packet rate of the configured streams, zero loss on a lightly loaded
  link);
- *predicted*: everything else the model computes;
- *not modelled*: no simulated value yet;
- *not run*: the claim's study is modelled but was not among the studies
  this invocation ran (``vsim reproduce OTHER-STUDY``), so it has no value here.

The note column says when a design choice was selected on the claim
(``models/design_choices.toml``) and anything else a reader must know to
judge the value.
"""

import csv
import io
import math
from dataclasses import dataclass

from vsim.outputs.atomic import write_text
from vsim.config.claims import Claim, in_band

FITTED, BY_CONSTRUCTION, PREDICTED, NOT_MODELLED = "fitted", "by construction", "predicted", "not modelled"
NOT_RUN = "not run"
LEGEND = ("kinds: fitted = a model parameter was fitted to this claim (models/, models/CALIBRATION.md); "
          "by construction = the scenario fixes the value whatever the model does; predicted = "
          "computed by the model, nothing fitted to it; not modelled = no simulated value yet. "
          "Intervals: 95 % percentile-bootstrap interval of the trimmed mean over the replications "
          "(with fewer than 6 replications, narrower than 95 %: the spread seen).")
COLUMNS = ("id", "figure", "paper", "band", "simulated", "ci_low", "ci_high", "in_band", "kind", "note")


@dataclass(frozen=True)
class Row:
    """One claim with its simulated value (None when not modelled), its kind, the config behind it
    and a note."""

    claim: Claim
    value: float | None
    ci: tuple | None
    kind: str
    scenario: str
    note: str = ""

    @property
    def in_band(self):
        return in_band(self.value, self.claim.band)

    @property
    def fitted(self):
        return self.kind == FITTED


def summary_line(rows):
    """``N of M modelled claims in band (F fitted, B by construction, P predicted); U not modelled yet``,
    and ``; R not run`` when some rows belong to a modelled study this invocation did not run."""
    modelled = [row for row in rows if row.kind not in (NOT_MODELLED, NOT_RUN)]
    hits = [row for row in modelled if row.in_band]
    counts = ", ".join(f"{sum(row.kind == kind for row in hits)} {kind}"
                       for kind in (FITTED, BY_CONSTRUCTION, PREDICTED))
    not_run = sum(row.kind == NOT_RUN for row in rows)
    return (f"{len(hits)} of {len(modelled)} modelled claims in band ({counts}); "
            f"{sum(row.kind == NOT_MODELLED for row in rows)} not modelled yet"
            + (f"; {not_run} not run" if not_run else ""))


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


def _cell(text):
    """Text safe inside a Markdown table cell."""
    return text.replace("|", "/").replace("\n", " ")


def markdown(title, rows, runs=()):
    """The table as Markdown: legend, ``runs`` (one line per sweep: how it was run), table, summary."""
    lines = [f"# {title}", "", LEGEND, ""]
    if runs:
        lines += ["Runs: " + "; ".join(runs) + ".", ""]
    lines += ["| claim | figure | paper | band | simulated | 95% CI | in band | kind | note |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for row in rows:
        simulated = (_text(row.value, short=True) if row.value is not None
                     else "not modelled" if row.kind == NOT_MODELLED else "n/a (the runs do not give it)")
        lines.append(f"| {row.claim.id} | {row.claim.figure} | {_text(row.claim.paper)} "
                     f"| {_text(row.claim.band)} | {simulated} | {_text(row.ci, short=True)} "
                     f"| {'yes' if row.in_band else 'no'} | {row.kind} | {_cell(row.note)} |")
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
                         "yes" if row.in_band else "no", row.kind, row.note])
    return out.getvalue()


def write_comparison(outdir, title, rows, runs=()):
    """Write ``comparison.md`` (stamped with ``runs``) and ``comparison.csv`` into ``outdir``."""
    paths = [outdir / "comparison.md", outdir / "comparison.csv"]
    write_text(paths[0], markdown(title, rows, runs))
    write_text(paths[1], csv_text(rows))
    return paths
