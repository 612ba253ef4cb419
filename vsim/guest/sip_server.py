"""A SIP server in a VM (a UAS answering SIPp's default UAC): a receive queue, workers, timers.

Messages from the client land in one bounded receive queue (``queue_messages``
deep, as a UDP socket buffer: a message finding it full is dropped, and the
client's retransmission timers recover it or fail the call). Each vCPU runs
one worker thread taking the queue's head and spending ``cost[kind]``
core-seconds on the host's CPU scheduler (``Machine.submit``, as every guest
workload's work) on it: an INVITE, an ACK, a BYE, or any retransmission
(``retransmission``: a lookup of the transaction and, when it was answered,
the answer sent again).

The server answers as SIPp's UAS scenario does: an INVITE with 180 and 200,
a BYE with 200. Its transactions are kept as RFC 3261 keeps them over UDP: the
INVITE's 200 is sent again (T1 doubling up to T2, section 13.3.1.4) until the
ACK arrives or 64 T1 pass, and a BYE's server transaction stays for Timer J
(64 T1) to answer retransmissions; ``held`` counts the transactions alive,
the state a JVM's collector finds live (``vsim.guest.jvm_gc``).

With a collector, every processed message allocates; when the young
generation is full, the collection stops the world: workers finish the
message in hand (the safepoint) and take no other until the pause's work,
on the collector's threads' vCPUs, is done.
"""

from collections import deque
from typing import Any, Callable, Deque, Dict, List, Optional

from vsim.core.clock import Clock, clock_of_scheduler
from vsim.core.timers import LazyTimers
from vsim.cpu.world import IDLE, JobDone, World
from vsim.net.sources.sipp_uac import (ACK, BYE, INVITE, OK_BYE, OK_INVITE, RINGING, T1, T2,
                                       TIMEOUT_T1, SipMessage)

MESSAGE_KINDS = (INVITE, ACK, BYE, "retransmission")


class _CallState:
    """The server's state of one call: answered and acknowledged yet, its timers' generation."""

    __slots__ = ("answered", "acked", "bye_done", "timer")

    def __init__(self):
        self.answered: Optional[float] = None
        self.acked: Optional[float] = None
        self.bye_done = False
        self.timer = 0


