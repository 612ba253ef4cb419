"""Running ``vsim probe`` from the probe tests as a child process (in-process: ``cli_run.vsim``)."""

import subprocess
import sys


def vsim_child(*args):
    """Start ``vsim`` as a child process (stdout and stderr piped, text), leading a process group of its
    own, so that ``os.killpg(child.pid, signal.SIGINT)`` is a terminal's Ctrl-C: it reaches vsim and
    every process vsim started."""
    return subprocess.Popen([sys.executable, "-m", "vsim", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, process_group=0)
