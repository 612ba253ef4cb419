"""A two-tier web application (Olio-like): closed-loop users, a web VM and a database VM.

Seed 001's Experiment 2 runs Olio: a web VM and a database VM on one host,
users emulated by client machines across the 10 GbE uplink. Here each user
(``vsim.net.sources.web_users``) runs operations one after another, thinking
an exponential time between them. An operation is ``requests_per_operation``
HTTP requests fetched one after another (the model, ``WebAppModel``):

1. the request crosses the switch and the web VM's receive path (the NIC
   model's ``latency`` and ``host_path_latency``: the VM's stack both ways is
   counted here, on the way in);
2. it waits for a web vCPU and takes ``page_cpu`` core-seconds (the page, the
   operation's first request) or ``object_cpu`` (every other) on the host's
   CPU scheduler, as every guest's work;
3. a page then sends ``db_queries`` queries to the database VM one after
   another, each crossing the virtual switch both ways (``host_path_latency``
   each way: inter-VM traffic, never on the uplink) and waiting for a
   database vCPU for ``db_query_cpu``;
4. the response (``page_bytes`` or ``object_bytes``) leaves as full TCP
   segments' frames through the web VM's port on the uplink, handed to the
   uplink scheduler at once (a TSO send): it waits in the port's queue for
   what the scheduler lets it have, behind the bulk traffic sharing that
   queue (``UplinkScheduler.standing``), and its last frame's departure plus
   the switch is when the client has it. A frame the uplink drops is sent
   again after TCP's minimum retransmission timeout;
5. after the client's turnaround (``peer_turnaround``) the next request goes
   out; after the last, the operation's response time (its first request
   sent to its last response received, as Olio measures it) is recorded and
   the user thinks.

Each VM's vCPUs serve its CPU jobs in arrival order (``TierCpu``): an Apache
or database worker waiting for the next tier holds no vCPU. The web VM's
port declares the frames its users' operations bring, at the rate the users
would ask for them meeting nothing (``declared_pps``), to the uplink
scheduler's allocation.
"""

import math
from collections import deque
from typing import Callable, Deque, Dict, List, Tuple

import numpy as np

from vsim.guest.request_response import RTO_MIN
from vsim.net.frames import IPV4_HEADER
from vsim.net.sources.tcp_stream import TCP_HEADER, TIMESTAMPS_OPTION
from vsim.net.sources.web_users import MTU, WebUsers

SEGMENT_DATA = MTU - IPV4_HEADER - TCP_HEADER - TIMESTAMPS_OPTION
"""Data bytes of a full TCP segment at a 1500-byte MTU with timestamps: 1448."""


def response_frames(size_bytes: float) -> np.ndarray:
    """IP bytes of the frames of a ``size_bytes`` response: full segments, then the rest."""
    full, rest = divmod(math.ceil(size_bytes), SEGMENT_DATA)
    sizes = [float(MTU)] * int(full)
    if rest:
        sizes.append(float(rest + MTU - SEGMENT_DATA))
    return np.array(sizes)


class TierCpu:
    """A VM's vCPU ``worlds`` serving its CPU jobs first come, first served, one a vCPU."""

    def __init__(self, machine, worlds) -> None:
        self.machine = machine
        self.free: Deque = deque(worlds)
        self.jobs: Deque[Tuple[float, Callable[[int], None], int]] = deque()
        self.running: Dict[str, Tuple[Callable[[int], None], int]] = {}
        self.jobs_done = 0

    def run(self, work: float, then: Callable[[int], None], arg: int) -> None:
        """Queue a job of ``work`` core-seconds; ``then(arg)`` when it is done."""
        self.jobs.append((work, then, arg))
        while self.jobs and self.free:
            world = self.free.popleft()
            work, then, arg = self.jobs.popleft()
            self.running[world.name] = (then, arg)
            self.machine.submit(world, work, self._done)

    def _done(self, world):
        then, arg = self.running.pop(world.name)
        self.jobs_done += 1
        then(arg)
        if self.jobs:
            work, then, arg = self.jobs.popleft()
            self.running[world.name] = (then, arg)
            return work
        self.free.append(world)
        return None


