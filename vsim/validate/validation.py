"""``vsim validate``: a scenario's replications against measured traces, metric by metric.

The measured traces (captures or vsim traces, read by ``read_any``) and the
simulated replications (``vsim.validate.replications``) are both reduced to
metric samples by ``vsim.traces.trace_metrics``; each metric's two sides
are compared by ``vsim.validate.distributions``, and the tolerances of the
scenario's ``[validate]`` table, with those of the command line in place of
any of the same name, are checked by ``vsim.config.tolerances``. The
result is one plain-data document (``Validation.doc``: what was compared,
how the runs were made, every statistic, every check) plus the samples
themselves for the figures.
"""

import hashlib
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from vsim.outputs.atomic import after_commit, output_set, write_text
from vsim.core.errors import InputError
from vsim.outputs.stale_outputs import listed_outputs, remove_stale, written_digests
from vsim.build.load import load_scenario
from vsim.build.memory import check_memory
from vsim.build.work import check_work
from vsim.config.override_source import blaming_overrides
from vsim.config.run_length import RunPlan
from vsim.config import tolerances as tolerance_rules
from vsim.traces.capture_packets import capture_trace
from vsim.traces.detect import describe_format, read_any
from vsim.traces.sipp_rtt import rtt_trace
from vsim.validate.distributions import compare
from vsim.validate.replications import simulated_traces, trace_tasks
from vsim.traces.trace_metrics import METRICS, metrics_of_kind, trace_samples
from vsim.validate.validation_figures import figure_files, write_figures
from vsim.validate.validation_report import report_markdown, results_json

@dataclass(frozen=True)
class Options:
    """What the command line asks for; None keeps the scenario's ``[run]`` value."""

    traces: tuple
    config: str
    overrides: tuple = ()
    replications: int | None = None
    duration: float | None = None
    seed: int | None = None
    tolerances: tuple = ()
    jobs: int = 1


@dataclass(frozen=True)
class Validation:
    """The outcome: ``doc`` (JSON-ready), and per metric the samples of each trace and replication."""

    doc: dict
    measured: dict
    simulated: dict

    @property
    def failed(self):
        return [check for check in self.doc["checks"] if not check["passed"]]


def measured_trace(path):
    """A measured trace as a vsim ``Trace``: a capture's RTP streams become a ``packets`` trace, a
    SIPp ``-trace_rtt`` file a ``sipp_rtt`` one."""
    fmt, trace = read_any(path)
    if fmt in ("pcap", "pcapng"):
        if len(trace) == 0:
            raise InputError(path, None, "expected RTP packets over UDP (version 2 headers), found none")
        return capture_trace(trace)
    if fmt == "sipp-rtt":
        return rtt_trace(trace)
    if fmt != "vsim":
        raise InputError(path, None, f"expected a capture, a SIPp -trace_rtt file or a vsim trace to "
                                     f"compare with a simulation, found {describe_format(fmt)}")
    if not metrics_of_kind(trace.kind):
        compared = sorted({metric.kind for metric in METRICS.values()})
        raise InputError(path, "kind", f"expected a trace to compare ({', '.join(compared)}), got a "
                                       f"{trace.kind} trace (a steal trace is a scenario's input: "
                                       f"host.steal_trace)")
    return trace


def of_class(trace, chosen, source):
    """``trace`` with only the rows of traffic class ``chosen`` (``packets`` traces; others unchanged).

    ``InputError`` naming ``source`` when a packets trace has no packet of that class.
    """
    if chosen is None or trace.kind != "packets":
        return trace
    keep = np.asarray(trace.columns["class"], dtype=object) == chosen
    if not keep.any():
        found = sorted(set(trace.columns["class"]))
        raise InputError(source, "class", f"expected packets of class {chosen!r} "
                                          f"(validate.traffic_class), found {', '.join(found) or 'none'}")
    columns = {name: [v for v, k in zip(values, keep) if k] if isinstance(values, list) else values[keep]
               for name, values in trace.columns.items()}
    return replace(trace, columns=columns)


def _refuse_mixed_classes(traces, paths):
    """Packets of several traffic classes (voice beside a flood) pooled into one comparison
    would mix what the scenario may not even simulate: without validate.traffic_class, the
    measured packets traces must hold one class."""
    classes = sorted({cls for trace in traces for cls in trace.columns["class"]})
    if len(classes) > 1:
        example = "voice" if "voice" in classes else classes[0]
        raise InputError(paths[0], "class", f"expected packets of one traffic class, found "
                                            f"{', '.join(classes)}; choose the class to compare with "
                                            f"validate.traffic_class (--set 'validate.traffic_class=\"{example}\"')")


