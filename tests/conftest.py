"""Settings shared by the whole suite.

Hypothesis draws its examples from a seed fixed per test, so every run of the
suite, CI's included, tries the same examples and passes or fails the same
way. ``pytest --hypothesis-profile=explore`` draws fresh random examples
instead, to hunt for counterexamples the fixed seed does not reach; a
counterexample found that way belongs in the test as an ``@example``.
Neither profile has a deadline: a test's speed depends on the machine and
on what is imported first, and timings belong in ``benchmarks/``.
"""

import pytest
from hypothesis import settings

settings.register_profile("repeatable", derandomize=True, deadline=None)
settings.register_profile("explore", derandomize=False, deadline=None)
settings.load_profile("repeatable")


HOST_FILES = ("tests/probe/", "tests/test_main.py", "tests/test_cli.py", "tests/test_cli_outputs.py")
"""Files whose tests make namespaces, veths, cgroups or temporary directories on this machine
(probes, ``vsim probe cleanup --force``): run on one worker, one after another, so that a forced
cleanup never meets another test's live probe."""


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """With ``-n``, hand the tests of ``HOST_FILES`` to one worker as one unit, the rest one by one."""
    from xdist.scheduler import LoadScopeScheduling

    class HostFilesTogether(LoadScopeScheduling):
        def _split_scope(self, nodeid):
            return "host" if nodeid.startswith(HOST_FILES) else nodeid

    return HostFilesTogether(config, log)
