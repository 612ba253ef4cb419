"""The SIP server: its INVITE response time against M/G/1 closed forms, without and with GC."""

import numpy as np
import pytest

from vsim.core.environment import Environment
from vsim.cpu.machine import Machine
from vsim.cpu.policies import make_policy
from vsim.cpu.topology import Topology
from vsim.cpu.world import Group, World
from vsim.guest.jvm_gc import JvmGc
from vsim.guest.sip_server import SipServer
from vsim.net.sources import make_source
from vsim.net.sources.sipp_uac import UacCalls

DELAY = 1e-4
INVITE_S = 0.006
RATE = 100.0


class _EndsNoted:
    """The machine as the server sees it, noting when each of its messages' work ends (every
    completion of a worker's job: the job a message starts, and each the server hands on)."""

    def __init__(self, machine, server, ends, env):
        self.machine, self.server, self.ends, self.env = machine, server, ends, env

    def submit(self, world, work, on_done):
        if on_done == self.server._done:
            def noted(done_world, on_done=on_done):
                self.ends.append(self.env.now)
                return on_done(done_world)
            self.machine.submit(world, work, noted)
        else:
            self.machine.submit(world, work, on_done)


def run(gc=None, duration=300.0, queue=10_000, vcpus=1, handled=None, invite=INVITE_S, until=None):
    """Poisson calls at ``RATE`` on a one-vCPU server whose INVITE takes ``invite`` (ACK and
    BYE nothing), played to ``until`` (by default 40 s past the last call); the mean INVITE
    response time after a 10 s warm-up, and the server."""
    env = Environment()
    machine = Machine(env, Topology(1, vcpus, 1, 1.0), make_policy("proportional_share"))
    group = Group("sip", shares=1000)
    for j in range(vcpus):
        World(f"sip.vcpu{j}", group)
    machine.add_group(group)
    uac = make_source("sipp_uac", {"rate": RATE, "arrivals": "poisson", "call_length": 1.0,
                                   "network_delay": DELAY})
    cost = {"INVITE": invite, "ACK": 0.0, "BYE": 0.0, "retransmission": 0.0}
    holder = {}
    server = SipServer(machine, env.call_later, lambda: env.now, group.worlds, cost, queue,
                       lambda m: holder["calls"].reply(m), gc)
    calls = UacCalls(uac, env.call_later, lambda: env.now, server.deliver, np.random.default_rng(7))
    holder["calls"] = calls
    if handled is not None:  # keep the time every message's work ended
        server.machine = _EndsNoted(machine, server, handled, env)
    calls.start(uac.call_times(0.0, duration, np.random.default_rng(3)))
    env.run(until=duration + 40 if until is None else until)
    answered = [c.answered - c.invited for c in calls.started_between(10.0, duration)
                if c.answered is not None]
    assert queue < 10_000 or all(not c.failed for c in calls.calls)
    return float(np.mean(answered)), server, calls


def pk_wait(rate, mean, second):
    """Pollaczek-Khinchine: the mean wait in an M/G/1 queue."""
    return rate * second / (2 * (1 - rate * mean))


def test_response_time_is_mg1s_without_gc():
    mean, server, calls = run()
    expected = pk_wait(RATE, INVITE_S, INVITE_S ** 2) + INVITE_S + 2 * DELAY
    assert mean == pytest.approx(expected, rel=0.08)
    assert server.dropped == 0 and calls.retransmissions == 0


class BernoulliGc(JvmGc):
    """A collector due after each INVITE with probability 1/n: pauses placed independently of
    the queue, so the INVITEs' work (S, or S + P before a pause) is i.i.d."""

    def __init__(self, n, pause):
        super().__init__(young_bytes=1.0, allocation={}, survivor_bytes=0.0, copy_rate=1e9,
                         minor_work=pause, old_bytes=1e18, mark_rate=1e9, major_work=0.0)
        self.rng = np.random.default_rng(11)
        self.n = n

    def allocate(self, kind):
        return kind == "INVITE" and float(self.rng.random()) < 1.0 / self.n


def vacation_wait(n, pause):
    """The mean wait of M/G/1 with a vacation of ``pause`` after each service with probability
    1/n: Pollaczek-Khinchine over the services with their vacations."""
    first = INVITE_S + pause / n
    second = INVITE_S ** 2 + 2 * INVITE_S * pause / n + pause ** 2 / n
    return pk_wait(RATE, first, second)