class WebApp:
    """Web application ``name`` of scenario group ``group``: its web VM ``web_vm`` (its port
    ``port`` and declared flow ``flow`` of class ``traffic_class`` on ``uplink``, a
    ``SharedUplink``) and database VM ``db_vm`` (CPU groups), answering ``users``.

    ``model`` is the ``WebAppModel``'s values, ``nic`` the NIC model's; ``rng`` draws the
    think times."""

    def __init__(self, name, group, web_vm, db_vm, machine, call_later, now, uplink, port, flow,
                 traffic_class, nic, model, users: WebUsers, rng) -> None:
        self.name, self.group = name, group
        self.web_vm, self.db_vm = web_vm, db_vm
        self.web = TierCpu(machine, web_vm.worlds)
        self.db = TierCpu(machine, db_vm.worlds)
        self.call_later = call_later
        self.now = now
        self.uplink, self.port, self.flow, self.traffic_class = uplink, port, flow, traffic_class
        self.model, self.users, self.rng = model, users, rng
        self.inbound = nic.latency + nic.host_path_latency
        self.inter_vm = nic.host_path_latency
        self.turnaround = nic.peer_turnaround
        self.page_frames = response_frames(model.page_bytes)
        self.object_frames = response_frames(model.object_bytes)
        count = users.users
        self.op_start = [0.0] * count
        self.left = [0] * count  # requests of the operation still to come, this one included
        self.queries = [0] * count
        self.ends: List[float] = []  # each finished operation's last response received, s
        self.times: List[float] = []  # and its response time, s
        self.requests_done = 0
        self.retransmissions = 0

    @staticmethod
    def supports_closed_form() -> bool:
        """Its requests wait on the CPUs and the uplink: only the event engine plays it."""
        return False

    # ------------------------------------------------------------ set-up
    def lone_operation(self) -> float:
        """Seconds of an operation that meets no other work: CPU, the paths and the wires."""
        model, uplink = self.model, self.uplink
        requests = model.requests_per_operation
        wires = (float(np.sum(uplink.frame_work(self.page_frames)))
                 + (requests - 1) * float(np.sum(uplink.frame_work(self.object_frames))))
        # the client turns around between requests: after the last one the operation is done
        return (requests * (self.inbound + uplink.latency) + (requests - 1) * self.turnaround + wires
                + model.page_cpu + (requests - 1) * model.object_cpu
                + model.db_queries * (2 * self.inter_vm + model.db_query_cpu))

    def declared_pps(self) -> float:
        """Frames/s the users ask for when their operations meet nothing: each user's frames of
        an operation per think time and lone operation."""
        frames = self.page_frames.size + (self.model.requests_per_operation - 1) * self.object_frames.size
        return self.users.users * frames / (self.users.think_time + self.lone_operation())

    def start(self, duration: float) -> None:
        """Declare the port's frames and start every user after a first think time."""
        self.uplink.set_rate(self.now(), self.flow, self.declared_pps())
        for user in range(self.users.users):
            self.call_later(self._think(), self._begin, user)

    def _think(self) -> float:
        mean = self.users.think_time
        return float(self.rng.exponential(mean)) if mean > 0 else 0.0

    # ------------------------------------------------------------ one operation
    def _begin(self, user: int) -> None:
        self.op_start[user] = self.now()
        self.left[user] = self.model.requests_per_operation
        self.call_later(self.inbound, self._arrive, user)

    def _page(self, user: int) -> bool:
        return self.left[user] == self.model.requests_per_operation

    def _arrive(self, user: int) -> None:
        model = self.model
        if self._page(user):
            self.web.run(model.page_cpu, self._built, user)
        else:
            self.web.run(model.object_cpu, self._respond, user)

    def _built(self, user: int) -> None:
        """The page's code ran: its queries, one after another, then the response."""
        self.queries[user] = self.model.db_queries
        if self.queries[user]:
            self.call_later(self.inter_vm, self._query, user)
        else:
            self._respond(user)

    def _query(self, user: int) -> None:
        self.db.run(self.model.db_query_cpu, self._answered, user)

    def _answered(self, user: int) -> None:
        self.queries[user] -= 1
        if self.queries[user]:
            self.call_later(2 * self.inter_vm, self._query, user)
        else:
            self.call_later(self.inter_vm, self._respond, user)

    def _respond(self, user: int) -> None:
        """The response's frames to the uplink at once; the client has it at the last one's
        departure (a drop costs a retransmission timeout)."""
        frames = self.page_frames if self._page(user) else self.object_frames
        now = self.now()
        uplink = self.uplink
        uplink.settle(now)
        departures = uplink.transmit_frames(np.full(frames.size, now), frames, self.traffic_class,
                                            self.port)
        if np.isnan(departures).any():
            self.retransmissions += 1
            received = float(np.nanmax(departures, initial=now)) + RTO_MIN
        else:
            received = float(departures.max())
        self.requests_done += 1
        self.call_later(received - now + self.turnaround, self._received, user)

    def _received(self, user: int) -> None:
        self.left[user] -= 1
        if self.left[user]:
            self.call_later(self.inbound, self._arrive, user)
            return
        end = self.now() - self.turnaround
        self.ends.append(end)
        self.times.append(end - self.op_start[user])
        self.call_later(self._think(), self._begin, user)

    # ------------------------------------------------------------ readings
    def finished_between(self, first: float, last: float) -> np.ndarray:
        """Response times (s) of the operations that finished in [first, last)."""
        ends, times = np.asarray(self.ends), np.asarray(self.times)
        return times[(ends >= first) & (ends < last)]
