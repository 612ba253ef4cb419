"""Dispatch of ``vsim probe SUBCOMMAND``: checks shared by every probe, and what an interruption prints.

An interrupted probe exits as any vsim command: 130 after SIGINT, 143 after SIGTERM; one
past its hard deadline exits 1. Its last line says whether everything it set up was removed.
"""

import sys
from pathlib import Path

from vsim.config.data_dirs import program_folders
from vsim.core.interrupts import exit_status
from vsim.outputs.output_check import check_apart, check_output_file, check_outside
from vsim.probe import cleanup, cpu_probe, net_probe, steal_probe, timer_probe
from vsim.probe.guard import HardTimeout, Interrupted


def _note(line):
    print(line, file=sys.stderr, flush=True)


def _check_net_outputs(args):
    """The net probe's three files (trace, capture, summary) writable and distinct, before probing."""
    out = Path(args.out)
    files = [("--out", out), ("--pcap", net_probe.pcap_path(args)),
             ("the summary", out.with_suffix(".summary.txt"))]
    for label, path in files[1:]:
        check_output_file(str(path), label)
    check_outside(files, program_folders())
    check_apart(files, [])


def _teardown(stopped):
    """What became of what the ``stopped`` probe set up (an ``Interrupted`` or ``HardTimeout``)."""
    if stopped.left:
        return "not everything it set up could be removed (named above), no trace written"
    return "everything it set up was removed, no trace written"


def run_probe(args):
    """Run the probe named by ``args.probe`` (progress lines on stderr, the result on stdout);
    interruptions clean up, then exit 130 (SIGINT) or 143 (SIGTERM) with one line."""
    probes = {"timer": timer_probe.run, "net": net_probe.run, "cpu": cpu_probe.run, "steal": steal_probe.run,
              "cleanup": cleanup.run}
    for option in ("out", "pcap"):
        if getattr(args, option, None) is not None:
            check_output_file(getattr(args, option), f"--{option}")
            check_outside([(f"--{option}", getattr(args, option))], program_folders())
    if args.probe == "net":
        _check_net_outputs(args)
    try:
        line = probes[args.probe](args, _note)
    except Interrupted as exc:
        _note(f"vsim: probe {args.probe} {exc}; {_teardown(exc)}")
        raise SystemExit(exit_status(exc.signum)) from None
    except HardTimeout as exc:
        _note(f"vsim: error: probe {args.probe} passed its hard deadline; {_teardown(exc)}")
        raise SystemExit(1) from None
    print(line)
