"""Settings shared by the whole suite.

Hypothesis draws its examples from a seed fixed per test, so every run of the
suite, CI's included, tries the same examples and passes or fails the same
way. ``pytest --hypothesis-profile=explore`` draws fresh random examples
instead, to hunt for counterexamples the fixed seed does not reach; a
counterexample found that way belongs in the test as an ``@example``.
Neither profile has a deadline: a test's speed depends on the machine and
on what is imported first, and timings belong in ``benchmarks/``.
"""

from hypothesis import settings

settings.register_profile("repeatable", derandomize=True, deadline=None)
settings.register_profile("explore", derandomize=False, deadline=None)
settings.load_profile("repeatable")
