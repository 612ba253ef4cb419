"""The ``vsim`` command and ``python -m vsim``: SIGINT and SIGTERM handled before vsim is imported.

Importing the commands (NumPy, SciPy, matplotlib, SimPy) takes most of a second, and a Ctrl-C
or a SIGTERM meanwhile must end the command as one a moment later would: one line on stderr
and status 130 or 143 (``vsim.core.interrupts``), not a traceback from the middle of an
import nor a silent death. So this module imports nothing at its top but ``sys`` (built in,
loaded before any Python code runs), installs the SIGTERM handler first and then imports
``vsim.cli`` and runs it, all under one handler; a Ctrl-C before ``vsim.core.interrupts`` is
imported (its ``signal`` and ``enum`` take some milliseconds) gets the same line from here.
One whose exception Python swallows (raised in a finalizer) is sent again
(``vsim.core.interrupts.redeliver_swallowed``), so that the command does not run to its end.

Once the command has returned its status, SIGINT and SIGTERM are ignored until the process
exits: the command is done, and one arriving while the interpreter shuts down would otherwise
print a traceback from an exit hook, or kill it silently once Python has given its handlers
back, instead of letting it report the status the command returned; and CPython's mark of a
Ctrl-C caught in string-made code, which would turn the status into a death by SIGINT under
``python -m``, is cleared (``vsim.core.interrupts.command_ended``); and the objects left are
set aside from the collector's last pass
(``vsim.engines.collections.leave_objects_to_exit``).

Before NumPy is first imported, the linear-algebra libraries are held to one thread each
(``one_math_thread``) unless the user's environment says otherwise: vsim's arrays are small,
and an OpenBLAS thread pool spins between calls, taking CPU from the other processes of a
``--jobs`` run (the workers inherit the setting).

The interpreter's own start-up (some 30 ms, ``site`` included) and the package's
``__init__``, which puts the compiled scheduler's guard in place before this module is
imported (a millisecond or two), come before any handler of vsim's: a SIGINT then ends Python
as it ends any program.
"""

import sys

MATH_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
"""The environment variables that size OpenBLAS's, OpenMP's and MKL's thread pools, read once,
when NumPy loads its linear-algebra library."""

INTERRUPTED_BY_SIGINT = 130
"""The status of a command stopped by SIGINT, as ``vsim.core.interrupts.exit_status`` gives it
(128 + 2), for a Ctrl-C that lands before that module is imported."""


def one_math_thread() -> None:
    """Hold NumPy's linear-algebra library to one thread, unless the environment sets its
    size: with a pool, 60 s of the 12-instance point on two idle cores took 1.05 times the CPU
    time (its threads spinning on the other core), the same bytes."""
    import os  # loaded by the interpreter's start-up already
    for name in MATH_THREAD_VARIABLES:
        os.environ.setdefault(name, "1")


def main(argv: list[str] | None = None) -> int:
    """Run the ``vsim`` command line ``argv`` (default: ``sys.argv``); return its exit status.

    This is the process's entry point: SIGINT and SIGTERM stay ignored once it returns."""
    try:
        from vsim.core.interrupts import (command_ended, exit_status, handle_sigterm, interrupted_line,
                                          redeliver_swallowed, signal_of)
    except KeyboardInterrupt:  # no SIGTERM handler yet: only Python's SIGINT one can be here
        exec("")  # clears CPython's mark of an interrupt in string-made code (``command_ended``)
        print("vsim: interrupted", file=sys.stderr)
        return INTERRUPTED_BY_SIGINT
    try:
        try:
            handle_sigterm()
            redeliver_swallowed()
            one_math_thread()
            from vsim.cli import main as run_command_line
            return run_command_line(argv)
        finally:  # its status, or the SystemExit of --help, --version or a bad option
            command_ended()
            from vsim.engines.collections import leave_objects_to_exit
            leave_objects_to_exit()
    except KeyboardInterrupt as interruption:  # while importing, or outside the command's own handler
        command_ended()  # again: the signal may have cut the first one short
        print(interrupted_line(interruption), file=sys.stderr)
        return exit_status(signal_of(interruption))


if __name__ == "__main__":
    sys.exit(main())
