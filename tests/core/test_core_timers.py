"""vsim.core.timers.LazyTimers: the timers fire as if each were an event of its own, in the
same order among the other events, while dead ones never reach the event queue."""

import simpy
from hypothesis import given, settings
from hypothesis import strategies as st

from vsim.core.environment import Environment, scheduler_for
from vsim.core.timers import LazyTimers

plan = st.lists(st.tuples(st.floats(min_value=0.0, max_value=2.0),  # when the timer is armed
                          st.sampled_from([0.0, 0.25, 0.5, 1.0, 0.3]),  # its delay
                          st.one_of(st.none(), st.floats(min_value=0.0, max_value=3.0))),  # cancelled at
                max_size=40)


def play(plan, lazy, env=None):
    """Arm the plan's timers (and, at the same instants, plain calls that record themselves)
    and return what ran, in order, with the time."""
    env = Environment() if env is None else env
    call_later = scheduler_for(env)
    log, dead = [], set()

    def fire(arg):
        if arg not in dead:
            log.append(("timer", arg, env.now))

    timers = LazyTimers(call_later, fire, lambda arg: arg not in dead)

    def arm(item):
        index, delay = item
        if lazy:
            timers.arm(delay, index)
        else:
            call_later(delay, fire, index)
        call_later(delay, lambda i: log.append(("other", i, env.now)), index)

    for index, (at, delay, cancel) in enumerate(plan):
        call_later(at, arm, (index, delay))
        if cancel is not None:
            call_later(cancel, dead.add, index)
    env.run()
    return log, timers


@settings(max_examples=300)
@given(plan)
def test_lazy_timers_run_what_one_event_a_timer_runs_in_the_same_order(plan):
    assert play(plan, lazy=True)[0] == play(plan, lazy=False)[0]


def test_dead_timers_leave_no_event_behind_them():
    """A hundred timers cancelled at once: only the first ever reaches the event queue (and
    finds, when it fires, that it has nothing to do)."""
    env = Environment()
    fired, dead = [], set()

    def fire(arg):
        if arg not in dead:
            fired.append(arg)

    timers = LazyTimers(scheduler_for(env), fire, lambda arg: arg not in dead)
    for i in range(100):
        timers.arm(0.5 + i * 1e-3, i)
        dead.add(i)
    timers.arm(1.0, "live")
    assert env.clock.pending() == 1  # the head timer alone
    env.run()
    assert fired == ["live"] and timers.pending() == 0


def test_on_plain_simpy_each_timer_is_an_event():
    env = simpy.Environment()
    fired = []
    timers = LazyTimers(scheduler_for(env), lambda arg: fired.append((arg, env.now)), lambda arg: True)
    timers.arm(0.5, "a")
    timers.arm(0.25, "b")
    env.run()
    assert fired == [("b", 0.25), ("a", 0.5)]
