"""Command line: ``vsim run``, ``reproduce``, ``sweep``, ``capacity``, ``cluster``, ``describe``, ``jitter``, ``validate`` and ``probe``.

Exit codes: 0 success; 2 bad input (an ``InputError`` or a malformed command
line), reported as one line ``vsim: error: ...`` on stderr; 130 interrupted
(Ctrl-C, SIGINT), reported as ``vsim: interrupted``, and 143 stopped by SIGTERM,
reported as ``vsim: interrupted by SIGTERM``, each leaving no output half-written
and no worker process behind; 141 (as for SIGPIPE) when the
reader of stdout stops early, silently; 1 from ``vsim validate``, a check
outside its tolerance, reported as one line ``vsim: validation failed: ...``;
1 also from ``vsim capacity``, a search range holding no answer (its low end
fails, or its high end still passes), reported as one line ``vsim: capacity: ...``;
4 from ``vsim validate``, nothing validated (no stated tolerance applies to the
traces), so that a job cannot pass on a comparison that was never made;
3 an internal error (a bug), reported with its traceback, kept apart from 1 so a
script accepting a failed check still stops on a crash. The ``vsim`` command
starts in ``vsim.__main__``, which handles SIGINT and SIGTERM before this
module's imports.

Each command imports the stages it runs inside its handler, so that ``--version``, ``--help``
and a usage error answer without loading the simulator, and a command loads only its own.
"""

import argparse
import dataclasses
import json
import math
import os
import signal
import sys
import traceback
import warnings
from pathlib import Path

import vsim
from vsim.outputs.atomic import output_set, write_text
from vsim.config.data_dirs import program_folders, resolve_config
from vsim.core.errors import InputError, InputNote
from vsim.core.interrupts import arrived, exit_status, forget_arrived, handle_sigterm, interrupted_line, signal_of
from vsim.outputs.output_check import check_apart, check_output_dir, check_output_file, check_outside, same_file
from vsim.outputs.standard_output import GuardedStdout
from vsim.outputs.progress import simulated_clock_bar
from vsim.config.claims import load_claims, study_names
from vsim.config.run_length import QUICK, RunPlan
from vsim.engines.choices import ENGINES
from vsim.experiments.registry import STUDIES
from vsim.probe.arguments import add_probe_arguments


PAPER_FIGURES = "figures"  # committed paper-length results
SHORT_FIGURES = "figures-quick"  # runs of another length, kept apart so they never replace those


INTERNAL_ERROR = 3  # not Python's 1, which vsim validate gives a check outside its tolerance
NOTHING_VALIDATED = 4  # vsim validate compared nothing: neither a pass (0) nor a failed check (1)


class Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line on stderr and exit code 2.

    ``late_help``, if given, is called with the parser before its help is first formatted, to
    fill in texts that cost something to make (``reproduce``'s list of studies reads the claims
    file): every command builds every parser, and only a ``--help`` shows them."""

    def __init__(self, *args, late_help=None, **kwargs):
        super().__init__(*args, **kwargs)
        self._late_help = late_help

    def format_help(self):
        if self._late_help is not None:
            late_help, self._late_help = self._late_help, None
            late_help(self)
        return super().format_help()

    def error(self, message):
        self.exit(2, f"vsim: error: {message}\n")


class _SeedFromConfig(argparse.Action):
    """``--seed`` given to a command whose runs take their seeds from each config's run.seed:
    say how to set it instead of only "unrecognized arguments"."""

    def __call__(self, parser, namespace, values, option_string=None):
        command = parser.prog.split()[-1]
        if command in ("sweep", "capacity"):
            parser.error(f"--seed: {command} takes the config's run.seed as its first seed; "
                         "expected --set run.seed=N")
        parser.error(f"--seed: {command} runs each study's configs with their own seeds (run.seed), "
                     f"as the committed results were made; expected no --seed")


class _OneRunOnly(argparse.Action):
    """``--quick`` or ``--replications`` given to ``vsim run``, which runs one replication of the
    config's length: say what it takes instead of only "unrecognized arguments"."""

    def __init__(self, option_strings, dest, **kwargs):
        kwargs["nargs"] = 0 if "--quick" in option_strings else None
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        if option_string == "--quick":
            parser.error("--quick: run makes one replication; expected --duration S for a "
                         "shorter run")
        parser.error("--replications: run makes one replication; expected vsim sweep for "
                     "several, or --seed N for another")


def _bounded(kind, low, inclusive):
    """An argparse type: a finite ``kind`` (int or float) >= ``low`` (or > when not ``inclusive``)."""
    noun = "an integer" if kind is int else "a number"
    expected = f"expected {noun} {'>=' if inclusive else '>'} {low}"

    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{expected}, got {text!r}") from None
        if not math.isfinite(value) or not (value >= low if inclusive else value > low):
            raise argparse.ArgumentTypeError(f"{expected}, got {text!r}")
        return value

    return parse


def _study_names():
    """Every study of the claims file and every modelled study, modelled ones first."""
    studies = set(study_names()) | set(STUDIES)
    return sorted(studies, key=lambda name: (name not in STUDIES, name))


def _studies_text():
    modelled = [name for name in _study_names() if name in STUDIES]
    pending = [name for name in _study_names() if name not in STUDIES]
    text = f"Modelled: {', '.join(modelled)}."
    if pending:
        text += f" Not modelled yet (their claims are reported as null): {', '.join(pending)}."
    return text


