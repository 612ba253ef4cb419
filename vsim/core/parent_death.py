"""Child processes that end when their parent does, however the parent ends.

A worker process of a sweep or a probe has nothing to do once the vsim process that started
it is gone, yet an orphan would run on (its parent's SIGKILL, or a SIGTERM it had no time to
pass on, never reaches it), holding memory and CPU. On Linux the kernel can send a child a
signal when its parent dies (``prctl(PR_SET_PDEATHSIG)``); elsewhere a daemon thread watches
for the child being handed to another parent. Either way a parent that died before the child
asked is caught by comparing its parent's pid with the one that started it.
"""

import ctypes
import os
import signal
import threading
import time

PR_SET_PDEATHSIG = 1
WATCH_INTERVAL_S = 0.2
"""How often the watching thread (where the kernel cannot be asked) looks at the parent."""


def _ask_kernel() -> bool:
    """Ask the kernel to SIGKILL this process when its parent dies; whether it can."""
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except AttributeError:  # no prctl: not Linux
        return False
    return prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(WATCH_INTERVAL_S)
    os._exit(1)


def die_with_parent(parent: int) -> None:
    """End this process when ``parent`` (the pid of the process that started it) ends; at once
    if it has already. Safe in a child between fork and exec on Linux, where no thread is
    started and the request survives the exec."""
    if not _ask_kernel():
        threading.Thread(target=_watch, args=(parent,), daemon=True, name="parent watch").start()
    if os.getppid() != parent:  # it ended before the kernel was asked
        os._exit(1)
