"""Tests of standard output that fails with one line when it cannot be written."""

import io
import subprocess
import sys
from pathlib import Path

import pytest

from vsim.core.errors import InputError
from vsim.outputs.standard_output import GuardedStdout

CONFIG = Path(__file__).resolve().parents[2] / "configs" / "voip-vsphere5" / "fig2.toml"


def test_a_closed_stdout_is_an_input_error_on_write_only():
    closed = GuardedStdout(None)
    closed.flush()  # nothing written, nothing to fail
    with pytest.raises(InputError, match="standard output: cannot write \\(it is closed\\)"):
        closed.write("x")


def test_a_full_device_is_an_input_error():
    class Full(io.StringIO):
        def flush(self):
            raise OSError(28, "No space left on device")

    guarded = GuardedStdout(Full())
    guarded.write("summary\n")  # buffered
    with pytest.raises(InputError, match="No space left on device"):
        guarded.flush()


def test_a_reader_that_stopped_is_still_a_broken_pipe():
    class Stopped(io.StringIO):
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")

    with pytest.raises(BrokenPipeError):
        GuardedStdout(Stopped()).write("x")


def test_writes_pass_through_and_attributes_are_the_streams():
    stream = io.StringIO()
    guarded = GuardedStdout(stream)
    guarded.write("a")
    assert stream.getvalue() == "a" and guarded.getvalue() == "a"


@pytest.mark.parametrize("stdout", ["full", "closed"])
def test_vsim_run_with_unwritable_stdout_says_so_in_one_line(stdout):
    target = {"full": open("/dev/full", "wb"), "closed": None}[stdout]
    command = [sys.executable, "-m", "vsim", "run", str(CONFIG), "--duration", "1"]
    if stdout == "closed":
        command = ["sh", "-c", '"$0" "$@" >&-', *command]
    done = subprocess.run(command, stdout=target, stderr=subprocess.PIPE, text=True)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [done.stderr.strip()] and "vsim: error: standard output" in done.stderr
