"""A child that asked to die with its parent ends when the parent is killed outright."""

import os
import signal
import subprocess
import sys
import time

CHILD = ("import os, sys, time; from vsim.core.parent_death import die_with_parent; "
         "die_with_parent(int(sys.argv[1])); print(os.getpid(), flush=True); time.sleep(60)")
PARENT = ("import os, subprocess, sys, time; "
          f"child = subprocess.Popen([sys.executable, '-c', {CHILD!r}, str(os.getpid())]); time.sleep(60)")


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _wait_gone(pid, timeout=5.0):
    deadline = time.monotonic() + timeout
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    return not _alive(pid)


def test_the_child_ends_when_its_parent_is_killed():
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True)
    try:
        child = int(parent.stdout.readline())
        assert _alive(child)
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        assert _wait_gone(child)
    finally:
        parent.kill()
        parent.wait()


def test_a_child_whose_parent_is_already_gone_ends_at_once():
    """It asks too late when the parent died first: the parent pid it was given is not its own."""
    child = subprocess.run([sys.executable, "-c", CHILD, str(os.getpid() + 10**6)], capture_output=True,
                           text=True, timeout=30)
    assert child.returncode == 1 and child.stdout == ""
