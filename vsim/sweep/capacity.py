"""Capacity search: the highest value of one key at which a scenario meets every requirement.

``vsim capacity CONFIG --vary KEY --require 'METRIC<=VALUE'`` asks how far a key (VMs,
streams per VM, a call rate) may go before a metric the sweep report gives
(``vsim.sweep.report.sweep_metrics``: ``jitter_p99_ms``, ``loss_pct``, ...) crosses a
bound. It bisects between ``--low`` and ``--high``: on whole numbers for an integer key,
down to ``--resolution`` for a number key. Each probe is a sweep point of its own, run
through the sweep executor (``sweep_tasks``, ``run_tasks``) with the sweep's seeds
(``run.seed`` up to ``run.seed + N - 1``), so a probe's value is the point the same
``vsim sweep`` would have run. A probe passes when the mean over its replications meets
every requirement; how many replications met each one alone is kept beside it.

The search assumes the metric worsens as the key grows (more VMs, more jitter). It
ends in a bracket: the highest value probed that passed and the lowest that failed.
When the low end already fails, or the high end still passes, the range holds no
answer and the search says so (``Search.status``) after those two probes.
"""

import math
import re
import statistics
import typing
from dataclasses import dataclass, replace

from vsim.core.errors import InputError, did_you_mean, excerpt
from vsim.config.schema_sweep import SweepSection, sweep_field, sweepable_keys
from vsim.config.typed import check_field
from vsim.sweep.executor import Sweep, run_tasks, sweep_tasks
from vsim.sweep.store import run_stored, sweep_keys
from vsim.sweep.report import (DURING_TRAFFIC_JITTER, DURING_TRAFFIC_LOSS, HOST_CPU, LATE, SIP, VM_CPU,
                               bulk_metric, group_limited_metric, group_ready_metric,
                               group_used_metric, measured_vm_metrics, request_response_metrics,
                               resent_metric, sweep_metrics, voice_metrics)

OPERATORS = {"<=": lambda value, bound: value <= bound, ">=": lambda value, bound: value >= bound,
             "<": lambda value, bound: value < bound, ">": lambda value, bound: value > bound}

_REQUIREMENT = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_.]*)\s*(<=|>=|<|>)\s*(\S+)\s*")

FLOAT_STEPS = 6
"""Without ``--resolution``, a number key is bisected until its bracket is 1/2**6 of the range."""


@dataclass(frozen=True)
class Requirement:
    """``METRIC OP BOUND``: what the mean of a metric over a probe's replications must meet."""

    metric: str
    op: str
    bound: float

    def text(self):
        return f"{self.metric}{self.op}{self.bound:g}"

    def met(self, value):
        return OPERATORS[self.op](value, self.bound)


def parse_requirement(text):
    """The ``Requirement`` of a ``--require`` argument; ``InputError`` when it is not
    ``METRIC<=VALUE`` (or ``>=``, ``<``, ``>``) with a finite number."""
    match = _REQUIREMENT.fullmatch(text)
    bound = _number(match.group(3)) if match else None
    if bound is None:
        raise InputError("--require", None, f"expected METRIC<=VALUE (or >=, <, >) with a number, "
                                            f"such as 'jitter_p99_ms<=2', got {excerpt(text)!r}")
    return Requirement(match.group(1), match.group(2), bound)


def _number(text):
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def reportable_metrics(scenario):
    """Every metric name the sweep report could give for ``scenario``: the voice, host and VM
    columns, and those of each scenario group (``vm`` for [vm]'s VMs) by its name. Which of
    them a run reports depends on its traffic, known only once it has run."""
    groups = ["vm", *(group.name for group in scenario.group)]
    metrics = [*voice_metrics(1.0), LATE, DURING_TRAFFIC_LOSS, DURING_TRAFFIC_JITTER, HOST_CPU,
               *VM_CPU, *measured_vm_metrics(True)]
    if any(group.workload == "sip_server" for group in scenario.group):
        metrics += SIP
    for group in groups:
        metrics += [bulk_metric(group), *request_response_metrics(group), resent_metric(group, 1.0),
                    group_used_metric(group), group_ready_metric(group), group_limited_metric(group)]
    return list(dict.fromkeys(metric.name for metric in metrics))


def check_requirements(requirements, scenario):
    """Refuse, before anything runs, a requirement on a metric no sweep of ``scenario`` reports."""
    names = reportable_metrics(scenario)
    for requirement in requirements:
        if requirement.metric not in names:
            hint = did_you_mean(requirement.metric, names)
            raise InputError("--require", requirement.metric,
                             f"expected a metric of vsim sweep's report ({', '.join(names[:6])}, ...)"
                             + (f"; {hint}" if hint else ""))


