"""A SIPp-like UAC over UDP: calls of SIPp's default ``uac`` scenario with RFC 3261's timers.

SIPp's built-in ``uac`` scenario places calls at ``rate`` calls per
``rate_period`` seconds (its ``-r`` and ``-rp``), evenly paced as SIPp
spaces them (``arrivals = "paced"``) or as a Poisson stream (``"poisson"``,
many independent callers). A ramp (SIPp's ``-rate_increase``,
``-rate_interval`` and ``-rate_max``) adds ``rate_increase`` to the rate every
``rate_interval`` seconds (SIPp's default: its ``-fd``, 60 s), as SIPp's rate
task does (src/ratetask.cpp): when the sum would pass ``rate_max`` the rate is
``rate_max`` and, unless ``rate_quit`` is false (SIPp's ``-no_rate_quit``),
the client places no more calls from then on. Each step paces its calls
afresh from its start, as SIPp's ``set_rate`` restarts its count: the first
call of a later step leaves one new interval after the step begins. A ramp
here needs its ``rate_max`` (SIPp's may grow without end; a run's memory and
work are bounded by the rate it reaches). Each call is the flow of SIPp's
default UAC:

    INVITE  ->  100 / 180 (optional)  <-  200  ->  ACK  ->  pause  ->  BYE  <-  200

The pause is the call length (``call_length``, SIPp's ``-d``). The response
time SIPp reports (its ResponseTime1) runs from the first INVITE sent to the
200 received; the ACK leaves as the 200 arrives.

Over UDP the client transactions retransmit (RFC 3261 section 17.1):

- the INVITE (Timer A): first after T1 (500 ms), the interval doubling each
  time: sent again at 0.5, 1.5, 3.5, 7.5, 15.5 and 31.5 s after the first,
  until any response arrives (a 1xx stops Timer A over UDP). Timer B (64 T1
  = 32 s) ends the transaction without a final response: the call fails.
- the BYE (Timer E): first after T1, doubling up to T2 (4 s): sent again at
  0.5, 1.5, 3.5, 7.5, 11.5, 15.5, ... s, until its final response; Timer F
  (64 T1) ends it.

SIPp also stops a transaction after ``max_retrans`` retransmissions (its
``-max_invite_retrans``, default 5, and ``-max_non_invite_retrans``,
default 9 in SIPp 3.6.1's source, ``UDP_MAX_RETRANS_NON_INVITE_TRANSACTION``
in include/call.hpp, though its ``-h`` text says 7): the timeout after the
last allowed retransmission fails the call, unless Timer B or F fails it
first. With the defaults the INVITE's call fails 31.5 s after the first
INVITE and the BYE's 31.5 s after the first BYE (0.5 s before Timer B or F),
as SIPp's own count does; SIPp itself has no Timer B or F, so with more
retransmissions allowed it would go on past 32 s where this client stops. ``recv_timeout`` (SIPp's
``-recv_timeout``) fails a call whose INVITE has no final response within
that many seconds (default: Timer B). A 200 for the INVITE arriving again
(the server retransmits it until the ACK arrives, RFC 3261 13.3.1.4) is
answered with the ACK again.

Messages cross the network in ``network_delay`` seconds each way (a switched
LAN: well under a millisecond), and each is lost with probability ``loss``
(0: none; the server's full receive queue drops messages of its own). The
messages are ``message_bytes`` IP bytes each. ``UacCalls`` plays the calls
of one source on an event scheduler, sending to a server by a callable and
counting what SIPp's statistics count. The module is compiled (``vsim.native``): on a
clock (``vsim.core.clock``) the calls' events are compiled handlers the clock runs natively.
"""

import math
from typing import Any, Callable, Final, List, Optional, Tuple

import numpy as np

from vsim.core.clock import Clock, Handler, call_later_on, clock_of_scheduler
from vsim.core.errors import InputError
from vsim.core.timers import LazyTimers
from vsim.net.sources.validate import flag, ip_packet, non_negative, positive, text, whole
from vsim.net.frames import IPV4_HEADER, UDP_HEADER