class SipServer:
    """Worker threads on ``worlds`` (one per vCPU) serving a bounded receive queue.

    ``reply(message)`` sends a response towards the client; ``cost`` maps each of
    ``MESSAGE_KINDS`` to its core-seconds; ``gc`` is the JVM's collector or None.
    """

    def __init__(self, machine, call_later, now: Callable[[], float], worlds, cost: Dict[str, float],
                 queue_messages: int, reply: Callable[[SipMessage], None], gc=None):
        self.machine = machine
        self.call_later = call_later
        self._clock: Optional[Clock] = clock_of_scheduler(call_later)  # the time read from it
        self._message_done = _MessageDone(self)
        self._ok_timers = LazyTimers(call_later, self._ok_again, self._ok_live)
        self.now = now
        self.worlds = list(worlds)
        self.cost = cost
        self.capacity = queue_messages
        self.reply = reply
        self.gc = gc
        self.queue: Deque[SipMessage] = deque()
        self.busy: Dict[str, SipMessage] = {}
        self.dropped = 0
        self.processed = 0
        self.held = 0
        self.acked_after: List[tuple] = []  # (invited, INVITE->ACK seconds) per call
        self.paused = False
        self.pauses: List[tuple] = []  # (start, end) of every pause, from the last safepoint reached
        self._gc_left = 0
        self._pause_begun = 0.0

    def supports_closed_form(self) -> bool:
        """Its queue waits on the CPUs: only the event engine plays it."""
        return False

    def _time(self) -> float:
        clock = self._clock
        if clock is not None:
            return clock.now
        return self.now()

    def deliver(self, message: SipMessage) -> None:
        """A message reaches the server's socket: queued, or dropped when the queue is full."""
        if len(self.queue) >= self.capacity:
            self.dropped += 1
            return
        self.queue.append(message)
        self._dispatch()

    def _dispatch(self) -> None:
        if self.paused:
            return
        for world in self.worlds:
            if not self.queue:
                return
            if world.state == IDLE and world.name not in self.busy:
                message = self.queue.popleft()
                self.busy[world.name] = message
                self.machine.submit(world, self._work(message), self._message_done)

    def _work(self, message: SipMessage) -> float:
        return self.cost["retransmission" if message.retransmission else message.kind]

    def _done(self, world: World) -> Optional[float]:
        message = self.busy.pop(world.name)
        self.processed += 1
        self._handle(message)
        if self.gc is not None and self.gc.allocate(message.kind) and not self.paused:
            self.paused = True
        if self.paused:
            if not self.busy:
                self.call_later(0.0, self._collect, None)
            return None
        if self.queue:
            nxt = self.queue.popleft()
            self.busy[world.name] = nxt
            return self._work(nxt)
        return None

    # ------------------------------------------------------------- collection
    def _collect(self, _arg) -> None:
        """Every worker is at its safepoint: the collector's threads do the pause's work."""
        self._pause_begun = self._time()
        works = self.gc.pause_work(self.held)
        threads = self.worlds[:len(works)]  # more collector threads than vCPUs share them
        self._gc_left = len(threads)
        for world in threads:
            self.machine.submit(world, sum(works) / len(threads), self._collected)

    def _collected(self, _world) -> None:
        self._gc_left -= 1
        if self._gc_left == 0:
            self.call_later(0.0, lambda _a: self._resume(), None)
        return None

    def _resume(self) -> None:
        self.pauses.append((self._pause_begun, self._time()))
        self.paused = False
        self._dispatch()

    # --------------------------------------------------------------- handling
    def _handle(self, message: SipMessage) -> None:
        call, kind = message.call, message.kind
        state = call.server
        if state is None:
            state = call.server = _CallState()
        if kind == INVITE:
            if state.answered is None:
                state.answered = self._time()
                self.held += 1
                self.reply(SipMessage(call, RINGING))
                self.reply(SipMessage(call, OK_INVITE))
                self._arm_ok(call, state, T1)
            elif state.acked is None:
                self.reply(SipMessage(call, OK_INVITE, retransmission=True))
        elif kind == ACK:
            if state.acked is None and state.answered is not None:
                state.acked = self._time()
                state.timer += 1
                self.held -= 1
                self.acked_after.append((call.invited, state.acked - call.invited))
        elif kind == BYE:
            self.reply(SipMessage(call, OK_BYE, retransmission=state.bye_done))
            if not state.bye_done:
                state.bye_done = True
                self.held += 1
                self.call_later(TIMEOUT_T1 * T1, self._release, None)

    def _release(self, _arg) -> None:
        """A BYE's server transaction reaches Timer J."""
        self.held -= 1

    def _arm_ok(self, call, state: _CallState, interval: float) -> None:
        state.timer += 1
        self._ok_timers.arm(interval, (call, state, state.timer, interval))

    @staticmethod
    def _ok_live(arg) -> bool:
        """Whether a 200's retransmission timer armed with ``arg`` is still the call's and
        the ACK has not come."""
        _call, state, generation, _interval = arg
        return generation == state.timer and state.acked is None

    def _ok_again(self, arg) -> None:
        if not self._ok_live(arg):
            return
        call, state, _generation, interval = arg
        if self._time() - state.answered >= TIMEOUT_T1 * T1:  # no ACK in 64 T1: given up
            state.timer += 1
            self.held -= 1
            return
        self.reply(SipMessage(call, OK_INVITE, retransmission=True))
        self._arm_ok(call, state, min(2 * interval, T2))


class _MessageDone(JobDone):
    """A worker's message done (``SipServer._done``), called natively by the machine."""

    def __init__(self, server: SipServer) -> None:
        self.server = server

    def done(self, world: World) -> Optional[float]:
        return self.server._done(world)