@dataclass(frozen=True)
class VariedKey:
    """The key a capacity search varies: its name, whether it is a whole number, its range
    and the width its bracket is narrowed to."""

    key: str
    integer: bool
    low: int | float
    high: int | float
    resolution: int | float

    def settled(self, good, bad):
        """Whether the bracket (``good`` passed, ``bad`` failed) is narrow enough, or so narrow
        that no number lies between its ends (a resolution finer than a float's)."""
        return bad - good <= self.resolution or self.middle(good, bad) in (good, bad)

    def middle(self, good, bad):
        return (good + bad) // 2 if self.integer else good + (bad - good) / 2

    def most_probes(self):
        """The most probes the search can take: both ends and each halving of the range."""
        return 2 + max(0, math.ceil(math.log2((self.high - self.low) / self.resolution)))


def varied_key(source, loaded, key, low, high, resolution):
    """The ``VariedKey`` of ``--vary KEY`` (a number key a sweep may vary) with ``--low``,
    ``--high`` (default: the ends of the config's [sweep] of that key) and ``--resolution``,
    each checked as the key's values are; ``InputError`` naming the option at fault."""
    swept = sweep_field(key)
    if swept is None:
        hint = did_you_mean(key, list(sweepable_keys()))
        raise InputError("--vary", key, "expected a number key a sweep may vary (vm.instances, "
                         "vm.streams_per_instance, group.NAME.count, ...)" + (f"; {hint}" if hint else ""))
    cls, name = swept
    annotation = typing.get_type_hints(cls)[name]
    kinds = set(typing.get_args(annotation)) or {annotation}
    if not kinds & {int, float}:
        raise InputError("--vary", key, "expected a number key: a capacity is the highest value "
                                        "that meets the requirements")
    integer = float not in kinds
    sweep = loaded.scenario.sweep
    ends = sorted(sweep.values) if sweep is not None and sweep.key == key else None
    low = ends[0] if low is None and ends else low
    high = ends[-1] if high is None and ends else high
    if low is None or high is None:
        raise InputError("--low" if low is None else "--high", None,
                         f"expected --low and --high: {source} has no [sweep] of {key} to take them from")
    low, high = (_as_key(value, integer, option) for value, option in ((low, "--low"), (high, "--high")))
    for value, option in ((low, "--low"), (high, "--high")):
        check_field(cls, name, value, source=option, path=key)
    if low >= high:
        raise InputError("--low", None, f"expected a value below --high ({high:g}), got {low:g}")
    if resolution is None:
        resolution = 1 if integer else (high - low) / 2 ** FLOAT_STEPS
    elif integer and resolution != int(resolution):
        raise InputError("--resolution", None, f"expected a whole number for the integer key {key}, "
                                               f"got {resolution:g}")
    return VariedKey(key, integer, low, high, int(resolution) if integer else float(resolution))


def _as_key(value, integer, option):
    """``value`` as the key's type: a whole number for an integer key."""
    if not integer:
        return float(value)
    if value != int(value):
        raise InputError(option, None, f"expected a whole number for an integer key, got {value:g}")
    return int(value)


@dataclass(frozen=True)
class Check:
    """One requirement at one probe: each replication's value, their mean, whether the mean
    meets it and how many replications met it alone."""

    requirement: Requirement
    values: tuple
    mean: float
    met: bool
    replications_met: int

    @classmethod
    def of(cls, requirement, values):
        mean = statistics.fmean(values)
        return cls(requirement, tuple(values), mean, requirement.met(mean),
                   sum(requirement.met(value) for value in values))


@dataclass(frozen=True)
class Probe:
    """One value of the key, its replications' seeds and summaries, and each requirement's check."""

    x: int | float
    seeds: tuple
    runs: tuple
    checks: tuple

    @property
    def passed(self):
        return all(check.met for check in self.checks)


@dataclass(frozen=True)
class Search:
    """The probes in the order they ran, and what they found: ``status`` ``found`` (``capacity``
    passed, ``capacity`` plus the resolution or less failed: ``bracket``), ``below_range``
    (the low end already fails) or ``above_range`` (the high end still passes)."""

    key: VariedKey
    probes: tuple
    status: str
    capacity: int | float | None
    bracket: tuple | None

    def probe_at(self, x):
        return next(probe for probe in self.probes if probe.x == x)


def bisect(key, evaluate):
    """Search ``key``'s range, ``evaluate(xs)`` giving the ``Probe`` of each value of ``xs``:
    both ends at once, then the middle of the bracket until it is ``key.resolution`` wide."""
    first, last = evaluate([key.low, key.high])
    probes = [first, last]
    if not first.passed:
        return Search(key, tuple(probes), "below_range", None, None)
    if last.passed:
        return Search(key, tuple(probes), "above_range", key.high, None)
    good, bad = key.low, key.high
    while not key.settled(good, bad):
        (probe,) = evaluate([key.middle(good, bad)])
        probes.append(probe)
        good, bad = (probe.x, bad) if probe.passed else (good, probe.x)
    return Search(key, tuple(probes), "found", good, (good, bad))


