"""SIGTERM handled as Ctrl-C is: its exception, its line and its exit status."""

import os
import signal
import threading
import time

import pytest

from vsim.core.interrupts import (Terminated, arrived, exit_status, forget_arrived, handle_sigterm,
                                  interrupted_line, interrupts_held, signal_of)


@pytest.fixture
def sigterm_restored():
    """SIGTERM's and SIGINT's handlers as they were before the test, whatever the test made of them."""
    before = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    yield
    signal.signal(signal.SIGTERM, before[0])
    signal.signal(signal.SIGINT, before[1])


def test_sigterm_raises_terminated_a_keyboard_interrupt(sigterm_restored):
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    handle_sigterm()
    with pytest.raises(KeyboardInterrupt) as caught:
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)
    assert isinstance(caught.value, Terminated) and signal_of(caught.value) == signal.SIGTERM


def test_an_ignored_sigterm_stays_ignored(sigterm_restored):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    handle_sigterm()
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_IGN


def test_each_signal_has_its_line_and_the_shells_status():
    assert (interrupted_line(KeyboardInterrupt()), exit_status(signal_of(KeyboardInterrupt()))) == (
        "vsim: interrupted", 130)
    assert (interrupted_line(Terminated()), exit_status(signal_of(Terminated()))) == (
        "vsim: interrupted by SIGTERM", 143)


def test_a_held_signal_arrives_when_the_block_ends(sigterm_restored):
    handle_sigterm()
    reached = []
    with pytest.raises(Terminated):
        with interrupts_held():
            # to this thread: the mask is per thread, and a process-wide signal may go to
            # another thread a test left running, whose handler then runs here at once
            signal.pthread_kill(threading.main_thread().ident, signal.SIGTERM)
            time.sleep(0.05)
            reached.append("end of the block")
    assert reached == ["end of the block"]


def _turned_into_type_error(signum):
    """What an extension that converts exceptions raised inside its call does with a signal's."""
    try:
        signal.pthread_kill(threading.main_thread().ident, signum)
        time.sleep(5)
    except KeyboardInterrupt:
        raise TypeError("incompatible function arguments") from None


@pytest.mark.parametrize("signum, kind", [(signal.SIGTERM, Terminated), (signal.SIGINT, KeyboardInterrupt)])
def test_a_signal_is_remembered_though_an_extension_turned_its_exception_into_another(
        sigterm_restored, signum, kind):
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    handle_sigterm()
    forget_arrived()
    assert arrived() is None
    with pytest.raises(TypeError):
        _turned_into_type_error(signum)
    assert type(arrived()) is kind
    forget_arrived()
    assert arrived() is None
