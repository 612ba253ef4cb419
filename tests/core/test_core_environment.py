"""The lean callback path keeps SimPy's event order exactly."""

import re
from pathlib import Path

import pytest
import simpy
from hypothesis import given, strategies as st

from vsim.core.clock import clock_of, time_now
from vsim.core.environment import Environment, scheduler_for

schedules = st.lists(st.tuples(st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0]), st.booleans(),
                               st.booleans()), min_size=1, max_size=30)


def run_schedule(env, schedule, plain):
    """Schedule each (delay, nested, kind) item; nested items schedule a follow-up at once.

    ``plain`` decides per item whether it goes through ``call_later`` or a SimPy Timeout.
    Returns the (time, label) order in which the callbacks ran.
    """
    order = []

    def fire(label):
        order.append((env.now, label))

    def add(delay, label, use_plain):
        if use_plain:
            scheduler_for(env)(delay, fire_or_nest, label)
        else:
            env.timeout(delay, label).callbacks.append(lambda event: fire_or_nest(event.value))

    def fire_or_nest(label):
        fire(label)
        index = label[0]
        if label[1] == 0 and schedule[index][1]:
            add(0.0, (index, 1), plain[index])

    for index, (delay, _nested, _kind) in enumerate(schedule):
        add(delay, (index, 0), plain[index])
    env.run(until=1.5)
    order.append(("stop", env.now))
    env.run()
    return order


@given(schedules)
def test_plain_calls_run_in_the_order_simpy_events_would(schedule):
    plain = [kind for _delay, _nested, kind in schedule]
    expected = run_schedule(simpy.Environment(), schedule, [False] * len(schedule))
    assert run_schedule(Environment(), schedule, plain) == expected
    assert run_schedule(simpy.Environment(), schedule, plain) == expected


def test_run_until_stops_before_a_call_due_at_that_time():
    env = Environment()
    seen = []
    env.call_later(1.0, seen.append, "at one")
    env.call_later(0.5, seen.append, "at half")
    env.run(until=1.0)
    assert seen == ["at half"] and env.now == 1.0
    env.run()
    assert seen == ["at half", "at one"]


def test_processes_and_plain_calls_share_the_clock():
    env = Environment()
    log = []

    def proc():
        yield env.timeout(0.25)
        log.append(("process", env.now))
        env.call_later(0.25, lambda arg: log.append((arg, env.now)), "call")

    env.process(proc())
    env.run()
    assert log == [("process", 0.25), ("call", 0.5)]


def test_scheduler_for_falls_back_to_timeouts_on_plain_simpy():
    env = simpy.Environment()
    seen = []
    scheduler_for(env)(0.3, seen.append, "x")
    env.run()
    assert seen == ["x"] and env.now == 0.3


def test_a_negative_delay_is_refused_as_simpy_refuses_it():
    env = Environment()
    with pytest.raises(ValueError, match="negative delay"):
        env.call_later(-1e-9, print, None)
    with pytest.raises(ValueError):
        simpy.Environment().timeout(-1e-9)


def test_the_clock_simpy_moves_is_the_now_the_model_reads():
    """SimPy's own events (a process's timeouts, run(until=...)) move the clock through its
    private name; the model reads it as now, a slot."""
    env = Environment(initial_time=2.0)
    seen = []

    def proc():
        yield env.timeout(0.25)
        seen.append((env.now, env._now))

    env.process(proc())
    env.run(until=3.0)
    assert seen == [(2.25, 2.25)] and env.now == env._now == 3.0
    assert not hasattr(env, "__dict__") or "_now" not in env.__dict__
    with pytest.raises(ValueError):
        env.run(until=2.5)  # SimPy compares until with the same clock


def test_the_compiled_clock_follows_every_event():
    """clock.now is the time of each event as it runs: plain calls, SimPy's processes and
    run(until=...); a plain SimPy environment has no clock and is read as env.now."""
    env = Environment(initial_time=1.0)
    seen = []
    assert env.clock.now == 1.0 and clock_of(env) is env.clock
    env.call_later(0.5, lambda _: seen.append(("call", env.now, env.clock.now)), None)

    def proc():
        yield env.timeout(0.75)
        seen.append(("process", env.now, env.clock.now))

    env.process(proc())
    env.run(until=2.5)
    assert seen == [("call", 1.5, 1.5), ("process", 1.75, 1.75)]
    assert env.clock.now == env.now == 2.5 == time_now(env.clock, env)
    plain = simpy.Environment(initial_time=4.0)
    assert clock_of(plain) is None and time_now(None, plain) == 4.0


def test_only_the_environment_reads_simpy_s_private_attributes():
    """The model reads the clock as env.now; SimPy's _now, _queue and _eid stay in this module."""
    package = Path(__file__).resolve().parents[2] / "vsim"
    private = re.compile(r"env\._(now|queue|eid)\b")
    readers = [str(path.relative_to(package)) for path in sorted(package.rglob("*.py"))
               if path.name != "environment.py" and private.search(path.read_text())]
    assert readers == []


def test_run_until_an_event_returns_its_value_as_simpy_does():
    for env in (simpy.Environment(), Environment()):
        done = env.event()
        env.timeout(0.5).callbacks.append(lambda _e, done=done: done.succeed("value"))
        assert env.run(until=done) == "value" and env.now == 0.5
        assert env.run(until=done) == "value"  # already processed: at once


def test_run_until_an_event_that_never_comes_fails_as_simpy_does():
    for env in (simpy.Environment(), Environment()):
        with pytest.raises(RuntimeError, match="until"):
            env.run(until=env.event())


def test_an_exception_in_a_plain_call_reaches_the_caller_of_run():
    env = Environment()

    def boom(_arg):
        raise KeyError("from a callback")

    env.call_later(0.1, boom, None)
    env.call_later(0.2, print, "never")
    with pytest.raises(KeyError, match="from a callback"):
        env.run()
    assert env.now == 0.1 and env.peek() == 0.2  # the later call is still due


def test_step_by_step_runs_the_same_calls_as_run():
    def trace(drive):
        env = Environment()
        seen = []
        for delay in (0.3, 0.1, 0.2):
            env.call_later(delay, seen.append, delay)
        env.timeout(0.15).callbacks.append(lambda _e: seen.append("simpy"))
        drive(env)
        return seen

    def by_step(env):
        while env.peek() != float("inf"):
            env.step()

    assert trace(by_step) == trace(lambda env: env.run()) == [0.1, "simpy", 0.2, 0.3]


@pytest.mark.parametrize("make", [simpy.Environment, Environment])
def test_run_until_an_event_returns_its_value_or_says_it_never_came(make):
    env = make()
    done = env.timeout(0.5, value="half")
    env.timeout(1.0)
    assert env.run(until=done) == "half" and env.now == 0.5
    assert env.run(until=done) == "half"  # processed already
    with pytest.raises(RuntimeError, match="not triggered"):
        env.run(until=env.event())
    with pytest.raises(ValueError, match="greater than the current"):
        env.run(until=0.25)


def test_simpy_events_and_plain_calls_are_numbered_from_one_counter():
    env = Environment()
    env.timeout(1.0)  # SimPy's schedule draws number 0
    env.call_later(1.0, lambda _arg: None, None)  # the clock's plain call number 1
    env.timeout(1.0)  # and SimPy's next, 2
    assert [number for _time, _priority, number, _event in env._queue] == [0, 2]
    assert [entry.number for entry in env.clock.calls.entries] == [1]
    assert next(env._eid) == 3 and env.clock.ids.take() == 4