T1: Final = 0.5
"""RFC 3261's estimate of the round trip, s: the first retransmission interval (section 17.1.1.1)."""
T2: Final = 4.0
"""RFC 3261's longest retransmission interval for non-INVITE requests, s (section 17.1.2.2)."""
TIMEOUT_T1: Final = 64
"""Timer B and Timer F last 64 T1 (RFC 3261 table 4)."""

ARRIVALS: Final = ("paced", "poisson")
MIN_RATE_INTERVAL: Final = 1e-3
"""The shortest step of a ramp, s: SIPp's rate task runs on its millisecond clock."""

INVITE: Final = "INVITE"
ACK: Final = "ACK"
BYE: Final = "BYE"
TRYING: Final = "100"
RINGING: Final = "180"
OK_INVITE: Final = "200/INVITE"
OK_BYE: Final = "200/BYE"
REQUESTS: Final = (INVITE, ACK, BYE)


class SipMessage:
    """One SIP message of a call: its ``kind`` (a request method, or a response code with
    the method it answers) and whether it is a ``retransmission`` of one sent before."""

    __slots__ = ("call", "kind", "retransmission")

    def __init__(self, call: "SipCall", kind: str, retransmission: bool = False):
        self.call = call
        self.kind = kind
        self.retransmission = retransmission


class SipCall:
    """One call's client state: when its INVITE first left, its transactions' progress."""

    __slots__ = ("number", "invited", "answered", "acked", "finished", "failed", "state",
                 "timer", "retransmits", "bye_sent", "server")

    def __init__(self, number: int, invited: float):
        self.number = number
        self.invited = invited
        self.answered: Optional[float] = None  # the first 200 for the INVITE arrived
        self.acked: Optional[float] = None  # the server took the ACK (its own clock)
        self.finished: Optional[float] = None
        self.failed = False
        self.state = "calling"  # calling, proceeding, confirmed, bye, done
        self.timer = 0  # the generation of the live retransmission timer
        self.retransmits = 0
        self.bye_sent = 0.0
        self.server: Any = None  # the server's state for this call (vsim.guest.sip_server)