def _reproduce_help(reproduce):
    """``reproduce``'s description and its STUDY argument's help: the studies, modelled or not."""
    reproduce.description = "Run the studies behind the paper claims. " + _studies_text()
    studies = next(action for action in reproduce._actions if action.dest == "studies")
    studies.help = "studies to run (default: all): " + ", ".join(_study_names())


def _add_run_options(command, default_from, quick_purpose):
    """``--quick``, ``--duration``, ``--replications`` and ``--jobs``, as ``reproduce`` and ``sweep``
    both take them; ``default_from`` says where the defaults come from (``"run."`` or a longer phrase)."""
    command.add_argument("--seed", action=_SeedFromConfig, help=argparse.SUPPRESS)
    command.add_argument("--quick", action="store_true",
                         help=f"{quick_purpose}: {QUICK.duration:g} s x {QUICK.replications} replications, "
                              f"warm-up at most {QUICK.warmup:g} s (a shorter config keeps its own length)")
    command.add_argument("--duration", type=_bounded(float, 0, False), metavar="S",
                         help=f"simulated seconds per run, longer or shorter than the config's "
                              f"(default: {default_from}duration)")
    command.add_argument("--replications", type=_bounded(int, 1, True), metavar="N",
                         help=f"runs per point (default: {default_from}replications)")
    command.add_argument("--jobs", type=_bounded(int, 1, True), default=1, metavar="N",
                         help="worker processes (default: 1); with --executor dask and no --scheduler, "
                              "the local Dask cluster's workers")
    command.add_argument("--executor", choices=("local", "dask"), default="local",
                         help="where the runs go: this machine's processes (default) or a Dask cluster "
                              "(docs/distributed.md)")
    command.add_argument("--scheduler", metavar="ADDRESS",
                         help="with --executor dask: the scheduler to send runs to, e.g. tcp://HOST:8786 "
                              "(default: a local cluster of --jobs workers, started and ended with the command)")


def _executor(args):
    """The executor ``args`` ask for: None (this machine's processes) or a Dask cluster, whose
    scheduler is reached here, before any work, so an address with nothing behind it is one line."""
    if args.executor == "local":
        if args.scheduler is not None:
            raise InputError("--scheduler", None, "needs --executor dask")
        return None
    from vsim.sweep.dask_executor import DaskDistributed, SchedulerUnreachable, check_reachable
    executor = DaskDistributed(args.scheduler, workers=args.jobs)
    if args.scheduler is not None:
        try:
            check_reachable(args.scheduler, executor.connect_timeout)
        except SchedulerUnreachable as exc:
            raise InputError("--scheduler", None, f"{exc}; expected the address of a running Dask "
                             f"scheduler (tcp://HOST:PORT)") from None
    return executor


def build_parser():
    """The ``vsim`` parser: ``--version`` and one subcommand per command, each added by its own function."""
    parser = Parser(prog="vsim", description="Discrete-event simulator of virtualized hosts.",
                    epilog=f"Exit status: 0 done; 1 vsim validate found a check outside its tolerance, or vsim "
                           f"capacity's range holds no answer; 2 bad "
                           f"input; {INTERNAL_ERROR} an internal error; {NOTHING_VALIDATED} vsim validate "
                           f"checked nothing; 130 interrupted (SIGINT); 141 stdout closed early; 143 stopped "
                           f"by SIGTERM. An interrupted run leaves no half-written output and no worker "
                           f"process.")
    parser.add_argument("--version", action="version",
                        version=f"vsim {vsim.__version__} (scheduler: {vsim.SCHEDULER_BUILD})")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_run_parser(commands)
    _add_reproduce_parser(commands)
    _add_sweep_parser(commands)
    _add_capacity_parser(commands)
    _add_cluster_parser(commands)
    _add_describe_parser(commands)
    _add_jitter_parser(commands)
    _add_validate_parser(commands)
    _add_probe_parser(commands)
    return parser


def _add_run_parser(commands):
    """``vsim run CONFIG``: one replication of a scenario, its summary as text or JSON, optionally a trace."""
    run = commands.add_parser("run", help="run one replication of a scenario's base values ([sweep] ignored)")
    run.add_argument("config", metavar="CONFIG", help="scenario TOML file")
    run.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                     help="override a dotted key of the config (repeatable)")
    run.add_argument("--seed", type=_bounded(int, 0, True), help="random seed (default: run.seed)")
    run.add_argument("--duration", type=_bounded(float, 0, False), metavar="S",
                     help="simulated seconds (default: run.duration)")
    run.add_argument("--quick", action=_OneRunOnly, help=argparse.SUPPRESS)
    run.add_argument("--replications", action=_OneRunOnly, help=argparse.SUPPRESS)
    run.add_argument("--json", metavar="PATH|-", help="write the summary as JSON to PATH (its directory "
                                                      "must exist), or stdout for -, instead of the text "
                                                      "report (nothing else goes to stdout)")
    run.add_argument("--engine", choices=ENGINES, default="auto",
                     help="events: the SimPy model; uncontended: the closed form for hosts where no "
                          "world waits for a CPU or slows another (same packets); auto (default): the "
                          "closed form where it applies")
    run.add_argument("--trace", metavar="PATH",
                     help="also write a vsim trace (its directory must exist): the measuring client's "
                          "packets (default) or the "
                          "guest timer's wakeups (--trace-kind timer), the workers' ticks "
                          "(--trace-kind cpu_ticks) or, as SIPp's -trace_rtt file, the first SIP "
                          "server's client's response times (--trace-kind sipp_rtt)")
    run.add_argument("--trace-kind", choices=("packets", "timer", "cpu_ticks", "sipp_rtt"),
                     help="what --trace writes (default: packets)")
    run.set_defaults(handler=_run)


