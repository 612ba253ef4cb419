"""SIGINT and SIGTERM stop a command the same way: one exception, one line, the shell's status.

Python turns SIGINT (Ctrl-C) into ``KeyboardInterrupt``; ``handle_sigterm`` turns SIGTERM
(``kill``, ``timeout``, a job scheduler) into ``Terminated``, a ``KeyboardInterrupt`` of its
own, so that everything that tidies up after a Ctrl-C (temporary files removed, worker
processes stopped) does the same after a SIGTERM. The exit status is the one a shell shows
for a process killed by the signal, 128 plus its number: 130 for SIGINT, 143 for SIGTERM.
This module imports nothing heavy, so that a command's entry point can install the handler
before it imports the rest of vsim.

A signal's exception is raised wherever the main thread is, and some extensions (matplotlib's
compiled transforms, for one) turn an exception raised inside their call into an error of their
own, a ``TypeError`` about their arguments. So the handlers also record that the signal arrived
(``arrived``): a command that fails after one did reports the interruption, not that error.
"""

import os
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

INTERRUPTS = (signal.SIGINT, signal.SIGTERM)
"""The signals that stop a command (held back while worker processes start or outputs are
put in place)."""


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived: raised in the main thread by the handler ``handle_sigterm`` installs."""


_arrived: list[signal.Signals] = []
"""The interrupting signals that arrived since ``forget_arrived`` (the first one decides)."""


def _raise_terminated(signum: int, frame: object) -> None:
    _arrived.append(signal.SIGTERM)
    raise Terminated()


def _raise_keyboard_interrupt(signum: int, frame: object) -> None:
    _arrived.append(signal.SIGINT)
    raise KeyboardInterrupt()


def handle_sigterm() -> None:
    """Make SIGTERM raise ``Terminated``, unless the process started with it ignored (then it
    stays ignored, as Python leaves an ignored SIGINT), and have SIGINT's ``KeyboardInterrupt``
    recorded too where Python's own handler is in place."""
    if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _raise_terminated)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _raise_keyboard_interrupt)


REDELIVERY_DELAY_S = 0.001
"""How long a swallowed signal waits before it is sent again: time for the finalizer that
swallowed it to return, so that the exception is raised in the code that runs after it."""


def redeliver_swallowed() -> None:
    """Send again a signal whose exception Python swallowed, so that the command still stops.

    A handler's exception raised inside a finalizer (``__del__``, a weakref callback: the import
    system's module locks have one) cannot propagate; Python prints "Exception ignored in ..."
    with a traceback and goes on, and the command ran to its end and exited 0. A thread sends
    the signal again a moment later, from outside the finalizer (sent from the hook itself,
    its exception would be raised in the hook, and swallowed too); should that one land in a
    finalizer as well, it is sent once more. Other unraisable exceptions go to the hook that
    was in place. For a command's process (``vsim.__main__``), which has no other use for
    the hook."""
    import threading  # here: the entry point imports nothing it does not need before its handler

    previous = sys.unraisablehook

    def send_again(signum: signal.Signals) -> None:
        time.sleep(REDELIVERY_DELAY_S)
        os.kill(os.getpid(), signum)

    def hook(unraisable: "sys.UnraisableHookArgs") -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            threading.Thread(target=send_again, args=(signal_of(unraisable.exc_value),), daemon=True,
                             name="signal sent again").start()
        else:
            previous(unraisable)

    sys.unraisablehook = hook


def forget_arrived() -> None:
    """Start a command afresh: no interrupting signal has arrived yet."""
    _arrived.clear()


def arrived() -> KeyboardInterrupt | None:
    """The interruption a signal raised since ``forget_arrived``, even where an extension turned
    it into an error of its own; None if no SIGINT or SIGTERM arrived."""
    if not _arrived:
        return None
    return Terminated() if _arrived[0] == signal.SIGTERM else KeyboardInterrupt()


@contextmanager
def interrupts_held() -> Iterator[None]:
    """Hold SIGINT and SIGTERM back in the block: one that arrives meanwhile is delivered as it ends.

    A held signal stays held across fork and exec, so processes started in the block begin
    with both held and never see them (their parent decides what they mean), while for this
    process the signal is only delayed.
    """
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, INTERRUPTS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def command_ended() -> None:
    """The command has its status: let the process exit with it, whatever arrives meanwhile.

    SIGINT and SIGTERM are ignored from now on, so one arriving as the interpreter shuts down
    is dropped. Ignored, not held back: a held signal would still reach another thread (a
    numerical library's) and wake the handler, and Python leaves an ignored signal ignored as
    it exits, where it sets handled ones back to their default action (death, status -2, with
    nothing said). And CPython (3.11, 3.12) marks a ``KeyboardInterrupt`` that ends code run
    from a string (``exec``, ``eval``: namedtuple's and dataclasses' methods are made so, on
    import) as unhandled even when a caller catches it; under ``python -m`` it then ends the
    process with SIGINT instead of the status returned. A string ``exec`` clears that mark."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    exec("")


def signal_of(interruption: KeyboardInterrupt) -> signal.Signals:
    """The signal behind ``interruption``: SIGTERM for ``Terminated``, else SIGINT."""
    return signal.SIGTERM if isinstance(interruption, Terminated) else signal.SIGINT


def exit_status(signum: int) -> int:
    """The status of a command stopped by ``signum``: 128 + its number, as a shell reports a
    process the signal killed."""
    return 128 + signum


def interrupted_line(interruption: KeyboardInterrupt) -> str:
    """The one line on stderr: ``vsim: interrupted`` for Ctrl-C, ``vsim: interrupted by SIGTERM``."""
    signum = signal_of(interruption)
    return "vsim: interrupted" if signum == signal.SIGINT else f"vsim: interrupted by {signum.name}"
