"""Running ``vsim probe`` from the probe tests, in-process or as a child process."""

import subprocess
import sys

from cli_run import vsim  # noqa: F401  (the probe tests import it from here)


def vsim_child(*args):
    """Start ``vsim`` as a child process (stdout and stderr piped, text)."""
    return subprocess.Popen([sys.executable, "-m", "vsim", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