@dataclass
class ProbeRunner:
    """Runs probes of a scenario through the sweep executor: ``replications`` runs each, seeds as
    a sweep's, ``jobs`` at a time, ``progress`` (or None) told of each run and each probe's verdict.
    The metrics are read as the sweep report reads its columns, chosen from the first probes'
    runs; a requirement on one they do not report is refused there."""

    config: str
    loaded: object
    overrides: tuple
    key: str
    requirements: tuple
    duration: float
    warmup: float
    replications: int
    jobs: int = 1
    progress: typing.Callable | None = None
    readers: dict | None = None
    store: object = None
    """A ``vsim.sweep.store.Store`` the probes' replications are kept in and read back from."""
    executor: object = None
    """Where the probes' runs go (a ``vsim.sweep.executor.Executor``; default local processes)."""

    def __call__(self, xs):
        point = replace(self.loaded.scenario, sweep=SweepSection(self.key, list(xs)))
        tasks = sweep_tasks(self.config, replace(self.loaded, scenario=point), self.duration, self.warmup,
                            self.replications, self.overrides)
        keys = None if self.store is None else sweep_keys(replace(self.loaded, scenario=point), tasks)
        summaries = run_stored(tasks, keys, self.store, lambda todo, finished: run_tasks(
            todo, self.jobs, self.progress, finished_one=finished, executor=self.executor), self.progress)
        sweep = Sweep.from_runs("capacity", self.config, tasks, summaries, ())
        if self.readers is None:
            self.readers = self._readers(sweep)
        probes = [self._probe(point) for point in sweep.points]
        if self.progress is not None:
            for probe in probes:
                self.progress(probe_line(self.key, probe))
        return probes

    def _readers(self, sweep):
        reported = {metric.name: metric for metric in sweep_metrics(sweep)}
        reported.setdefault(LATE.name, LATE)  # a column shown only where some run had late packets
        for requirement in self.requirements:
            if requirement.metric not in reported:
                hint = did_you_mean(requirement.metric, list(reported))
                raise InputError("--require", requirement.metric,
                                 f"expected a metric this scenario reports (its runs at {self.key} = "
                                 f"{', '.join(f'{x:g}' for x in sweep.xs())} report "
                                 f"{', '.join(reported)})" + (f"; {hint}" if hint else ""))
        return reported

    def _probe(self, point):
        checks = []
        for requirement in self.requirements:
            values = [self.readers[requirement.metric].read(run) for run in point.runs]
            missing = sum(value is None for value in values)
            if missing:
                raise InputError("--require", requirement.metric,
                                 f"expected a metric every run reports; at {self.key} = {point.x:g} "
                                 f"{missing} of {len(values)} runs have none (no measuring conference, "
                                 f"or no packet of it after warm-up)")
            checks.append(Check.of(requirement, values))
        return Probe(point.x, point.seeds, point.runs, tuple(checks))


def probe_line(key, probe):
    """``vm.instances=6: pass (jitter_p99_ms mean 1.2 <= 2, 3/3 runs)``: a probe's verdict."""
    checks = "; ".join(f"{check.requirement.metric} mean {check.mean:.4g} {check.requirement.op} "
                       f"{check.requirement.bound:g}{'' if check.met else ' not met'}, "
                       f"{check.replications_met}/{len(check.values)} runs met it" for check in probe.checks)
    return f"probe {key}={probe.x:g}: {'pass' if probe.passed else 'FAIL'} ({checks})"


def verdict(search):
    """One line saying what the search found, with the values of the probes it rests on."""
    key = search.key
    if search.status == "found":
        good, bad = search.bracket
        return (f"capacity: {key.key} = {good:g} (the highest value probed that meets every requirement; "
                f"{bad:g} does not)")
    if search.status == "below_range":
        probe = search.probe_at(key.low)
        return (f"no capacity in range: {key.key} = {key.low:g} (--low) already fails "
                f"({_failed(probe)}); expected a lower --low")
    probe = search.probe_at(key.high)
    return (f"capacity above range: {key.key} = {key.high:g} (--high) still meets every requirement "
            f"({_means(probe)}); expected a higher --high")


def _failed(probe):
    return "; ".join(f"{check.requirement.metric} mean {check.mean:.4g}, required "
                     f"{check.requirement.op} {check.requirement.bound:g}"
                     for check in probe.checks if not check.met)


def _means(probe):
    return "; ".join(f"{check.requirement.metric} mean {check.mean:.4g}" for check in probe.checks)