class SippUac:
    """SIPp's default UAC at ``rate`` calls per ``rate_period`` s (see the module's docstring)."""

    elastic = False
    discrete = True

    def __init__(self, rate, rate_period=1.0, call_length=0.0, arrivals="paced", max_retrans=5,
                 max_non_invite_retrans=9, recv_timeout=None, t1=T1, t2=T2, network_delay=1e-4,
                 loss=0.0, message_bytes=500, rate_increase=0.0, rate_interval=60.0, rate_max=None,
                 rate_quit=True, source="<input>", where="traffic"):
        self.rate = positive(rate, "rate", source, where)
        self.rate_period = positive(rate_period, "rate_period", source, where)
        self.rate_increase = non_negative(rate_increase, "rate_increase", source, where)
        self.rate_interval = positive(rate_interval, "rate_interval", source, where)
        if self.rate_interval < MIN_RATE_INTERVAL:
            raise InputError(source, f"{where}.rate_interval", f"at least {MIN_RATE_INTERVAL:g} s "
                             f"(SIPp's clock counts milliseconds), got {rate_interval!r}")
        self.rate_quit = flag(rate_quit, "rate_quit", source, where)
        self.rate_max = None if rate_max is None else positive(rate_max, "rate_max", source, where)
        if self.rate_increase > 0 and self.rate_max is None:
            raise InputError(source, f"{where}.rate_max", "the rate a ramp (rate_increase > 0) goes "
                             "up to, as SIPp's -rate_max, got none")
        if self.rate_max is not None and self.rate_increase == 0:
            raise InputError(source, f"{where}.rate_max", f"only with rate_increase > 0 (SIPp's "
                             f"-rate_max bounds a ramp), got rate_max = {rate_max!r} and no ramp")
        if self.rate_max is not None and self.rate_max < self.rate:
            raise InputError(source, f"{where}.rate_max", f"at least rate ({self.rate:g}), the "
                             f"rate the ramp starts at, got {rate_max!r}")
        self.call_length = non_negative(call_length, "call_length", source, where)
        self.arrivals = text(arrivals, "arrivals", source, where)
        if self.arrivals not in ARRIVALS:
            raise InputError(source, f"{where}.arrivals",
                             f"one of {', '.join(ARRIVALS)}, got {arrivals!r}")
        self.max_retrans = whole(max_retrans, "max_retrans", source, where, 0)
        self.max_non_invite_retrans = whole(max_non_invite_retrans, "max_non_invite_retrans",
                                            source, where, 0)
        self.t1 = positive(t1, "t1", source, where)
        self.t2 = positive(t2, "t2", source, where)
        if self.t2 < self.t1:
            raise InputError(source, f"{where}.t2", f"at least t1 ({self.t1:g} s): RFC 3261's T2 caps "
                             f"the retransmission interval that starts at T1, got {t2!r}")
        self.recv_timeout = (TIMEOUT_T1 * self.t1 if recv_timeout is None
                             else positive(recv_timeout, "recv_timeout", source, where))
        self.network_delay = non_negative(network_delay, "network_delay", source, where)
        self.loss = non_negative(loss, "loss", source, where)
        if self.loss >= 1:
            raise InputError(source, f"{where}.loss", f"a probability below 1, got {loss!r}")
        self.ip_bytes = ip_packet(message_bytes, "message_bytes", source, where,
                                  IPV4_HEADER + UDP_HEADER)

    @property
    def calls_per_s(self) -> float:
        """The call rate at the start, calls/s."""
        return self.rate / self.rate_period

    @property
    def peak_calls_per_s(self) -> float:
        """The highest call rate the client reaches, calls/s: ``rate_max``'s with a ramp."""
        return (self.rate if self.rate_max is None else self.rate_max) / self.rate_period

    def steps(self, start: float, until: float) -> List[Tuple[float, float, float]]:
        """(begin, end, calls/s) of each step of the rate in [start, until): one without a
        ramp; with one, a step every ``rate_interval`` s up to ``rate_max`` (and none after
        the step that would pass it, with ``rate_quit``)."""
        if self.rate_increase == 0:
            return [(start, until, self.calls_per_s)] if until > start else []
        assert self.rate_max is not None  # checked in __init__: a ramp has its maximum
        steps: List[Tuple[float, float, float]] = []
        rate, number = self.rate, 0
        while True:
            begin = start + number * self.rate_interval
            if begin >= until:
                break
            end = min(start + (number + 1) * self.rate_interval, until)
            steps.append((begin, end, rate / self.rate_period))
            number += 1
            rate = self.rate + number * self.rate_increase  # no sum of rounded steps
            if rate > self.rate_max:  # SIPp sets rate_max again at each later step
                if self.rate_quit:
                    break
                rate = self.rate_max
        return [step for step in steps if step[1] > step[0]]

    def call_times(self, start: float, until: float, rng: np.random.Generator) -> np.ndarray:
        """The times calls start in [start, until): in each step of the rate (``steps``) paced
        one every ``1 / rate`` s, or Poisson at that rate (drawn from ``rng``)."""
        parts = []
        for number, (begin, end, rate) in enumerate(self.steps(start, until)):
            gap = 1.0 / rate
            if self.arrivals == "paced":
                first = 0 if number == 0 else 1  # a later step's count restarts at its start
                count = max(0, math.ceil((end - begin) / gap) - first)
                parts.append(begin + gap * np.arange(first, first + count))
            else:
                count = int(rng.poisson((end - begin) * rate))
                parts.append(np.sort(rng.uniform(begin, end, count)))
        times = np.concatenate(parts) if parts else np.zeros(0)
        return times[times < until]

    def invite_timeouts(self) -> List[float]:
        """Seconds after the first INVITE its timer fires with no response: the first
        ``max_retrans`` fires retransmit, the next (or Timer B, if sooner) fails the call."""
        return _timeouts(self.t1, math.inf, self.max_retrans, TIMEOUT_T1 * self.t1)

    def bye_timeouts(self) -> List[float]:
        """Seconds after the first BYE its timer fires with no final response (Timer E capped
        at T2; the last entry fails the call, at Timer F at the latest)."""
        return _timeouts(self.t1, self.t2, self.max_non_invite_retrans, TIMEOUT_T1 * self.t1)