def _add_reproduce_parser(commands):
    """``vsim reproduce [STUDY ...]``: the studies behind the paper claims, their figures and claims JSON."""
    reproduce = commands.add_parser("reproduce", help="run the studies behind the paper claims",
                                    late_help=_reproduce_help)
    reproduce.add_argument("studies", nargs="*", metavar="STUDY")
    _add_run_options(reproduce, "each config's run.", "short runs for CI")
    reproduce.add_argument("--json", metavar="PATH|-",
                           help="write claims JSON to PATH (its directory must exist), or stdout for -")
    reproduce.add_argument("--figures", type=Path, metavar="DIR",
                           help=f"where figures and tables go (default: {PAPER_FIGURES}/ in the current "
                                f"directory for paper-length runs, {SHORT_FIGURES}/ when --quick, "
                                f"--duration or --replications changes them); DIR is created if "
                                f"missing, its parent must exist")
    reproduce.add_argument("--store", type=Path, metavar="DIR",
                           help="keep each finished replication in DIR (created if missing, its parent "
                                "must exist) and read back those already there, as vsim sweep --store")
    reproduce.add_argument("--quiet", action="store_true", help="no progress lines")
    reproduce.set_defaults(handler=_reproduce)


def _add_sweep_parser(commands):
    """``vsim sweep CONFIG``: every point of a scenario's [sweep], as a table, JSON and figures."""
    sweep = commands.add_parser(
        "sweep", help="run a scenario's [sweep] as a what-if: a table per point, JSON and figures",
        description="Run every value of the config's [sweep] (change it with --set sweep.key=... "
                    "--set sweep.values=[...]) run.replications times; print per point the trimmed "
                    "mean and 95% interval of jitter, loss, host CPU, ready and co-stop.")
    sweep.add_argument("config", metavar="CONFIG", help="scenario TOML file with a [sweep] table")
    sweep.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                       help="override a dotted key of the config, sweep.key and sweep.values "
                            "included (repeatable)")
    sweep.add_argument("--vary", action="append", default=[], metavar="KEY=V1,V2|KEY=LOW:HIGH",
                       help="a key of the sweep and its values, or its range for a random, lhs or "
                            "sobol design (repeatable: one axis each, the first the figures' x axis); "
                            "replaces the config's [sweep]")
    sweep.add_argument("--design", choices=("grid", "zip", "random", "lhs", "sobol"),
                       help="how the keys combine (sweep.design; default grid)")
    sweep.add_argument("--points", type=_bounded(int, 1, True), metavar="N",
                       help="points a random, lhs or sobol design samples (sweep.points)")
    sweep.add_argument("--design-seed", type=_bounded(int, 0, True), metavar="S",
                       help="the seed such a design samples with (sweep.design_seed; default 0)")
    _add_run_options(sweep, "run.", "short runs")
    sweep.add_argument("--json", metavar="PATH|-",
                       help="write the report and every run's summary as JSON to PATH (its directory "
                            "must exist), or stdout for -")
    sweep.add_argument("--out", type=Path, metavar="DIR",
                       help="write results.json, summary.md, points.csv, runs.csv and figures (PNG, "
                            "SVG) into DIR (created if missing, its parent must exist)")
    sweep.add_argument("--store", type=Path, metavar="DIR",
                       help="keep each finished replication in DIR (created if missing, its parent "
                            "must exist) and read back those already there instead of running them")
    sweep.add_argument("--quiet", action="store_true", help="no progress lines")
    sweep.set_defaults(handler=_sweep)


def _add_capacity_parser(commands):
    """``vsim capacity CONFIG --vary KEY --require ...``: the highest value of a key meeting every requirement."""
    capacity = commands.add_parser(
        "capacity", help="bisect a key for the highest value at which a scenario meets every requirement",
        description="Bisect KEY between --low and --high, running each probe run.replications times "
                    "(seeds as a sweep's), for the highest value whose replications' mean meets every "
                    "--require. Exit status 1 when the range holds no answer (the low end fails, or "
                    "the high end still passes), with its outputs written.")
    capacity.add_argument("config", metavar="CONFIG", help="scenario TOML file")
    capacity.add_argument("--vary", required=True, metavar="KEY",
                          help="the number key to search (vm.instances, vm.streams_per_instance, ...)")
    capacity.add_argument("--require", action="append", required=True, metavar="METRIC<=VALUE",
                          help="a bound on a metric of vsim sweep's report (jitter_p99_ms<=2), with "
                               "<=, >=, < or > (repeatable: every one must be met)")
    capacity.add_argument("--low", type=_bounded(float, -math.inf, False), metavar="L",
                          help="lowest value searched (default: the lowest of the config's [sweep] of KEY)")
    capacity.add_argument("--high", type=_bounded(float, -math.inf, False), metavar="H",
                          help="highest value searched (default: the highest of the config's [sweep] of KEY)")
    capacity.add_argument("--resolution", type=_bounded(float, 0, False), metavar="R",
                          help="width the bracket is narrowed to (default: 1 for a whole-number key, "
                               "1/64 of the range for another)")
    capacity.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                          help="override a dotted key of the config (repeatable)")
    _add_run_options(capacity, "run.", "short runs")
    capacity.add_argument("--json", metavar="PATH|-",
                          help="write the result, every probe and every run's summary as JSON to PATH "
                               "(its directory must exist), or stdout for -")
    capacity.add_argument("--out", type=Path, metavar="DIR",
                          help="write results.json, summary.md and a figure per required metric (PNG, "
                               "SVG) into DIR (created if missing, its parent must exist)")
    capacity.add_argument("--store", type=Path, metavar="DIR",
                          help="keep each probe's finished replications in DIR (created if missing, its "
                               "parent must exist) and read back those already there, as vsim sweep --store")
    capacity.add_argument("--quiet", action="store_true", help="no progress lines")
    capacity.set_defaults(handler=_capacity)