def measured_kind(traces, paths):
    """The one kind of the measured traces; ``InputError`` when they mix kinds."""
    kind = traces[0].kind
    for trace, path in zip(traces, paths):
        if trace.kind != kind:
            raise InputError(path, "kind", f"expected a {kind} trace like {paths[0]}, found {trace.kind}")
    return kind


def stated_tolerances(scenario_tolerances, config, options):
    """``{key: (value, where it was stated)}``: the scenario's, then the command line's over them."""
    stated = {key: (value, (config, f'validate.tolerances."{key}"'))
              for key, value in scenario_tolerances.items()}
    for text in options:
        key, value = tolerance_rules.parse_option(text)
        stated[key] = (value, ("--tolerance", text))
    return stated


def applicable(stated, kind):
    """The tolerances that apply to traces of ``kind``: a scenario may state them for every kind of
    trace it is compared with, and those of other kinds are left out; one given on the command line
    for another kind is an ``InputError`` (checked before running)."""
    kept = {}
    for key, (value, (source, where)) in stated.items():
        metric = key.rpartition(".")[0]
        if METRICS[metric].kind == kind:
            kept[key] = (value, (source, where))
        elif source == "--tolerance":
            raise InputError(source, where, f"{metric} comes from {METRICS[metric].kind} traces; these "
                                            f"are {kind} traces (metrics: {', '.join(metrics_of_kind(kind))})")
    return kept


def _check_compared(stated, skipped):
    """Every tolerance must name a metric that was compared (both sides had samples)."""
    for key, (_, (source, where)) in stated.items():
        metric = key.rpartition(".")[0]
        if metric in skipped:
            raise InputError(source, where, f"expected samples of {metric} on both sides, found "
                                            f"{skipped[metric]}")


def _refuse_too_few_replications(stated, replications, replications_key):
    """Before any simulation: a statistic read across runs (``ks_rank_pvalue``) needs that many."""
    for key, (_, (source, where)) in sorted(stated.items()):
        needed = tolerance_rules.STATS[key.rpartition(".")[2]].replications
        if replications < needed:
            raise InputError(source, where, f"{key} ranks the measurement among the simulated runs and "
                                            f"needs at least {needed} replications; {replications_key} "
                                            f"gives {replications}")


def _samples_by_metric(traces, sources):
    return _by_metric([trace_samples(trace, source) for trace, source in zip(traces, sources)])


def _by_metric(per_trace):
    """Per metric, each trace's samples, from per trace, each metric's samples."""
    out = {}
    for samples_of in per_trace:
        for metric, samples in samples_of.items():
            out.setdefault(metric, []).append(samples)
    return out


def _refuse_repeated(per_trace, paths):
    """Each measurement once: two traces giving the same samples (a copy under another name, or a
    capture and the probe's trace of the same run) would count them twice and narrow the
    measured side's intervals to nothing."""
    seen = {}
    for samples_of, path in zip(per_trace, paths):
        digest = hashlib.sha256()
        for metric in sorted(samples_of):
            digest.update(metric.encode())
            digest.update(np.ascontiguousarray(samples_of[metric].values, dtype=float).tobytes())
        key = digest.hexdigest()
        if key in seen and any(samples.values.size for samples in samples_of.values()):
            raise InputError(path, None, f"expected each measurement once; it gives the same samples "
                                         f"as {seen[key]} (a copy, or a capture and its trace of "
                                         f"one run?)")
        seen.setdefault(key, path)


def _refuse_without_samples(measured, kind, paths):
    """Before any simulation: the measured traces give samples of some metric of ``kind``
    (a trace of a header and no rows gives none, and nothing could be compared)."""
    if any(group.values.size for metric in metrics_of_kind(kind) for group in measured.get(metric, ())):
        return
    raise InputError(paths[0], None, f"expected measured samples of at least one of "
                                     f"{', '.join(metrics_of_kind(kind))}, found none "
                                     f"(a trace with no rows after its header, or none in its measuring window?)")


