"""The SIPp-like UAC: its retransmission schedule exactly RFC 3261's over any loss pattern."""

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from vsim.core.environment import Environment
from vsim.core.errors import InputError
from vsim.net.sources import make_source
from vsim.traces.sipp_stat import read_sipp_stat
from vsim.net.sources.sipp_uac import (ACK, BYE, INVITE, OK_BYE, OK_INVITE, RINGING, SipMessage,
                                       UacCalls)

DELAY = 0.001  # one way: a response is back 2 ms after its request


def rfc3261_fires(cap, retransmissions):
    """Timer A (cap None) or Timer E (cap T2 = 4 s) from T1 = 0.5 s, written out from the RFC:
    interval 0.5 doubling (up to the cap); the transaction gives up at the next fire after
    ``retransmissions`` or at 64 T1 = 32 s."""
    times, at, interval = [], 0.0, 0.5
    for _ in range(retransmissions):
        if at + interval >= 32.0:
            break
        at += interval
        times.append(at)
        interval = interval * 2 if cap is None else min(interval * 2, cap)
    return times, min(at + interval, 32.0)


def play(lost_invites, lost_byes, ringing=False, call_length=1.0, **params):
    """One call against a server answering at once; the k-th INVITE (BYE) sent is lost when
    ``lost_invites[k]`` (``lost_byes[k]``) is true. The requests sent, as (time, kind), and the call."""
    env = Environment()
    uac = make_source("sipp_uac", {"rate": 1.0, "call_length": call_length,
                                   "network_delay": DELAY, **params})
    counts = {INVITE: 0, BYE: 0}

    def lost(message):
        if message.kind not in counts:
            return False
        k = counts[message.kind]
        counts[message.kind] += 1
        pattern = lost_invites if message.kind == INVITE else lost_byes
        return k < len(pattern) and pattern[k]

    def deliver(message):
        if message.kind == INVITE:
            if ringing:
                calls.reply(SipMessage(message.call, RINGING))
            else:
                calls.reply(SipMessage(message.call, OK_INVITE))
        elif message.kind == BYE:
            calls.reply(SipMessage(message.call, OK_BYE))

    calls = UacCalls(uac, env.call_later, lambda: env.now, deliver, np.random.default_rng(0), lost)
    calls.keep_sent = True
    calls.start(np.array([0.0]))
    env.run(until=200.0)
    return [(t, kind) for t, _, kind in calls.sent], calls.calls[0], calls


@settings(max_examples=200, deadline=None)
@given(st.lists(st.booleans(), max_size=8), st.lists(st.booleans(), max_size=10),
       st.integers(0, 8), st.integers(0, 9))
def test_retransmissions_follow_rfc3261(lost_invites, lost_byes, max_invite, max_bye):
    sent, call, calls = play(lost_invites, lost_byes, max_retrans=max_invite,
                             max_non_invite_retrans=max_bye)
    invite_fires, invite_give_up = rfc3261_fires(None, max_invite)
    invites = [t for t, kind in sent if kind == INVITE]
    schedule = [0.0] + invite_fires
    through = next((k for k, gone in enumerate(lost_invites + [False] * 20) if not gone), None)
    if through >= len(schedule):  # every INVITE lost: the call fails at the give-up fire
        assert invites == pytest.approx(schedule)
        assert call.failed and call.finished == pytest.approx(invite_give_up)
        return
    assert invites == pytest.approx(schedule[:through + 1])
    assert call.answered == pytest.approx(schedule[through] + 2 * DELAY)
    ack = [t for t, kind in sent if kind == ACK]
    assert ack == pytest.approx([call.answered])
    bye_fires, bye_give_up = rfc3261_fires(4.0, max_bye)
    first_bye = call.answered + 1.0
    byes = [t - first_bye for t, kind in sent if kind == BYE]
    bye_schedule = [0.0] + bye_fires
    through = next(k for k, gone in enumerate(lost_byes + [False] * 20) if not gone)
    if through >= len(bye_schedule):
        assert byes == pytest.approx(bye_schedule)
        assert call.failed and call.finished == pytest.approx(first_bye + bye_give_up)
    else:
        assert byes == pytest.approx(bye_schedule[:through + 1])
        assert not call.failed and call.finished == pytest.approx(first_bye + bye_schedule[through] + 2 * DELAY)
    assert calls.retransmissions == len(invites) - 1 + len(byes) - 1