def _add_cluster_parser(commands):
    """``vsim cluster CONFIG``: a cluster of hosts, its decisions and each VM's throughput over time."""
    cluster = commands.add_parser(
        "cluster", help="run a cluster file: hosts on a distributed switch, admission, DRS, vMotion",
        description="Run one replication of a cluster file (hosts with their uplinks on a distributed "
                    "switch, VMs with CPU and bandwidth reservations, DRS, HA and events at set times) "
                    "and print what was admitted, refused or faulted and why, each VM's goodput and "
                    "host between changes, and each migration.")
    cluster.add_argument("config", metavar="CONFIG", help="cluster TOML file ([[host]], [[vm]], [[event]] tables)")
    cluster.add_argument("--seed", type=_bounded(int, 0, True), help="random seed (default: run.seed)")
    cluster.add_argument("--duration", type=_bounded(float, 0, False), metavar="S",
                         help="simulated seconds (default: run.duration)")
    cluster.add_argument("--json", metavar="PATH|-",
                         help="write the run as JSON to PATH (its directory must exist), or stdout for - "
                              "(the report then goes to stderr)")
    cluster.add_argument("--out", type=Path, metavar="DIR",
                         help="write the figure (PNG, SVG), report.txt and results.json into DIR (created "
                              "if missing, its parent must exist)")
    cluster.set_defaults(handler=_cluster)


def _add_describe_parser(commands):
    """``vsim describe TARGET``: a model's parameters or a config's keys."""
    desc = commands.add_parser("describe", help="show a model's parameters or a config's keys")
    desc.add_argument("target", metavar="TARGET",
                      help="a model ref such as workloads/vmcd_g729 or its file (models/workloads/vmcd_g729.toml), "
                           "or a config file (*.toml)")
    desc.set_defaults(handler=_describe)


def _add_jitter_parser(commands):
    """``vsim jitter CAPTURE``: per-stream RTP loss and jitter of a capture."""
    jitter = commands.add_parser("jitter", help="per-stream RTP loss and jitter of a pcap/pcapng capture, "
                                                "as tshark -z rtp,streams computes them")
    jitter.add_argument("capture", metavar="CAPTURE", help="pcap or pcapng file")
    jitter.add_argument("--json", metavar="PATH|-", help="write the streams as JSON to PATH (its directory "
                                                         "must exist), or stdout for -")
    jitter.set_defaults(handler=_jitter)


def _add_validate_parser(commands):
    """``vsim validate TRACE ... --scenario CONFIG``: simulated replications against measured traces."""
    validate = commands.add_parser(
        "validate", help="compare a scenario's replications with measured traces, metric by metric",
        description="Run the scenario's replications and compare them with measured traces (pcap/pcapng "
                    "RTP captures, vsim packets, timer or cpu_ticks traces, SIPp -trace_rtt files): per "
                    "metric the quantile errors, KS statistic, Wasserstein distance and means with 95 % "
                    "intervals, checked against the tolerances of the scenario's [validate] table and "
                    f"--tolerance. Exit 0: every check within tolerance; 1: a check outside it; 2: bad "
                    f"input; {NOTHING_VALIDATED}: nothing validated (no stated tolerance applies to these "
                    "traces).")
    validate.add_argument("traces", nargs="+", metavar="TRACE", help="measured trace files")
    validate.add_argument("--scenario", required=True, metavar="CONFIG", help="scenario TOML file")
    validate.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                          help="override a dotted key of the config (repeatable)")
    validate.add_argument("--replications", type=_bounded(int, 1, True), metavar="N",
                          help="simulated runs (default: run.replications)")
    validate.add_argument("--duration", type=_bounded(float, 0, False), metavar="S",
                          help="simulated seconds per run (default: run.duration)")
    validate.add_argument("--seed", type=_bounded(int, 0, True),
                          help="seed of the first run, the others follow (default: run.seed)")
    validate.add_argument("--tolerance", action="append", default=[], metavar="METRIC.STAT=VALUE",
                          help="a tolerance, over the scenario's of the same name (repeatable), "
                               "e.g. jitter_ms.p99=0.2 or jitter_ms.ks_rank_pvalue=0.05")
    validate.add_argument("--jobs", type=_bounded(int, 1, True), default=1, metavar="N",
                          help="worker processes (default: 1)")
    validate.add_argument("--json", metavar="PATH|-", help="write the results as JSON to PATH (its directory "
                                                           "must exist), or stdout for -")
    validate.add_argument("--out", type=Path, metavar="DIR",
                          help="write report.md, results.json and figures (PNG, SVG) into DIR (created if "
                               "missing, its parent must exist)")
    validate.add_argument("--quiet", action="store_true", help="no progress lines")
    validate.set_defaults(handler=_validate)


