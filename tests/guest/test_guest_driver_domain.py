"""Xen's driver domain (Dom0) carrying a SIP server's messages: conservation, its CPU, refusals."""

import pytest
from hypothesis import given, settings, strategies as st

from vsim.build.load import load_scenario
from vsim.core.environment import Environment
from vsim.core.errors import InputError
from vsim.cpu.machine import Machine
from vsim.cpu.policies import make_policy
from vsim.cpu.topology import Topology
from vsim.cpu.world import Group, World
from vsim.config.data_dirs import data_root
from vsim.engines.simulation import simulate
from vsim.guest.driver_domain import DriverDomain

CFG1 = data_root() / "configs/xen-appliances/cfg1.toml"
CFG7 = data_root() / "configs/xen-appliances/cfg7.toml"


class _Vm:
    def __init__(self, worlds):
        self.worlds = worlds


@settings(max_examples=25, deadline=None)
@given(times=st.lists(st.floats(0.0, 1.0), min_size=1, max_size=40),
       work=st.floats(1e-5, 5e-3), vcpus=st.integers(1, 2))
def test_every_message_is_delivered_once_and_costs_its_work(times, work, vcpus):
    """Conservation: each forwarded message is delivered exactly once, never before its work
    could have been done, and Dom0's vCPUs run exactly the messages' work."""
    env = Environment()
    machine = Machine(env, Topology(1, 2, 1, 1.0), make_policy("proportional_share"))
    group = Group("dom0", shares=1000)
    worlds = [World(f"dom0.vcpu{j}", group) for j in range(vcpus)]
    machine.add_group(group)
    dom0 = DriverDomain(machine, _Vm(worlds))
    delivered = []
    for index, at in enumerate(sorted(times)):
        env.call_later(at, lambda i: dom0.forward(work, lambda m: delivered.append((m, env.now)), i), index)
    env.run(until=2.0 + len(times) * work)
    assert sorted(m for m, _ in delivered) == list(range(len(times)))
    assert dom0.forwarded == dom0.delivered == len(times)
    sent = sorted(times)
    assert all(t >= sent[m] + work - 1e-9 for m, t in delivered)
    if vcpus == 1:  # one vCPU: in the order forwarded
        assert [m for m, _ in delivered] == list(range(len(times)))


def _dom0(vcpus):
    env = Environment()
    machine = Machine(env, Topology(1, 2, 1, 1.0), make_policy("proportional_share"))
    group = Group("dom0", shares=1000)
    worlds = [World(f"dom0.vcpu{j}", group) for j in range(vcpus)]
    machine.add_group(group)
    return env, DriverDomain(machine, _Vm(worlds))


@settings(max_examples=25, deadline=None)
@given(times=st.lists(st.tuples(st.floats(0.0, 0.05), st.sampled_from(["a", "b", None])), min_size=1,
                      max_size=40),
       work=st.floats(1e-4, 5e-3))
def test_a_lane_runs_one_message_at_a_time_in_its_order(times, work):
    """Two Dom0 vCPUs: each lane's messages are delivered in the order forwarded, each at
    least its work after the one before it (never two at once); every message once."""
    env, dom0 = _dom0(2)
    delivered = []
    for index, (at, lane) in enumerate(sorted(times, key=lambda pair: pair[0])):
        env.call_later(at, lambda arg: dom0.forward(work, lambda m: delivered.append((m, env.now)), arg[0], arg[1]),
                       (index, lane))
    env.run(until=1.0 + len(times) * work)
    lanes = [lane for _, lane in sorted(times, key=lambda pair: pair[0])]
    assert sorted(m for m, _ in delivered) == list(range(len(times)))
    for lane in ("a", "b"):
        mine = [(m, t) for m, t in delivered if lanes[m] == lane]
        assert [m for m, _ in mine] == sorted(m for m, _ in mine)
        assert all(later - earlier >= work - 1e-9 for (_, earlier), (_, later) in zip(mine, mine[1:]))


def test_two_lanes_run_side_by_side_and_one_lane_does_not():
    """A hundred messages at once on two vCPUs: in one lane they take a hundred works, in two
    lanes (or none) half as long."""
    work = 1e-3
    ends = {}
    for name, lane_of in (("one", lambda i: "x"), ("two", lambda i: "xy"[i % 2]), ("none", lambda i: None)):
        env, dom0 = _dom0(2)
        done = []
        for i in range(100):
            dom0.forward(work, lambda m: done.append(env.now), i, lane_of(i))
        env.run(until=1.0)
        ends[name] = max(done)
    assert ends["one"] == pytest.approx(100 * work, rel=1e-6)
    assert ends["two"] == pytest.approx(50 * work, rel=1e-6)
    assert ends["none"] == pytest.approx(50 * work, rel=1e-6)


def _run(config, rate, duration=20.0, extra=()):
    loaded = load_scenario(config, [f"group.asterisk.traffic.params.rate={rate}", *extra], sweep_points=False)
    return loaded, simulate(loaded, 1, duration=duration, warmup=5.0)


def test_dom0_carries_six_messages_a_call_at_its_cost():
    """Below saturation Dom0's CPU is the rate x six messages (INVITE, 180, 200, ACK, BYE,
    200) x the model's dom0_message; every call succeeds."""
    rate = 200.0
    loaded, summary = _run(CFG1, rate)
    work = loaded.models["group.asterisk.workload"].values.dom0_message
    (dom0,) = summary.dom0.values()
    assert dom0.cpu.used_pct == pytest.approx(100 * rate * 6 * work, rel=0.02)
    server = summary.sip["asterisk[0]"]
    assert server.calls_successful_per_s == pytest.approx(rate, rel=0.01)


def test_two_identical_appliances_share_alike():
    _, summary = _run(CFG7, 300.0)
    one, two = summary.sip["asterisk[0]"], summary.sip["asterisk[1]"]
    assert one.calls_successful_per_s == pytest.approx(two.calls_successful_per_s, rel=0.02)
    assert one.cpu_util_pct == pytest.approx(two.cpu_util_pct, rel=0.02)



@pytest.mark.parametrize("override, key", [
    (["group.dom0.count=2"], "group.dom0.workload"),
])
def test_a_dom0_group_of_more_than_one_vm_is_refused(override, key):
    with pytest.raises(InputError) as info:
        load_scenario(CFG1, override, sweep_points=False)
    assert key in info.value.where and "one dom0 VM" in info.value.expected
