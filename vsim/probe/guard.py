"""Bounded, interruptible probe runs that always undo what they set up, or say what is left.

A probe creates kernel objects (namespaces, veths, qdiscs, cgroups) and child
processes. ``Guard`` makes sure they go away whatever happens: the probe
registers an undo step right after each thing it creates, and the steps run
in reverse order when the ``with`` block ends, normally, on an error, on
SIGINT or SIGTERM (turned into ``Interrupted``) or when the hard deadline
passes (SIGALRM, turned into ``HardTimeout``), so even a hung child or
syscall cannot keep a probe running past it. While the steps run, those
signals are blocked so that a second Ctrl-C cannot cut the cleanup short. A
step that fails is reported with what it left (``Guard.left``), so that the
probe never claims to have removed what is still there.

Children started through ``Guard.start`` are forked with those signals held
back: a handler run while Python forks runs inside its at-fork hooks, where
an exception is printed and dropped, and the signal would be lost. They also
get SIGKILL from the kernel if the probe itself dies
(``vsim.core.parent_death``), so none outlives it, and ignore SIGINT: a
Ctrl-C at a terminal reaches the whole foreground process group, and the
probe, not each child, decides what it means (it stops them in its undo
steps), so the user sees one line, not a traceback from every child. A
signal whose exception was dropped all the same (by a hook or a finalizer
that swallows exceptions) is raised when the block ends.
"""

import os
import signal
import subprocess
import sys

from vsim.core.parent_death import die_with_parent

_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGALRM)


class Interrupted(BaseException):
    """SIGINT or SIGTERM arrived during a probe."""

    left = ()
    """What the guard's undo steps could not remove (``Guard.left``)."""

    def __init__(self, signum):
        self.signum = signum
        super().__init__(f"interrupted by {signal.Signals(signum).name}")


class HardTimeout(BaseException):
    """The probe ran past its hard deadline."""

    left = ()
    """What the guard's undo steps could not remove (``Guard.left``)."""


def _raise_timeout(signum, frame):
    raise HardTimeout()


class Guard:
    """A ``with`` block with a hard deadline of ``limit_s`` seconds and undo steps run on exit."""

    def __init__(self, limit_s, warn=None):
        self.limit_s = limit_s
        self.warn = warn or (lambda line: print(line, file=sys.stderr, flush=True))
        self._undo = []
        self._saved = {}
        self._received = []
        self.left = []
        """What failed undo steps left behind: one description each, with why."""

    def _interrupt(self, signum, frame):
        self._received.append(signum)
        raise Interrupted(signum)

    def __enter__(self):
        for signum in _SIGNALS:
            self._saved[signum] = signal.getsignal(signum)
        signal.signal(signal.SIGINT, self._interrupt)
        signal.signal(signal.SIGTERM, self._interrupt)
        signal.signal(signal.SIGALRM, _raise_timeout)
        signal.setitimer(signal.ITIMER_REAL, self.limit_s)
        return self

    def __exit__(self, exc_type, exc, tb):
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
        try:
            self.undo_all()
        finally:
            for signum, handler in self._saved.items():
                signal.signal(signum, handler)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, _SIGNALS)
        if self.left:
            self.warn(f"vsim: warning: what is named above is still there: `vsim probe cleanup` (or the "
                      f"next probe) removes it once this probe (pid {os.getpid()}) has ended")
        if self._received and not isinstance(exc, (Interrupted, HardTimeout)):
            exc = Interrupted(self._received[0])  # its own exception was dropped on the way
            exc.left = tuple(self.left)
            raise exc
        if isinstance(exc, (Interrupted, HardTimeout)):
            exc.left = tuple(self.left)
        return False

    def on_exit(self, what, function, *args):
        """Register ``function(*args)`` (described by ``what``) to run when the block ends."""
        self._undo.append((what, function, args))

    def undo_all(self):
        """Run the undo steps, newest first; a failing step is reported, with what it left, in
        ``left``, and the rest still run."""
        while self._undo:
            what, function, args = self._undo.pop()
            try:
                function(*args)
            except Exception as exc:  # cleanup must go on; say what was left
                self.warn(f"vsim: warning: could not {what}: {exc}")
                self.left.append(f"{what}: {exc}")

    def start(self, argv, before_exec=None, **popen):
        """Start a child process that is stopped when the block ends and killed if the probe dies.

        ``before_exec()``, if given, runs in the child before it execs ``argv``
        (to move it into a cgroup, say).
        """
        parent = os.getpid()

        def prepare():
            die_with_parent(parent)
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # kept across exec; Python then raises no KeyboardInterrupt
            signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the probe's handler: stop() ends the child
            if before_exec is not None:
                before_exec()
            signal.pthread_sigmask(signal.SIG_SETMASK, held)

        held = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
        try:  # a signal held back here is raised once the child is registered to be stopped
            child = subprocess.Popen(argv, preexec_fn=prepare, **popen)
            self.on_exit(f"stop {argv[0]} (pid {child.pid})", stop, child)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
        return child


def stop(child, grace_s=2.0):
    """Terminate ``child``, then kill it if it has not exited within ``grace_s``."""
    if child.poll() is None:
        child.terminate()
        try:
            child.wait(grace_s)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