def _add_probe_parser(commands):
    """``vsim probe PROBE``: measured traces taken on this machine (the options are the probe package's)."""
    probe = commands.add_parser("probe", help="take measured traces on this Linux machine (timer, net, cpu, "
                                                "steal), or clean up after dead probes (cleanup)")
    add_probe_arguments(probe, _bounded)
    probe.set_defaults(handler=_probe)


def main(argv=None):
    """Run the command in ``argv`` (default: ``sys.argv``); return the exit code. SIGTERM is
    handled as Ctrl-C is while it runs (as ``vsim.__main__`` already had it from the start)."""
    args = build_parser().parse_args(argv)
    real_stdout, sys.stdout = sys.stdout, GuardedStdout(sys.stdout)
    on_sigterm, on_sigint = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    forget_arrived()
    try:
        handle_sigterm()
        with warnings.catch_warnings():
            warnings.simplefilter("always", InputNote)
            warnings.showwarning = _show_note
            code = args.handler(args) or 0
        sys.stdout.flush()  # a full device fails here rather than at the interpreter's exit
        return code
    except InputError as exc:
        print(f"vsim: error: {exc}", file=sys.stderr)
        if exc.source == "standard output":  # what is left in its buffer cannot be written either
            real_stdout = open(os.devnull, "w", encoding="utf-8")
        return 2
    except KeyboardInterrupt as interruption:  # outputs are written atomically: none is left half-written
        print(interrupted_line(interruption), file=sys.stderr)
        return exit_status(signal_of(interruption))
    except BrokenPipeError:  # stdout's reader stopped early (| head): as a tool killed by SIGPIPE
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing left to flush at exit
        return 141
    except Exception:
        signalled = arrived()
        if signalled is not None:  # the signal's exception, turned into another by an extension
            print(interrupted_line(signalled), file=sys.stderr)
            return exit_status(signal_of(signalled))
        traceback.print_exc()
        return INTERNAL_ERROR
    finally:
        sys.stdout = real_stdout
        for signum, handler in ((signal.SIGTERM, on_sigterm), (signal.SIGINT, on_sigint)):
            if handler is not None:  # None: a handler not set from Python, left as it is
                signal.signal(signum, handler)


def _emit(target, text):
    """Write ``text`` to stdout for ``-``, else atomically to the file ``target``."""
    if target == "-":
        sys.stdout.write(text)
        return
    write_text(target, text)


def _note(line):
    print(line, file=sys.stderr, flush=True)


def _show_note(message, category, filename, lineno, file=None, line=None):
    """Print an ``InputNote`` as one ``vsim: note:`` line; any other warning as Python does."""
    if issubclass(category, InputNote):
        _note(f"vsim: note: {message}")
        return
    sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


# ------------------------------------------------------------------ run
def _run(args):
    from vsim.build.load import load_scenario
    from vsim.build.memory import check_memory
    from vsim.build.work import check_work
    from vsim.config.override_source import blaming_overrides
    from vsim.engines.simulation import EngineError, Simulation
    from vsim.results.run_text import run_text
    from vsim.sweep.executor import overrides_text
    if args.json is not None:
        check_output_file(args.json, "--json")
    _check_trace_options(args)
    outputs = [("--json", args.json), ("--trace", args.trace)]
    check_outside(outputs, program_folders())
    config = resolve_config(args.config)
    loaded = load_scenario(config, args.set, sweep_points=False)  # its [sweep] is not run
    check_apart(outputs, loaded.files_read(sweep_points=False))
    run = loaded.scenario.run
    seed = run.seed if args.seed is None else args.seed
    length = RunPlan(duration=args.duration).resolve(run)
    duration, warmup = length.duration, length.warmup
    with blaming_overrides(args.config, args.set):
        length.check(args.config, loaded)
        check_memory([(args.config, loaded, duration)], jobs=1, duration_key=length.duration_key)
        check_work([(args.config, loaded, duration)], 1, length.duration_key, replications_key=None)
    ticks = args.trace is not None and args.trace_kind == "cpu_ticks"
    try:
        sim = Simulation(loaded, seed, engine="events" if ticks and args.engine == "auto" else args.engine)
        if ticks:
            sim.record_ticks()
    except EngineError as exc:
        raise InputError(args.config, "--engine", str(exc)) from None
    if args.trace is not None and args.trace_kind == "sipp_rtt":
        if not sim.sip:
            raise InputError(args.config, "--trace-kind", "expected a scenario with a SIP server for sipp_rtt: "
                                                          "the trace holds its client's response times")
    elif args.trace is not None and not sim.servers:
        raise InputError(args.config, "--trace", "expected a scenario with media servers: a trace holds their "
                                                 "packets, timer wakeups or ticks, and this one has none")
    if args.trace is not None and args.trace_kind == "timer":
        sim.record_wakeups()
    with simulated_clock_bar(duration, Path(args.config).stem) as progress:
        summary = sim.run(duration, warmup, progress)
    params = loaded.scenario.params
    with output_set():
        if args.trace is not None:
            from vsim.results.simulation_trace import run_meta, write_simulation_trace
            write_simulation_trace(args.trace, sim, run_meta(loaded.scenario, args.config, seed, duration,
                                                             warmup, sim.engine), args.trace_kind)
        if args.json is not None:
            doc = {"scenario": loaded.scenario.name, "config": args.config, "overrides": args.set,
                   "seed": seed, "duration": duration, "warmup_s": warmup, "engine": sim.engine,
                   "models": loaded.model_files(), "summary": summary.to_json()}
            if params:
                doc["params"] = params
            _emit(args.json, json.dumps(doc, indent=2, sort_keys=True) + "\n")
    if args.json is None:
        print(run_text(loaded.scenario.name, f"{args.config}{overrides_text(args.set)}", seed, duration,
                       warmup, sim.engine, summary, params, _models_run(loaded)))


