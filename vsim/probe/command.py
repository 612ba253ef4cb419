"""Dispatch of ``vsim probe SUBCOMMAND``: checks shared by every probe, and what an interruption prints."""

import sys
from pathlib import Path

from vsim.outputs.output_check import check_apart, check_output_file
from vsim.probe import cleanup, cpu_probe, net_probe, steal_probe, timer_probe
from vsim.probe.guard import HardTimeout, Interrupted

EXIT_INTERRUPTED = 130


def _note(line):
    print(line, file=sys.stderr, flush=True)


def _check_net_outputs(args):
    """The net probe's three files (trace, capture, summary) writable and distinct, before probing."""
    out = Path(args.out)
    files = [("--out", out), ("--pcap", net_probe.pcap_path(args)),
             ("the summary", out.with_suffix(".summary.txt"))]
    for label, path in files[1:]:
        check_output_file(str(path), label)
    check_apart(files, [])


def run_probe(args):
    """Run the probe named by ``args.probe`` (progress lines on stderr, the result on stdout);
    interruptions clean up, then exit 130 with one line."""
    probes = {"timer": timer_probe.run, "net": net_probe.run, "cpu": cpu_probe.run, "steal": steal_probe.run,
              "cleanup": cleanup.run}
    for option in ("out", "pcap"):
        if getattr(args, option, None) is not None:
            check_output_file(getattr(args, option), f"--{option}")
    if args.probe == "net":
        _check_net_outputs(args)
    try:
        line = probes[args.probe](args, _note)
    except Interrupted as exc:
        _note(f"vsim: probe {args.probe} {exc}; everything it set up was removed, no trace written")
        raise SystemExit(EXIT_INTERRUPTED) from None
    except HardTimeout:
        _note(f"vsim: error: probe {args.probe} passed its hard deadline; everything it set up was "
              "removed, no trace written")
        raise SystemExit(1) from None
    print(line)