def test_gc_pauses_as_vacations_meet_the_closed_form():
    n, pause = 20, 0.030
    gc = BernoulliGc(n, pause)
    mean, server, _ = run(gc)
    assert gc.minor > 1000 and len(server.pauses) == gc.minor
    assert mean == pytest.approx(vacation_wait(n, pause) + INVITE_S + 2 * DELAY, rel=0.10)


def test_young_generation_pauses_lie_between_no_gc_and_random_pauses():
    """A collection after every n-th INVITE (the young generation's fill) spaces the pauses
    out, so the INVITEs wait less than behind pauses placed at random, and more than without."""
    n, pause = 20, 0.030
    gc = JvmGc(young_bytes=n * 1000.0, allocation={"INVITE": 1000.0}, survivor_bytes=0.0,
               copy_rate=1e9, minor_work=pause, old_bytes=1e18, mark_rate=1e9, major_work=0.0)
    mean, _, _ = run(gc)
    wait = mean - INVITE_S - 2 * DELAY
    assert pk_wait(RATE, INVITE_S + pause / n, INVITE_S ** 2) < wait < vacation_wait(n, pause)


def test_full_queue_drops_and_client_retransmits():
    _, server, calls = run(duration=30.0, queue=1)
    assert server.dropped > 0 and calls.retransmissions > 0


def test_sip_summary_section():
    from types import SimpleNamespace
    from vsim.results.run_summary_types import VmCpu
    from vsim.results.sip_summary import sip_vm
    _, server, calls = run(duration=60.0)
    cpu = VmCpu(used_pct=60.0, ready_pct=0.0, costop_pct=0.0, limited_pct=0.0)
    section = sip_vm(SimpleNamespace(calls=calls, server=server), "sip", cpu, 2, 10.0, 50.0)
    assert section.calls_attempted_per_s == pytest.approx(RATE, rel=0.1)
    assert section.calls_failed_per_s == 0 and section.failed_fraction == 0
    assert section.calls_successful_per_s == section.calls_attempted_per_s
    assert section.calls_unfinished_per_s == 0
    assert INVITE_S * 1e3 < section.response_time_p50_ms < section.response_time_p95_ms
    assert section.setup_p50_ms > section.response_time_p50_ms
    assert section.gc_pauses == 0 and section.queue_dropped == 0 and section.gc_paused_pct == 0
    assert section.cpu_util_pct == 30.0


def test_calls_still_waiting_at_the_end_are_unfinished():
    """A server too slow for its client: the calls it has not answered when the run ends are
    neither successful nor failed (Timer B is 32 s away), and the summary counts them."""
    from types import SimpleNamespace
    from vsim.results.run_summary_types import VmCpu
    from vsim.results.sip_summary import sip_vm
    _, server, calls = run(duration=20.0, invite=2.0 / RATE, until=20.0)
    cpu = VmCpu(used_pct=100.0, ready_pct=0.0, costop_pct=0.0, limited_pct=0.0)
    section = sip_vm(SimpleNamespace(calls=calls, server=server), "sip", cpu, 1, 5.0, 20.0)
    assert section.calls_unfinished_per_s > 0
    assert section.calls_successful_per_s + section.calls_failed_per_s + section.calls_unfinished_per_s \
        == pytest.approx(section.calls_attempted_per_s)


def test_a_pause_stops_every_worker():
    """Two vCPUs, a parallel collector of two threads: no message's work ends inside a pause,
    and the pause's work is shared by both vCPUs."""
    handled = []
    gc = JvmGc(young_bytes=50_000.0, allocation={"INVITE": 1000.0, "ACK": 200.0, "BYE": 500.0},
               survivor_bytes=2000.0, copy_rate=1e8, minor_work=0.004, old_bytes=1e18,
               mark_rate=1e9, major_work=0.0, threads=2)
    _, server, _ = run(gc, duration=60.0, vcpus=2, handled=handled)
    times = np.array(handled)
    assert len(server.pauses) > 100
    for begin, end in server.pauses:
        assert end > begin
        assert not np.any((times > begin + 1e-12) & (times < end - 1e-12))
