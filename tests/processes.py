"""Running ``vsim`` as a child process to signal it, and finding what it leaves running.

The child leads a session (and so a process group) of its own: every process it starts, a
pool's workers and multiprocessing's resource tracker included, stays in that group even
once vsim itself is dead and they are handed to another parent, so the group's members read
from /proc are what it left behind. Its stdout and stderr go to files, not pipes, so that a
process it left holding them cannot keep a test waiting for their end.
"""

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _default_signals():
    """SIGINT and SIGTERM back to their defaults in the child, as a terminal's job has them: a suite
    started in the background of a shell script inherits SIGINT ignored, and so would vsim."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def wait_for(condition, timeout=30.0, what="the condition", state=None):
    """Poll ``condition()`` until it is true; fail the test after ``timeout`` s, saying what
    ``state()`` gives then, when given."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out waiting for {what}" + (f": {state()}" if state else ""))
        time.sleep(0.01)


def group_members(pgid, marker=b""):
    """Pids of the live (not zombie) processes of process group ``pgid`` whose command line
    contains ``marker``."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        state, _ppid, group = stat.rsplit(")", 1)[1].split()[:3]
        if int(group) == pgid and state != "Z" and marker in command:
            members.append(int(entry.name))
    return members


def _command_line(pid):
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return f"{pid} (gone)"


def caught_signals(pid):
    """The signals process ``pid`` has a handler for (its SigCgt in /proc), empty once it is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return set()
    mask = int(next(line.split()[1] for line in status.splitlines() if line.startswith("SigCgt:")), 16)
    return {signum for signum in signal.Signals if mask >> (signum - 1) & 1}


class Vsim:
    """``python -m vsim ARGS`` in a session of its own (a context manager that kills whatever of
    it is left on the way out)."""

    def __init__(self, *args, cwd=None):
        self._stdout = tempfile.TemporaryFile("w+", encoding="utf-8")
        self._stderr = tempfile.TemporaryFile("w+", encoding="utf-8")
        self.process = subprocess.Popen([sys.executable, "-m", "vsim", *map(str, args)], cwd=cwd,
                                        stdin=subprocess.DEVNULL, stdout=self._stdout, stderr=self._stderr,
                                        start_new_session=True, preexec_fn=_default_signals)
        self.pid = self.process.pid

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for pid in group_members(self.pid):
            os.kill(pid, signal.SIGKILL)
        self.process.wait()
        self._stdout.close()
        self._stderr.close()

    def stderr(self):
        """What it has written on stderr so far."""
        self._stderr.seek(0)
        return self._stderr.read()

    def members(self, marker=b""):
        """Its process group's live members (itself included while it runs) with ``marker`` in their
        command line."""
        return group_members(self.pid, marker)

    def finish(self, timeout=30.0):
        """Wait for it to exit; (exit status, stdout, stderr)."""
        code = self.process.wait(timeout)
        self._stdout.seek(0)
        return code, self._stdout.read(), self.stderr()

    def wait_gone(self, timeout=10.0):
        """Wait until nothing it started is left running; fail naming what is, after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        while self.members() and time.monotonic() < deadline:
            time.sleep(0.05)
        left = self.members()
        assert not left, f"left running: {[_command_line(pid) for pid in left]}"