def _models_run(loaded):
    """Role -> ref of the models a run's text names: the host's, and the [vm]'s workload when
    [vm] has VMs (groups name their own in the scenario)."""
    refs = {role: model.ref for role, model in loaded.models.items()}
    if not loaded.scenario.vm.instances:
        refs.pop("workload", None)
    return refs


def _check_trace_options(args):
    """--trace names a file (not stdout: the summary may go there) and --trace-kind needs it;
    the kind defaults to packets."""
    if args.trace is None:
        if args.trace_kind is not None:
            raise InputError("--trace-kind", None, "expected --trace PATH too: the kind says what that file holds")
        return
    if args.trace == "-":
        raise InputError("--trace", "-", "expected a file path; a trace is written to a file, not stdout")
    check_output_file(args.trace, "--trace")
    args.trace_kind = args.trace_kind or "packets"


# ------------------------------------------------------------ reproduce
def _reproduce(args):
    from vsim.experiments.comparison import summary_line
    from vsim.experiments.reproduce import (claim_rows, claims_json, run_studies, select_studies,
                                            write_all_study_outputs)
    claims = load_claims()
    modelled, pending = select_studies(args.studies, claims)
    plan = _plan(args)
    figures = _figures_dir(args, plan)
    if args.json is not None:
        check_output_file(args.json, "--json")
    if args.store is not None:
        check_output_dir(args.store, "--store")
    check_outside([("--json", args.json), ("--figures", figures if modelled else None),
                   ("--store", args.store)], program_folders())
    if modelled:
        check_output_dir(figures, "--figures", owned=modelled)
        _refuse_json_among_study_outputs(args.json, figures, modelled)
    for name in pending:
        _note(f"vsim: note: study '{name}' is not modelled yet; its claims are reported as null")
    from vsim.sweep.store import Store
    results = run_studies(modelled, plan, args.jobs, None if args.quiet else _note,
                          store=None if args.store is None else Store(args.store, _note),
                          executor=_executor(args))
    rows = claim_rows(claims, results)
    with output_set():
        if args.json is not None:
            _emit(args.json, claims_json(rows))
        write_all_study_outputs(figures, results, rows, args.jobs if args.executor == "local" else 1)
    for result in results:
        study_rows = [row for row in rows if row.claim.study == result.name]
        _note(f"{result.name}: {summary_line(study_rows)}  "
              f"(figures and tables in {figures / result.name})")


def _refuse_json_among_study_outputs(json_path, figures, studies):
    """A --json file inside a study's figures folder could be one of the files the study writes
    there (its results.json, its comparison table): refuse it before anything runs."""
    if json_path is None or json_path == "-":
        return
    folder = Path(json_path).resolve().parent
    for name in studies:
        if folder == (Path(figures) / name).resolve():
            raise InputError(json_path, "--json", f"expected a file outside {Path(figures) / name}/, "
                                                  f"which holds the outputs of study {name}")


def _replications_key(args):
    """Where the replications came from, to blame: ``--replications`` when given, else the config's key."""
    return "--replications" if args.replications is not None else "run.replications"


def _figures_dir(args, plan):
    """--figures, else figures/ for paper-length runs and figures-quick/ for any others,
    relative to the current directory."""
    if args.figures is not None:
        return args.figures
    return Path(PAPER_FIGURES if plan == RunPlan() else SHORT_FIGURES)


def _plan(args):
    """The run length and replications that --quick, --duration and --replications ask for."""
    plan = QUICK if args.quick else RunPlan()
    if args.duration is not None:  # the warm-up then follows the config's, for that duration
        plan = dataclasses.replace(plan, duration=args.duration, warmup=None, option="--duration")
    if args.replications is not None:
        plan = dataclasses.replace(plan, replications=args.replications)
    return plan


