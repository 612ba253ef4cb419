"""Absolute-deadline sleeps on CLOCK_MONOTONIC, as rt-tests' cyclictest does them.

Python's ``time.sleep`` takes a relative duration, so a loop built on it
drifts by the time spent between reading the clock and sleeping. Here the
C library's ``clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, ...)`` is called
through ctypes, which releases the GIL while it sleeps: the kernel wakes the
thread at the deadline itself. What Python still adds on top of the C call is
the interpreter's work after the wake-up (returning from ctypes, taking the
GIL back, reading the clock again), which ``vsim probe timer`` measures by
comparison with cyclictest.
"""

import ctypes
import errno
import os
import time

CLOCK_MONOTONIC = time.CLOCK_MONOTONIC
TIMER_ABSTIME = 1
NS = 1_000_000_000


class _Timespec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


_libc = ctypes.CDLL(None, use_errno=True)
_libc.clock_nanosleep.argtypes = (ctypes.c_int, ctypes.c_int, ctypes.POINTER(_Timespec), ctypes.c_void_p)
_libc.clock_nanosleep.restype = ctypes.c_int


def now_ns():
    """CLOCK_MONOTONIC in integer nanoseconds (the same clock in every process and namespace)."""
    return time.clock_gettime_ns(CLOCK_MONOTONIC)


def sleep_until_ns(deadline_ns):
    """Sleep until CLOCK_MONOTONIC reaches ``deadline_ns``; return at once if it already has.

    A signal interrupts the sleep (EINTR); the sleep then resumes toward the
    same deadline unless the signal's Python handler raised, which it does
    as soon as control is back in the interpreter.
    """
    when = _Timespec(deadline_ns // NS, deadline_ns % NS)
    while True:
        code = _libc.clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, ctypes.byref(when), None)
        if code == 0:
            return
        if code != errno.EINTR:
            raise OSError(code, os.strerror(code))
