"""A capacity search's report: its probes as a table, as JSON, and in an --out directory with a
figure per metric (the probes' values against the varied key, the requirement as a line).

The text says how much the answer rests on: each probe's replications, their values and
mean, how many met each requirement alone, and the bracket the search ended in.
"""

import json

from vsim.outputs.atomic import after_commit, write_text
from vsim.outputs.stale_outputs import listed_outputs, remove_stale, written_digests
from vsim.sweep.capacity import verdict

STATISTIC = "mean over replications"


def _value(x):
    return json.dumps(x)


def table_text(title, search):
    """The probes in the order they ran, then the verdict: aligned plain text."""
    heading = ["probe", search.key.key] + [check.requirement.text() for check in search.probes[0].checks] + ["verdict"]
    rows = [[str(index), _value(probe.x)]
            + [f"{check.mean:.4g} ({check.replications_met}/{len(check.values)} runs met; "
               f"{' '.join(f'{value:.4g}' for value in check.values)})" for check in probe.checks]
            + ["pass" if probe.passed else "fail"]
            for index, probe in enumerate(search.probes, 1)]
    widths = [max(len(row[i]) for row in [heading] + rows) for i in range(len(heading))]
    lines = [title] + ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip()
                       for row in [heading] + rows]
    lines += [verdict(search), f"note: a probe passes when the {STATISTIC} meets every requirement; "
              f"the search assumes the metrics worsen as {search.key.key} grows"]
    return "\n".join(lines) + "\n"


def result_doc(title, search, run):
    """Plain data: how the runs were made (``run``: config, overrides, seeds, length), the
    requirements, the result and its bracket, and every probe with each replication's summary."""
    key = search.key
    return {
        "name": title, **run, "key": key.key, "low": key.low, "high": key.high,
        "resolution": key.resolution, "statistic": STATISTIC,
        "requirements": [check.requirement.text() for check in search.probes[0].checks],
        "result": {"status": search.status, "capacity": search.capacity,
                   "bracket": None if search.bracket is None else list(search.bracket),
                   "verdict": verdict(search)},
        "probes": [{"x": probe.x, "seeds": list(probe.seeds), "passed": probe.passed,
                    "checks": [{"requirement": check.requirement.text(), "values": list(check.values),
                                "mean": check.mean, "met": check.met,
                                "replications_met": check.replications_met} for check in probe.checks],
                    "runs": [run.to_json() for run in probe.runs]} for probe in search.probes],
    }


def result_json(doc):
    return json.dumps(doc, indent=2, sort_keys=True) + "\n"


def output_files(stem, requirements):
    """Names of every file ``write_outputs`` writes for a config named ``stem``."""
    return ["results.json", "summary.md"] + [f"{name}.{ext}" for name in _figure_names(stem, requirements)
                                             for ext in ("png", "svg")]


def _figure_names(stem, requirements):
    return [f"{stem}_capacity_{metric}" for metric in dict.fromkeys(r.metric for r in requirements)]


def summary_markdown(title, search):
    """The table and verdict under a heading, for summary.md."""
    return f"# {title}\n\n```text\n{table_text(title, search)}```\n"


def plot_probes(outdir, stem, title, search, stamp):
    """A figure per metric required: each probe's mean (bars: the replications' range, dots: the
    replications) against the key, the first requirement on it as a dashed line; the paths written."""
    from vsim.results.plotting import Curve, plot_sweep  # matplotlib: imported only to draw

    probes = sorted(search.probes, key=lambda probe: probe.x)
    written = []
    requirements = [check.requirement for check in probes[0].checks]
    for name in _figure_names(stem, requirements):
        metric = name.removeprefix(f"{stem}_capacity_")
        index = next(i for i, r in enumerate(requirements) if r.metric == metric)
        checks = [probe.checks[index] for probe in probes]
        curve = Curve(metric, [probe.x for probe in probes],
                      [(check.mean, (min(check.values), max(check.values))) for check in checks],
                      [list(check.values) for check in checks])
        bound = requirements[index]  # the first on the metric: a figure draws one line
        line = (bound.text(), [search.key.low, search.key.high], [bound.bound] * 2)
        caption = (f"Points: {STATISTIC}; error bars: the replications' range; faint dots: the "
                   f"replications. {verdict(search)}. Runs: {stamp}.")
        written += plot_sweep(outdir / name, title=title, xlabel=search.key.key, ylabel=metric,
                              curves=[curve], marks=[], line=line, caption=caption)
    return written


def write_outputs(outdir, stem, title, search, doc, stamp):
    """results.json, summary.md and the figures in ``outdir``, as ``vsim sweep --out`` writes
    its own: results.json lists the files and their SHA-256, and files an earlier report listed
    that this one does not write again go once these are in place; the paths written."""
    outdir.mkdir(parents=True, exist_ok=True)
    previous = listed_outputs(outdir / "results.json")
    written = [outdir / "results.json", outdir / "summary.md"] + plot_probes(outdir, stem, title, search, stamp)
    write_text(written[1], summary_markdown(title, search))
    write_text(written[0], result_json({**doc, "files": sorted(path.name for path in written),
                                        "sha256": dict(sorted(written_digests(written[1:]).items()))}))
    after_commit(lambda: remove_stale(outdir, previous, written))
    return written
