"""Standard output that fails with one line, not a traceback, when it cannot be written.

``vsim`` prints its reports (and ``--json -``) on stdout. When stdout is a
full device (``> /dev/full``) or was closed by the caller (``>&-``), writing
raises ``OSError`` (or finds no stream at all) somewhere deep in a report, or
only at the interpreter's final flush. ``GuardedStdout`` wraps the real
stream for the command's lifetime and turns such a failure into an
``InputError`` naming standard output, which the CLI prints as one line with
exit code 2. A reader that stopped early (``| head``) is not such a failure:
``BrokenPipeError`` passes through for the CLI to exit as a tool killed by
SIGPIPE would.
"""

from vsim.core.errors import InputError


class GuardedStdout:
    """A text stream delegating to ``stream`` (None: stdout was closed) whose write and flush
    failures are ``InputError``."""

    def __init__(self, stream):
        self.stream = stream

    def _fail(self, reason):
        raise InputError("standard output", None, f"cannot write ({reason}); redirect it or use --json PATH")

    def _call(self, method, *args):
        try:
            return getattr(self.stream, method)(*args)
        except BrokenPipeError:
            raise
        except OSError as exc:
            self._fail(exc.strerror or exc)

    def write(self, text):
        if self.stream is None:
            self._fail("it is closed")
        return self._call("write", text)

    def flush(self):
        if self.stream is not None:
            self._call("flush")

    def __getattr__(self, name):
        if self.stream is None:
            self._fail("it is closed")
        return getattr(self.stream, name)
