"""Running ``vsim probe`` from the probe tests, in-process or as a child process."""

import subprocess
import sys

from vsim import cli


def vsim(capsys, *args):
    """Run the CLI in-process; return (exit code, stdout, stderr)."""
    try:
        code = cli.main(list(args))
    except SystemExit as exit_:
        code = exit_.code
    out, err = capsys.readouterr()
    return code, out, err


def vsim_child(*args):
    """Start ``vsim`` as a child process (stdout and stderr piped, text)."""
    return subprocess.Popen([sys.executable, "-m", "vsim", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
