"""Tests of cyclictest's command line and of reading its verbose output."""

import numpy as np

from vsim.probe import cyclictest

OUTPUT = """\
WARN: not setting cpu_dma_latency to save battery power
Max CPUs = 2
Thread 0 Interval: 20000
       0:       0:   71173
       1:       0:   50000
       0:       1:   67866
       1:       1:    1000
"""


def test_verbose_lines_become_per_thread_ticks():
    run = cyclictest.parse_verbose(OUTPUT, 0.02, 2)
    np.testing.assert_allclose(run.scheduled_s[0], [0.0, 0.02])
    np.testing.assert_allclose(run.lateness_s[0], [71173e-9, 67866e-9])
    np.testing.assert_allclose(run.lateness_s[1], [50e-6, 1e-6])


def test_threads_beyond_the_asked_count_are_ignored():
    run = cyclictest.parse_verbose(OUTPUT, 0.02, 1)
    assert len(run.lateness_s) == 1 and len(run.lateness_s[0]) == 2


def test_the_command_matches_the_python_probe():
    argv = cyclictest.command("cyclictest", 0.02, 3, 60)
    assert {"--threads=3", "--interval=20000", "--distance=0", "--duration=60", "--policy=other",
            "--nsecs", "--verbose", "--laptop"} == set(argv[1:])