# ---------------------------------------------------------------- sweep
def _sweep(args):
    from vsim.build.load import FROM_FILE, load_scenario
    from vsim.build.memory import check_memory
    from vsim.build.work import check_work
    from vsim.config.override_source import blaming_overrides
    from vsim.config.vary import design_overrides, vary_table
    from vsim.sweep.executor import Sweep, overrides_text, point_runs, run_tasks, sweep_model_files, sweep_tasks
    from vsim.sweep.no_effect import held_settings_notes, no_effect_notes
    from vsim.sweep.report import point_report, report_files, report_json, sweep_metrics, table_text, write_report
    from vsim.sweep.store import Store, run_stored, sweep_keys
    stem = Path(args.config).stem
    if args.out is not None:
        check_output_dir(args.out, "--out", files=report_files(stem))
    if args.store is not None:
        check_output_dir(args.store, "--store")
    if args.json is not None:
        check_output_file(args.json, "--json", created=args.out)
    check_outside([("--json", args.json), ("--out", args.out), ("--store", args.store)], program_folders())
    config = resolve_config(args.config)
    options = (args.design, args.points, args.design_seed)
    design_table = vary_table(args.vary, *options)
    if design_table is None:
        args.set = list(args.set) + design_overrides(*options)
    loaded = load_scenario(config, args.set, sweep=FROM_FILE if design_table is None else design_table)
    check_apart([("--json", args.json), ("--store", args.store)] + _in_dir(args.out, report_files(stem)),
                loaded.files_read())
    scenario = loaded.scenario
    if scenario.sweep is None:
        raise InputError(args.config, "sweep", "expected a [sweep] table with key and values "
                         "(or --set sweep.key=KEY --set sweep.values=[...])")
    length = _plan(args).resolve(scenario.run)
    duration, warmup, replications = length.duration, length.warmup, length.replications
    runs = point_runs(args.config, loaded, duration)
    with blaming_overrides(args.config, args.set):
        length.check(args.config, loaded)
        check_memory(runs, args.jobs, duration_key=length.duration_key)
        check_work(runs, replications, length.duration_key, _replications_key(args))
    tasks = sweep_tasks(config, loaded, duration, warmup, replications, args.set)
    store = None if args.store is None else Store(args.store, _note)
    keys = None if store is None else sweep_keys(loaded, tasks)
    executor = _executor(args)
    summaries = run_stored(tasks, keys, store, lambda todo, finished: run_tasks(
        todo, args.jobs, None if args.quiet else _note, finished_one=finished, executor=executor), _note)
    result = Sweep.from_runs(stem, str(args.config), tasks, summaries, loaded.fitted_claims(),
                             *sweep_model_files(loaded))
    metrics = sweep_metrics(result)
    reports = [point_report(point, metrics) for point in result.points]
    title = (f"{scenario.name}  ({args.config}; {replications} x {duration:g} s per point, "
             f"warm-up {warmup:g} s{overrides_text(args.set)}, "
             f"trimmed mean [95% interval])")
    identical = no_effect_notes(result.key, reports, loaded) if len(result.keys()) == 1 else []
    table = table_text(title, result, reports,
                       identical + [line for key in result.keys() for line in held_settings_notes(key, loaded)])
    if args.json == "-":
        sys.stderr.write(table)
    else:
        sys.stdout.write(table)
    _write_out_and_json(args.out, lambda: write_report(args.out, stem, scenario.name, result, reports),
                        args.json, lambda: report_json(scenario.name, result, reports))


def _write_out_and_json(out, write_out, json_path, json_text):
    """The files of an --out directory (``write_out()``, returning their paths) and the --json
    text (``json_text()``) as one output set, then a note naming the --out files. The
    directory's come first: it creates the directory a --json file may be in."""
    written = []
    with output_set():
        if out is not None:
            try:
                written = write_out()
            except OSError as exc:
                raise InputError(out, None, f"cannot write ({exc.strerror or exc})") from None
        if json_path is not None:
            _emit(json_path, json_text())
    if written:
        _note(f"wrote {', '.join(str(path) for path in written)}")


# ------------------------------------------------------------- capacity
def _capacity(args):
    """Exit code 1 (with a one-line verdict, outputs written) when the range holds no answer."""
    from vsim.build.load import load_scenario
    from vsim.build.memory import check_memory
    from vsim.build.work import check_work
    from vsim.config.override_source import blaming_overrides
    from vsim.sweep.executor import overrides_text
    from vsim.sweep.capacity import (ProbeRunner, bisect, check_requirements, parse_requirement,
                                     varied_key, verdict)
    from vsim.sweep.capacity_report import output_files, result_doc, result_json, table_text, write_outputs
    from vsim.sweep.store import Store
    stem = Path(args.config).stem
    requirements = tuple(parse_requirement(text) for text in args.require)
    files = output_files(stem, requirements)
    if args.out is not None:
        check_output_dir(args.out, "--out", files=files)
    if args.store is not None:
        check_output_dir(args.store, "--store")
    if args.json is not None:
        check_output_file(args.json, "--json", created=args.out)
    check_outside([("--json", args.json), ("--out", args.out), ("--store", args.store)], program_folders())
    config = resolve_config(args.config)
    loaded = load_scenario(config, args.set)
    check_apart([("--json", args.json), ("--store", args.store)] + _in_dir(args.out, files), loaded.files_read())
    check_requirements(requirements, loaded.scenario)
    with blaming_overrides(args.config, args.set):
        key = varied_key(args.config, loaded, args.vary, args.low, args.high, args.resolution)
        length = _plan(args).resolve(loaded.scenario.run)
        length.check(args.config, loaded)
        ends = [(args.config, loaded.with_value(key.key, x), length.duration) for x in (key.low, key.high)]
        try:  # every probe lies between the ends, and none takes more than the high end
            check_memory(ends, args.jobs, duration_key=length.duration_key)
            check_work(ends + [ends[1]] * (key.most_probes() - 2), length.replications, length.duration_key,
                       _replications_key(args))
        except InputError as exc:
            if exc.where != key.key:
                raise
            raise InputError("--high", None, f"at {key.key} = {key.high:g}, {exc.expected}") from None
    runner = ProbeRunner(str(config), loaded, tuple(args.set), key.key, requirements, length.duration,
                         length.warmup, length.replications, args.jobs, None if args.quiet else _note,
                         store=None if args.store is None else Store(args.store, _note),
                         executor=_executor(args))
    search = bisect(key, runner)
    seed = loaded.scenario.run.seed
    stamp = (f"{length.replications} x {length.duration:g} s ({length.warmup:g} s warm-up) per probe, "
             f"seed{f's {seed}-{seed + length.replications - 1}' if length.replications > 1 else f' {seed}'}"
             f"{overrides_text(args.set)}")
    title = f"{loaded.scenario.name}  ({args.config}; {stamp}; {search.key.key} searched)"
    doc = result_doc(loaded.scenario.name, search, {
        "config": args.config, "overrides": list(args.set), "duration": length.duration,
        "warmup": length.warmup, "replications": length.replications,
        "seeds": list(range(seed, seed + length.replications)), "models": loaded.model_files()})
    (sys.stderr if args.json == "-" else sys.stdout).write(table_text(title, search))
    _write_out_and_json(args.out, lambda: write_outputs(args.out, stem, loaded.scenario.name, search, doc, stamp),
                        args.json, lambda: result_json(doc))
    if search.status != "found":
        _note(f"vsim: capacity: {verdict(search)}")
        return 1
    return 0


