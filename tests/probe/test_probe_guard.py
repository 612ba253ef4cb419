"""Tests of the guard: undo steps in reverse order, on errors, signals and the hard deadline."""

import os
import signal
import subprocess
import sys
import time

import pytest

from vsim.probe.guard import Guard, HardTimeout, Interrupted


def test_undo_steps_run_newest_first():
    done = []
    with Guard(10) as guard:
        for step in range(3):
            guard.on_exit(f"step {step}", done.append, step)
    assert done == [2, 1, 0]


def test_a_failing_step_is_reported_and_the_others_still_run():
    done, warnings = [], []

    def fail():
        raise RuntimeError("boom")

    with Guard(10, warn=warnings.append) as guard:
        guard.on_exit("first", done.append, 1)
        guard.on_exit("explode", fail)
    assert done == [1]
    assert warnings == ["vsim: warning: could not explode: boom"]


def test_an_error_in_the_block_still_undoes():
    done = []
    with pytest.raises(ZeroDivisionError):
        with Guard(10) as guard:
            guard.on_exit("step", done.append, "undone")
            1 / 0
    assert done == ["undone"]


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_interrupts_and_undoes(signum):
    done = []
    with pytest.raises(Interrupted) as caught:
        with Guard(10) as guard:
            guard.on_exit("step", done.append, "undone")
            os.kill(os.getpid(), signum)
            time.sleep(5)
    assert caught.value.signum == signum
    assert done == ["undone"]


def test_the_hard_deadline_ends_a_hung_block():
    done = []
    with pytest.raises(HardTimeout):
        with Guard(0.05) as guard:
            guard.on_exit("step", done.append, "undone")
            time.sleep(5)
    assert done == ["undone"]


def test_signal_handlers_are_restored():
    before = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGALRM)}
    with Guard(10):
        pass
    assert {signum: signal.getsignal(signum) for signum in before} == before
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_children_are_stopped_when_the_block_ends():
    with Guard(10) as guard:
        child = guard.start([sys.executable, "-c", "import time; time.sleep(60)"])
        assert child.poll() is None
    assert child.poll() is not None


def test_children_ignore_a_terminals_ctrl_c_and_are_still_stopped():
    with Guard(10) as guard:
        child = guard.start([sys.executable, "-c", "import time; time.sleep(60)"], stderr=subprocess.PIPE)
        time.sleep(0.3)  # past the interpreter's start-up
        child.send_signal(signal.SIGINT)
        time.sleep(0.3)
        assert child.poll() is None
    assert child.poll() is not None and child.stderr.read() == b""
