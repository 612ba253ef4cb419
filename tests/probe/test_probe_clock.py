"""Tests of absolute-deadline sleeps."""

from vsim.probe.clock import now_ns, sleep_until_ns


def test_a_sleep_never_ends_before_its_deadline():
    for step_ns in (0, 1_000, 2_000_000):
        deadline = now_ns() + step_ns
        sleep_until_ns(deadline)
        assert now_ns() >= deadline


def test_a_past_deadline_returns_at_once():
    began = now_ns()
    sleep_until_ns(began // 2)  # half the uptime ago: minutes, were it taken as a relative sleep
    assert now_ns() - began < began // 2
