"""The ``vsim`` command and ``python -m vsim``: SIGINT and SIGTERM handled before vsim is imported.

Importing the commands (NumPy, SciPy, matplotlib, SimPy) takes most of a second, and a Ctrl-C
or a SIGTERM meanwhile must end the command as one a moment later would: one line on stderr
and status 130 or 143 (``vsim.core.interrupts``), not a traceback from the middle of an
import nor a silent death. So this module, which imports nothing heavy, installs the SIGTERM
handler first and then imports ``vsim.cli`` and runs it, both under one handler.
"""

import sys

from vsim.core.interrupts import exit_status, handle_sigterm, interrupted_line, signal_of


def main(argv: list[str] | None = None) -> int:
    """Run the ``vsim`` command line ``argv`` (default: ``sys.argv``); return its exit status."""
    try:
        handle_sigterm()
        from vsim.cli import main as run_command_line
        return run_command_line(argv)
    except KeyboardInterrupt as interruption:  # while importing, or outside the command's own handler
        print(interrupted_line(interruption), file=sys.stderr)
        return exit_status(signal_of(interruption))


if __name__ == "__main__":
    sys.exit(main())