def run_validation(options, progress=None):
    """Run the scenario, compare it with the measured traces and check the tolerances."""
    loaded = load_scenario(options.config, options.overrides)
    scenario = loaded.scenario
    stated = stated_tolerances(scenario.validate.tolerances, options.config, options.tolerances)
    chosen = scenario.validate.traffic_class
    measured_traces = [of_class(measured_trace(path), chosen, path) for path in options.traces]
    kind = measured_kind(measured_traces, options.traces)
    if kind == "packets" and chosen is None:
        _refuse_mixed_classes(measured_traces, options.traces)
    per_trace = [trace_samples(trace, path) for trace, path in zip(measured_traces, options.traces)]
    _refuse_repeated(per_trace, options.traces)
    measured = _by_metric(per_trace)
    _refuse_without_samples(measured, kind, options.traces)
    run = scenario.run
    length = RunPlan(duration=options.duration, replications=options.replications).resolve(run)
    duration, warmup, replications = length.duration, length.warmup, length.replications
    seed = run.seed if options.seed is None else options.seed
    replications_key = "run.replications" if options.replications is None else "--replications"
    with blaming_overrides(str(options.config), options.overrides):
        length.check(options.config, loaded)
        check_memory([(options.config, loaded, duration)], options.jobs, duration_key=length.duration_key)
        check_work([(options.config, loaded, duration)], replications, length.duration_key, replications_key)
    kept = applicable(stated, kind)
    left_out = {key: METRICS[key.rpartition(".")[0]].kind for key in stated if key not in kept}
    stated = kept
    _refuse_too_few_replications(stated, replications, replications_key)
    tasks = trace_tasks(kind, options.config, options.overrides, seed, duration, warmup, replications)
    traces = [of_class(trace, chosen, task.label())
              for trace, task in zip(simulated_traces(tasks, options.jobs, progress), tasks)]
    simulated = _samples_by_metric(traces, [task.label() for task in tasks])
    comparisons, skipped = {}, {}
    for metric in metrics_of_kind(kind):
        sides = {"measured": measured[metric], "simulated": simulated[metric]}
        empty = [side for side, groups in sides.items() if not any(group.values.size for group in groups)]
        if empty:
            skipped[metric] = f"no {' or '.join(empty)} samples"
            continue
        comparisons[metric] = {"unit": METRICS[metric].unit, "definition": METRICS[metric].doc,
                               **compare([group.values for group in sides["measured"]],
                                         [group.values for group in sides["simulated"]])}
    if not comparisons:
        reasons = "; ".join(f"{metric}: {why}" for metric, why in skipped.items())
        raise InputError(options.traces[0], None, f"expected samples of at least one of "
                                                  f"{', '.join(metrics_of_kind(kind))} on both sides, "
                                                  f"found none: {reasons}")
    _check_compared(stated, skipped)
    checks = tolerance_rules.check({key: value for key, (value, _) in stated.items()}, comparisons)
    failed = sum(not check["passed"] for check in checks)
    doc = {
        "scenario": scenario.name, "config": str(options.config), "overrides": list(options.overrides),
        "measured": [str(path) for path in options.traces], "kind": kind,
        "traffic_class": chosen if kind == "packets" else None,
        "simulated": {"replications": replications, "seeds": [task.seed for task in tasks],
                      "duration_s": duration, "warmup_s": warmup,
                      "engine": traces[0].meta.get("engine") if traces else None},
        "metrics": comparisons, "skipped": skipped,
        "tolerances": {key: {"value": value, "stated_in": source} for key, (value, (source, _))
                       in sorted(stated.items())},
        "tolerances_left_out": dict(sorted(left_out.items())),
        "checks": checks, "failed": failed,
        "verdict": "fail" if failed else "pass" if checks else "unchecked",
    }
    return Validation(doc, measured, simulated)


def output_files():
    """Names of every file ``write_outputs`` may write into its directory."""
    return ["report.md", "results.json"] + figure_files()


def write_outputs(out, validation):
    """Figures, ``report.md`` and ``results.json`` of ``validation`` into directory ``out``; the paths.

    ``results.json`` lists the files written (``files``) and their digests (``sha256``); once
    they are in place, those an earlier report in ``out`` recorded and this one did not write
    again (another metric's figures) are removed, if unchanged since, and the directory's other
    files are left alone. ``InputError``
    when ``out`` is a file or cannot be written.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise InputError(out, None, "expected a directory for --out, found a file")
    previous = listed_outputs(out / "results.json")
    try:
        with output_set():
            figures = write_figures(out, validation)
            written = figures + [out / "report.md", out / "results.json"]
            write_text(out / "report.md", report_markdown(validation.doc, figures))
            write_text(out / "results.json",
                       results_json({**validation.doc, "files": sorted(path.name for path in written),
                                     "sha256": written_digests(written[:-1])}))
            after_commit(lambda: remove_stale(out, previous, written))
    except OSError as exc:
        raise InputError(out, None, f"cannot write ({exc.strerror or exc})") from None
    return written