def test_default_schedules_are_rfc3261s():
    uac = make_source("sipp_uac", {"rate": 10})
    assert uac.invite_timeouts() == [0.5, 1.5, 3.5, 7.5, 15.5, 31.5]
    assert uac.bye_timeouts() == [0.5, 1.5, 3.5, 7.5, 11.5, 15.5, 19.5, 23.5, 27.5, 31.5]


def test_default_retransmission_limits_are_sipp_3_6_1s():
    """SIPp 3.6.1 retransmits an INVITE at most 5 times and a BYE at most 9 (include/call.hpp),
    counting before it checks (src/call.cpp: nb_retrans++ then nb_retrans > allowed fails): the
    BYE's 9 retransmissions at T2-capped intervals end the call 31.5 s after the first BYE."""
    uac = make_source("sipp_uac", {"rate": 10})
    assert (uac.max_retrans, uac.max_non_invite_retrans) == (5, 9)
    assert len(uac.invite_timeouts()) - 1 == 5 and len(uac.bye_timeouts()) - 1 == 9


def test_provisional_response_stops_invite_retransmissions():
    sent, call, _ = play([], [], ringing=True, recv_timeout=10.0)
    assert [kind for _, kind in sent] == [INVITE]
    assert call.failed and call.finished == pytest.approx(10.0)


def test_paced_and_poisson_call_times():
    uac = make_source("sipp_uac", {"rate": 50, "rate_period": 0.5})
    assert uac.calls_per_s == 100
    assert len(uac.call_times(0.0, 2.0, np.random.default_rng(1))) == 200
    poisson = make_source("sipp_uac", {"rate": 100, "arrivals": "poisson"})
    assert abs(len(poisson.call_times(0.0, 100.0, np.random.default_rng(1))) - 10_000) < 400


def test_bad_parameters():
    with pytest.raises(InputError, match="t.toml: g.arrivals: one of paced, poisson"):
        make_source("sipp_uac", {"rate": 1, "arrivals": "bursty"}, source="t.toml", where="g")
    with pytest.raises(InputError, match="g.loss: a probability below 1"):
        make_source("sipp_uac", {"rate": 1, "loss": 1.0}, source="t.toml", where="g")
    with pytest.raises(InputError, match="g.t2: at least t1"):
        make_source("sipp_uac", {"rate": 1, "t1": 0.5, "t2": 0.25}, source="t.toml", where="g")


def sipp_log(name):
    """(seconds, method) of each request SIPp 3.6.1 sent to a server of validation/sip_uas/timers.py."""
    path = Path(__file__).resolve().parents[2] / "validation" / "sip_uas" / "timers" / f"{name}.log"
    rows = [line.split() for line in path.read_text().splitlines() if line and not line.startswith("#")]
    return [(float(seconds), method) for seconds, method in rows]


def test_the_default_schedules_are_real_sipps():
    """SIPp 3.6.1's own sends (to a server answering nothing, then to one answering only the INVITE)
    fall where the client's default timers put them, within SIPp's steps: each retransmission is
    armed from the moment SIPp saw the last one due, which its 1 ms loop and 4 ms coarse clock make
    up to 5 ms late, so the k-th is up to 5k ms late. After its last BYE retransmission SIPp aborts
    the call with one more BYE, at the moment this client fails it."""
    def close(real, simulated):
        return len(real) == len(simulated) and all(
            0 <= r - s <= 0.005 * k + 0.002 for k, (r, s) in enumerate(zip(real, simulated)))

    sent, call, calls = play([True] * 10, [])
    real = [t for t, method in sipp_log("invite_unanswered") if method == INVITE]
    assert close(real, [t for t, kind in sent if kind == INVITE])
    assert call.failed and call.finished == pytest.approx(31.5)
    sent, call, calls = play([], [True] * 12)
    first_bye = next(t for t, kind in sent if kind == BYE)
    simulated = [t - first_bye for t, kind in sent if kind == BYE]
    log = sipp_log("bye_unanswered")
    real = [t - log[2][0] for t, method in log if method == BYE]
    assert len(real) == len(simulated) + 1 == 1 + 9 + 1
    assert close(real, simulated + [call.finished - first_bye])
    for name, retransmissions in (("invite_unanswered", 5), ("bye_unanswered", 9)):
        stats = read_sipp_stat(Path(__file__).resolve().parents[2] / "validation" / "sip_uas" / "timers"
                               / f"{name}_stat.csv").columns
        assert (stats["Retransmissions(C)"][-1], stats["FailedMaxUDPRetrans(C)"][-1]) == (retransmissions, 1)