def _timeouts(t1: float, cap: float, retransmissions: int, give_up: float) -> List[float]:
    """Cumulative fire times of a doubling timer starting at ``t1``, capped at ``cap``: the
    ``retransmissions`` that come before ``give_up``, then the fire that ends the transaction."""
    times: List[float] = []
    at, interval = 0.0, t1
    while len(times) < retransmissions and at + interval < give_up:
        at += interval
        times.append(at)
        interval = min(2 * interval, cap)
    times.append(min(at + interval, give_up))
    return times


Scheduler = Callable[[float, Callable, object], None]


class UacCalls:
    """The calls of one ``SippUac`` played on an event scheduler against a server.

    ``call_later(delay, f, arg)`` schedules, ``now()`` reads the clock; ``deliver(message)``
    hands a message to the server when it arrives there, and the server answers through
    ``receive``. ``lost(message)`` says whether the network loses a message (by default
    each with the source's ``loss`` probability, drawn from ``rng``). The counters are
    SIPp's: calls started, successful, failed, retransmissions; ``calls`` keeps every call.
    Where ``call_later`` is a clock's (``vsim.core.clock.Clock``), the events go to the clock
    as compiled handlers and the time is read from it.
    """

    def __init__(self, uac: SippUac, call_later: Scheduler, now: Callable[[], float],
                 deliver: Callable[[SipMessage], None], rng: Any,
                 lost: Optional[Callable[[SipMessage], bool]] = None):
        self.uac = uac
        self.call_later = call_later
        self._clock: Optional[Clock] = clock_of_scheduler(call_later)
        self.now = now
        self.deliver = deliver
        self.rng = rng
        self.lost = lost if lost is not None else self._random_loss
        self._loss = float(uac.loss)
        self._network_delay = float(uac.network_delay)
        self._call_length = float(uac.call_length)
        self._recv_timeout = float(uac.recv_timeout)
        self._timers = LazyTimers(call_later, self._timeout, self._timer_live)
        self._invite_fires = uac.invite_timeouts()
        self._bye_fires = uac.bye_timeouts()
        self._begin_due = _CallDue(self)
        self._arrival = _ResponseArrives(self)
        self._hang_up_due = _HangUpDue(self)
        self.calls: List[SipCall] = []
        self.retransmissions = 0
        self.sent: List[tuple] = []  # (time, call number, kind) of every request sent, if kept
        self.keep_sent = False

    def _time(self) -> float:
        clock = self._clock
        if clock is not None:
            return clock.now
        return self.now()

    def _later(self, delay: float, callback: Callable[[Any], Any], arg: Any) -> None:
        call_later_on(self._clock, self.call_later, delay, callback, arg)

    def _random_loss(self, _message: SipMessage) -> bool:
        return self._loss > 0 and float(self.rng.random()) < self._loss

    def start(self, times: Any) -> None:
        """Start a call at each of ``times`` (absolute, not before now)."""
        now = self._time()
        for at in times:
            self._later(float(at) - now, self._begin_due, None)

    # ------------------------------------------------------------------ sending
    def _send(self, call: SipCall, kind: str, retransmission: bool = False) -> None:
        if retransmission:
            self.retransmissions += 1
        if self.keep_sent:
            self.sent.append((self._time(), call.number, kind))
        message = SipMessage(call, kind, retransmission)
        if not self.lost(message):
            self._later(self._network_delay, self.deliver, message)

    def reply(self, message: SipMessage) -> None:
        """The server sends a response; it reaches the client after the network's delay,
        unless lost."""
        if not self.lost(message):
            self._later(self._network_delay, self._arrival, message)

    def _begin(self) -> None:
        call = SipCall(len(self.calls), self._time())
        self.calls.append(call)
        self._send(call, INVITE)
        self._arm(call, 0)

    def _arm(self, call: SipCall, fire: int) -> None:
        """Set the call's live transaction's timer for its ``fire``-th firing."""
        inviting = call.state == "calling" or call.state == "proceeding"
        fires = self._invite_fires if inviting else self._bye_fires
        begun = call.invited if inviting else call.bye_sent
        call.timer += 1
        self._timers.arm(begun + fires[fire] - self._time(), (call, call.timer, fire))

    @staticmethod
    def _timer_live(arg: Any) -> bool:
        """Whether a timer armed with ``arg`` still has something to do: the call's live
        transaction is the one it was armed for, and the call is neither answered nor over."""
        call: SipCall = arg[0]
        generation: int = arg[1]
        return generation == call.timer and call.state != "confirmed" and call.state != "done"

    def _timeout(self, arg: Any) -> None:
        if not self._timer_live(arg):
            return
        call: SipCall = arg[0]
        fire: int = arg[2]
        if call.state == "proceeding":  # a 1xx stopped the retransmissions; only the wait is left
            self._fail(call)
            return
        fires = self._invite_fires if call.state == "calling" else self._bye_fires
        if fire == len(fires) - 1:
            self._fail(call)
            return
        self._send(call, INVITE if call.state == "calling" else BYE, retransmission=True)
        call.retransmits += 1
        self._arm(call, fire + 1)

    def _fail(self, call: SipCall) -> None:
        call.state, call.failed, call.finished = "done", True, self._time()
        call.timer += 1

    # ---------------------------------------------------------------- receiving
    def receive(self, message: SipMessage) -> None:
        """A response reaches the client."""
        call, kind = message.call, message.kind
        if call.state == "done":
            return
        if (kind == TRYING or kind == RINGING) and call.state == "calling":
            call.state = "proceeding"
            call.timer += 1
            wait = call.invited + self._recv_timeout - self._time()
            self._timers.arm(max(0.0, wait), (call, call.timer, 0))
        elif kind == OK_INVITE:
            if call.state == "calling" or call.state == "proceeding":
                call.answered = self._time()
                call.state = "confirmed"
                call.timer += 1
                self._send(call, ACK)
                self._later(self._call_length, self._hang_up_due, call)
            else:  # the server did not have the ACK yet: answer its 200 again
                self._send(call, ACK, retransmission=True)
        elif kind == OK_BYE and call.state == "bye":
            call.state, call.finished = "done", self._time()
            call.timer += 1

    def _hang_up(self, call: SipCall) -> None:
        if call.state != "confirmed":
            return
        call.state, call.bye_sent = "bye", self._time()
        self._send(call, BYE)
        self._arm(call, 0)

    # ----------------------------------------------------------------- counting
    def started_between(self, first: float, last: float) -> List[SipCall]:
        """The calls whose first INVITE left in [first, last)."""
        return [c for c in self.calls if first <= c.invited < last]


class _CallDue(Handler):
    """The event of a call's start."""

    def __init__(self, calls: UacCalls) -> None:
        self.calls = calls

    def fire(self, arg: Any) -> None:
        self.calls._begin()


class _ResponseArrives(Handler):
    """The event of a response reaching the client (its argument the message)."""

    def __init__(self, calls: UacCalls) -> None:
        self.calls = calls

    def fire(self, arg: Any) -> None:
        self.calls.receive(arg)


class _HangUpDue(Handler):
    """The event of a call's end (its argument the call): the client sends its BYE."""

    def __init__(self, calls: UacCalls) -> None:
        self.calls = calls

    def fire(self, arg: Any) -> None:
        self.calls._hang_up(arg)
