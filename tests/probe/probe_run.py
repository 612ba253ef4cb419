"""Running ``vsim probe`` from the probe tests as a child process (in-process: ``cli_run.vsim``)."""

import subprocess
import sys


def vsim_child(*args):
    """Start ``vsim`` as a child process (stdout and stderr piped, text)."""
    return subprocess.Popen([sys.executable, "-m", "vsim", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