def test_a_ramp_steps_as_sipps_rate_task():
    """-r 10 -rate_increase 10 -rate_interval 5 -rate_max 30: 10, 20, 30 calls/s for 5 s each,
    then SIPp quits placing calls (the step to 40 would pass 30); each later step's pacing
    restarts one new interval after its start."""
    uac = make_source("sipp_uac", {"rate": 10, "rate_increase": 10, "rate_interval": 5.0,
                                   "rate_max": 30})
    assert uac.steps(0.0, 100.0) == [(0.0, 5.0, 10.0), (5.0, 10.0, 20.0), (10.0, 15.0, 30.0)]
    times = uac.call_times(0.0, 100.0, np.random.default_rng(1))
    assert len(times) == 50 + 99 + 149
    assert times[50] == pytest.approx(5.05) and times[-1] < 15.0
    assert uac.peak_calls_per_s == 30.0
    kept = make_source("sipp_uac", {"rate": 10, "rate_increase": 10, "rate_interval": 5.0,
                                    "rate_max": 30, "rate_quit": False})
    assert kept.steps(0.0, 22.0)[-2:] == [(15.0, 20.0, 30.0), (20.0, 22.0, 30.0)]


@settings(max_examples=40, deadline=None)
@given(rate=st.floats(1, 200), increase=st.floats(0.5, 50), interval=st.floats(0.5, 20),
       steps=st.integers(0, 6), until=st.floats(1, 120), quit=st.booleans())
def test_ramp_steps_tile_the_run_and_never_pass_rate_max(rate, increase, interval, steps, until, quit):
    """The steps follow each other without gap, each rate_increase above the last (or at
    rate_max), never above rate_max; with rate_quit they end at the step that would pass it."""
    top = rate + steps * increase
    uac = make_source("sipp_uac", {"rate": rate, "rate_increase": increase,
                                   "rate_interval": interval, "rate_max": top, "rate_quit": quit})
    found = uac.steps(0.0, until)
    assert found[0][0] == 0.0
    for (b0, e0, r0), (b1, e1, r1) in zip(found, found[1:]):
        assert e0 == b1 and r1 == pytest.approx(min(r0 + increase, top))
    assert all(r <= top + 1e-9 for _, _, r in found)
    assert found[-1][1] == pytest.approx(until) or (quit and len(found) == steps + 1)
    times = uac.call_times(0.0, until, np.random.default_rng(1))
    assert np.all(np.diff(times) > 0) and (len(times) == 0 or times[-1] < until)
    for begin, end, r in found:  # each step's paced calls at its own rate, to within one call
        assert abs(np.count_nonzero((times >= begin) & (times < end)) - (end - begin) * r) <= 1 + 1e-9


def test_bad_ramps():
    with pytest.raises(InputError, match="g.rate_max: the rate a ramp"):
        make_source("sipp_uac", {"rate": 1, "rate_increase": 1}, source="t.toml", where="g")
    with pytest.raises(InputError, match="g.rate_max: only with rate_increase > 0"):
        make_source("sipp_uac", {"rate": 1, "rate_max": 5}, source="t.toml", where="g")
    with pytest.raises(InputError, match=r"g.rate_max: at least rate \(10\)"):
        make_source("sipp_uac", {"rate": 10, "rate_increase": 1, "rate_max": 5}, source="t.toml",
                    where="g")
    with pytest.raises(InputError, match="g.rate_interval: at least 0.001 s"):
        make_source("sipp_uac", {"rate": 1, "rate_increase": 1, "rate_max": 5, "rate_interval": 1e-6},
                    source="t.toml", where="g")
    with pytest.raises(InputError, match="g.rate_quit: true or false"):
        make_source("sipp_uac", {"rate": 1, "rate_increase": 1, "rate_max": 5, "rate_quit": 1},
                    source="t.toml", where="g")
