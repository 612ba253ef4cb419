"""``vsim validate``'s outputs: a table on the terminal, ``report.md``, ``results.json`` and the verdict.

Numbers are printed with fixed precision and the JSON is sorted, with
non-finite values (an infinite relative error against a measured 0) written
as null, so the same inputs and seeds give the same bytes.
"""

import json
import math

from vsim.metrics.stats import interval_caveat

_STATS = ("p50", "p90", "p95", "p99")


def _clean(value):
    """``value`` with every non-finite float replaced by None (JSON has no inf or nan)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _clean(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(item) for item in value]
    return value


def results_json(doc):
    """The validation document as sorted, indented JSON."""
    return json.dumps(_clean(doc), indent=2, sort_keys=True) + "\n"


def _num(value, digits=3):
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "n/a"
    return f"{value:.{digits}f}"


def _quantile(value):
    """A quantile as ``_num`` prints it, but with three significant digits where that would
    print a value that is not 0 as 0.000 (so a relative error beside it is not read as 0/0)."""
    if isinstance(value, (int, float)) and math.isfinite(value) and value and abs(value) < 0.0005:
        return f"{value:.3g}"
    return _num(value)


def _pct(value):
    return "n/a" if value is None else f"{100 * value:+.1f}%"


def run_stamp(doc):
    """``2 x 20 s (5 s warm-up), seeds 1-2``: how the simulated side was run."""
    sim = doc["simulated"]
    seeds = sim["seeds"]
    span = f"seed {seeds[0]}" if len(seeds) == 1 else f"seeds {seeds[0]}-{seeds[-1]}"
    return f"{sim['replications']} x {sim['duration_s']:g} s ({sim['warmup_s']:g} s warm-up), {span}"


def _interval_caveat(doc):
    """What the simulated means' intervals are worth when their replications are few (a single
    one is cut into batches instead, ``vsim.validate.distributions``)."""
    replications = doc["simulated"]["replications"]
    return interval_caveat(replications) if replications > 1 else ""


def _metric_rows(doc):
    """One row per metric: name, samples, per quantile measured/simulated (error), mean [interval], KS, W1."""
    rows = []
    for metric, c in doc["metrics"].items():
        mean = c["mean"]
        rows.append([
            metric, f"{c['samples']['measured']}/{c['samples']['simulated']}",
            *[f"{_quantile(c[q]['measured'])}/{_quantile(c[q]['simulated'])} ({_pct(c[q]['rel_error'])})"
              for q in _STATS],
            f"{_num(mean['measured'])} [{_num(mean['measured_interval'][0])}, "
            f"{_num(mean['measured_interval'][1])}]",
            f"{_num(mean['simulated'])} [{_num(mean['simulated_interval'][0])}, "
            f"{_num(mean['simulated_interval'][1])}]",
            f"{_num(c['ks']['statistic'])} (p {c['ks']['pvalue']:.2g})", _rank(c.get("ks_rank")),
            _num(c["wasserstein"], 4)])
    return rows


_HEADER = ["metric", "samples meas/sim", *[f"{q} meas/sim (rel. error)" for q in _STATS],
           "measured mean [95%]", "simulated mean [95%]", "KS (p-value)", "KS rank p (runs)", "Wasserstein"]


def _rank(rank):
    """The rank test's p-value and how many runs it ranked (n/a below two replications)."""
    return "n/a" if rank is None else f"{rank['pvalue']:.3g} ({len(rank['runs']) + 1})"


def _check_rows(doc):
    return [[c["key"], _num(c["value"], 4), f"{c['bound']} {c['tolerance']:g}",
             "pass" if c["passed"] else "FAIL"] for c in doc["checks"]]


def verdict_line(doc):
    """One sentence: how many checks passed."""
    total, failed = len(doc["checks"]), doc["failed"]
    left_out = doc.get("tolerances_left_out") or {}
    if total == 0 and left_out:
        kinds = " and ".join(sorted(set(left_out.values())))
        return (f"no stated tolerance applies to {doc['kind']} traces (the scenario's {len(left_out)} "
                f"are for {kinds} traces): nothing checked")
    if total == 0:
        return "no tolerances stated: nothing checked (state them in [validate] or with --tolerance)"
    if failed:
        return f"{failed} of {total} checks outside tolerance"
    return f"all {total} checks within tolerance" if total > 1 else "the one check within tolerance"


def _kind_label(doc):
    """``packets``, or ``packets, class voice`` when one traffic class was compared."""
    chosen = doc.get("traffic_class")
    return doc["kind"] + (f", class {chosen}" if chosen else "")


def _title(doc):
    measured = ", ".join(doc["measured"])
    return (f"{doc['scenario']} ({doc['config']}; {run_stamp(doc)}) against {measured} "
            f"({_kind_label(doc)})")


def report_text(doc):
    """The terminal table: metrics, then checks, then the verdict."""
    lines = [_title(doc)]
    rows = [_HEADER] + _metric_rows(doc)
    widths = [max(len(row[i]) for row in rows) for i in range(len(_HEADER))]
    lines += ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]
    for metric, reason in doc["skipped"].items():
        lines.append(f"{metric}: not compared ({reason})")
    caveat = _interval_caveat(doc)
    if caveat:
        lines.append(f"note: {caveat}")
    checks = _check_rows(doc)
    if checks:
        lines.append("")
        lines += [f"  {key:<28} {value:>10} {bound:<10} {verdict}" for key, value, bound, verdict in checks]
    lines.append(verdict_line(doc))
    return "\n".join(lines) + "\n"


def _md_table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    out += ["| " + " | ".join(cell.replace("|", "/") for cell in row) + " |" for row in rows]
    return out


def _validation_title(scenario):
    """``Validation: SCENARIO``, unless the scenario's name already says it is one."""
    return scenario if scenario.lower().startswith("validation") else f"Validation: {scenario}"


def report_markdown(doc, figures):
    """``report.md``: what was compared, the metrics table, the checks, the verdict and the figures."""
    lines = [f"# {_validation_title(doc['scenario'])}", "",
             f"Simulated: `{doc['config']}`" + (f" with {', '.join(doc['overrides'])}" if doc["overrides"] else "")
             + f", {run_stamp(doc)}, {doc['simulated']['engine']} engine.  ",
             f"Measured: {', '.join(f'`{path}`' for path in doc['measured'])} ({_kind_label(doc)}).", "",
             "Quantiles are of the pooled samples of each side; relative errors are (simulated - "
             "measured) / measured. Means come with 95 % cluster-bootstrap intervals over the "
             "replications (over batches of a single trace). KS is the two-sample "
             "Kolmogorov-Smirnov statistic; Wasserstein the earth mover's distance in the metric's unit.",
             ""]
    lines += _md_table(_HEADER, _metric_rows(doc))
    for metric, reason in doc["skipped"].items():
        lines += ["", f"{metric}: not compared ({reason})."]
    caveat = _interval_caveat(doc)
    if caveat:
        lines += ["", f"Note: the simulated means' intervals: {caveat}."]
    lines += ["", "## Checks", ""]
    checks = _check_rows(doc)
    if checks:
        lines += _md_table(["tolerance", "value", "bound", "verdict"], checks)
        lines.append("")
    lines += [f"**{verdict_line(doc)}**", ""]
    if figures:
        lines += ["## Figures", ""] + [f"![{path.stem}]({path.name})" for path in figures
                                       if path.suffix == ".png"] + [""]
    return "\n".join(lines)