# -------------------------------------------------------------- cluster
def _cluster(args):
    from vsim.cluster.engine import ClusterRun
    from vsim.cluster.load import load_cluster
    from vsim.cluster.report import output_files, report_json, report_text, write_outputs
    stem = Path(args.config).stem
    if args.out is not None:
        check_output_dir(args.out, "--out", files=output_files(stem))
    if args.json is not None:
        check_output_file(args.json, "--json", created=args.out)
    check_outside([("--json", args.json), ("--out", args.out)], program_folders())
    config = resolve_config(args.config)
    loaded = load_cluster(config)
    check_apart([("--json", args.json)] + _in_dir(args.out, output_files(stem)), loaded.files_read())
    seed = loaded.config.run.seed if args.seed is None else args.seed
    result = ClusterRun(loaded, seed, args.duration).run()
    (sys.stderr if args.json == "-" else sys.stdout).write(report_text(loaded, result))
    _write_out_and_json(args.out, lambda: write_outputs(args.out, stem, loaded, result),
                        args.json, lambda: report_json(loaded, result))


# --------------------------------------------------------------- jitter
def _jitter(args):
    from vsim.validate.jitter_report import capture_stream_stats, report_json, report_text
    if args.json is not None:
        check_output_file(args.json, "--json")
    check_outside([("--json", args.json)], program_folders())
    check_apart([("--json", args.json)], [("the capture", args.capture)])
    streams = capture_stream_stats(args.capture)
    if args.json is None:
        sys.stdout.write(report_text(args.capture, streams))
    else:
        _emit(args.json, report_json(args.capture, streams))


def _check_traces_once(traces):
    """Each measured trace given once: a second copy would count its samples twice."""
    for index, trace in enumerate(traces):
        for earlier in traces[:index]:
            if same_file(trace, earlier):
                raise InputError(trace, None, f"expected each measured trace once; it is also given as {earlier}")


def _in_dir(directory, names):
    """(--out, path) of each file ``names`` an --out ``directory`` receives (none without one)."""
    return [] if directory is None else [("--out", Path(directory) / name) for name in names]


# ------------------------------------------------------------- validate
def _validate(args):
    """Exit code 1 (with a one-line verdict) when a check is outside its tolerance, 4 (with a
    one-line note) when nothing was checked."""
    from vsim.build.load import load_scenario
    from vsim.validate.validation import Options, output_files, run_validation, write_outputs
    from vsim.validate.validation_report import report_text, results_json, verdict_line
    if args.out is not None:
        check_output_dir(args.out, "--out", files=output_files())
    if args.json is not None:
        check_output_file(args.json, "--json", created=args.out)
    check_outside([("--json", args.json), ("--out", args.out)], program_folders())
    scenario = str(resolve_config(args.scenario))
    _check_traces_once(args.traces)
    check_apart([("--json", args.json)] + _in_dir(args.out, output_files()),
                [("a trace to validate", trace) for trace in args.traces]
                + load_scenario(scenario, args.set).files_read(sweep_points=False))
    options = Options(tuple(args.traces), scenario, tuple(args.set), args.replications, args.duration,
                      args.seed, tuple(args.tolerance), args.jobs)
    result = run_validation(options, None if args.quiet else _note)
    (sys.stderr if args.json == "-" else sys.stdout).write(report_text(result.doc))
    _write_out_and_json(args.out, lambda: write_outputs(args.out, result),
                        args.json, lambda: results_json(result.doc))
    if result.failed:
        _note(f"vsim: validation failed: {verdict_line(result.doc)}")
        return 1
    if not result.doc["checks"]:  # a mismatched scenario, or none stated: neither a pass nor a failure
        _note(f"vsim: note: {verdict_line(result.doc)}")
        return NOTHING_VALIDATED
    return 0


# ---------------------------------------------------------------- probe
def _probe(args):
    from vsim.probe.command import run_probe
    run_probe(args)


# ------------------------------------------------------------- describe
def _describe(args):
    from vsim.build.load import load_scenario
    from vsim.config.describe_config import describe_config, describe_file
    from vsim.config.schema_cluster import ClusterConfig, is_cluster_file
    from vsim.config.toml_io import load_toml
    from vsim.config.describe_model import describe_model, model_file_ref, own_model_kind
    from vsim.config.readable import is_file
    target = resolve_config(args.target)
    model_file = model_file_ref(target)
    if model_file is not None:
        models_dir, ref = model_file
        print(describe_model(ref, models_dir))
    elif args.target.endswith(".toml"):
        kind = own_model_kind(target) if is_file(target) else None
        if kind:
            print(describe_model(str(Path(target).resolve()), kind=kind))
        elif is_file(target) and is_cluster_file(load_toml(target)):
            from vsim.cluster.load import load_cluster
            print(describe_file(target, ClusterConfig, load_cluster(target).config))
        else:
            print(describe_config(load_scenario(target)))
    else:
        print(describe_model(args.target))
