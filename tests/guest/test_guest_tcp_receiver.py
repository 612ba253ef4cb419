"""A TCP bulk receiver fed from off the host (nttcp's side): the wire's goodput natively, the
slowest stage's rate through Dom0, every segment through Dom0 once, Table 2's run, refusals."""

import dataclasses

import pytest
from hypothesis import given, settings, strategies as st

from vsim.build.load import load_scenario
from vsim.config.data_dirs import data_root
from vsim.config.schema_models import TcpReceiverModel
from vsim.core.environment import Environment
from vsim.core.errors import InputError
from vsim.cpu.machine import Machine
from vsim.cpu.policies import make_policy
from vsim.cpu.topology import Topology
from vsim.cpu.world import Group, World
from vsim.engines.simulation import simulate
from vsim.guest.driver_domain import DriverDomain
from vsim.guest.tcp_receiver import TcpReceiver

NTTCP = data_root() / "configs/xen-appliances/nttcp.toml"
CFG5 = data_root() / "configs/xen-appliances/cfg5.toml"
MODEL = TcpReceiverModel(wire_bps=1e8, mtu_bytes=1500, header_bytes=52, frame_overhead_bytes=38,
                         window_bytes=65535, segments_per_ack=2, path_delay=1e-4,
                         guest_segment=1e-6, dom0_segment=0.0, dom0_ack=0.0)


class _Vm:
    def __init__(self, worlds):
        self.worlds = worlds


def _vm(machine, name, vcpus=1):
    group = Group(name, shares=1000)
    worlds = [World(f"{name}.vcpu{j}", group) for j in range(vcpus)]
    machine.add_group(group)
    return _Vm(worlds)


def _stream(model, with_dom0, duration=0.5, warmup=0.1):
    """The receiver alone on two cores, with Dom0 or not: (its Mb/s over the window after
    ``warmup``, the receiver, Dom0 or None)."""
    env = Environment()
    machine = Machine(env, Topology(1, 2, 1, 1.0), make_policy("proportional_share"))
    dom0 = DriverDomain(machine, _vm(machine, "dom0")) if with_dom0 else None
    receiver = TcpReceiver("debian[0]", "debian", _vm(machine, "debian"), machine, env.call_later,
                           lambda: env.now, model, dom0=dom0)
    receiver.start()
    if warmup > 0:
        env.run(until=warmup)
    before = receiver.received_bytes
    env.run(until=duration)
    return 8e-6 * (receiver.received_bytes - before) / (duration - warmup), receiver, dom0


def test_natively_the_stream_runs_at_the_wire_goodput():
    """Nothing on the host slower than a frame's time on the wire: 100 Mb/s x 1448 / 1538."""
    assert MODEL.line_goodput_bps() == pytest.approx(94.148e6, rel=1e-4)
    mbps, _, _ = _stream(MODEL, with_dom0=False)
    assert mbps == pytest.approx(94.148, rel=0.01)


@settings(max_examples=12, deadline=None)
@given(segment=st.floats(2e-5, 4e-4), ack=st.floats(0.0, 1e-4))
def test_through_dom0_the_slowest_stage_sets_the_rate(segment, ack):
    """Closed form: min(the wire's goodput, one segment per dom0_segment + dom0_ack / 2 of
    Dom0's one vCPU), with a window of 44 segments far above the path's few in flight."""
    model = dataclasses.replace(MODEL, dom0_segment=segment, dom0_ack=ack)
    mbps, _, _ = _stream(model, with_dom0=True)
    dom0_rate = 8e-6 * model.mss / (segment + ack / model.segments_per_ack)
    assert mbps == pytest.approx(min(94.148, dom0_rate), rel=0.02)


@settings(max_examples=10, deadline=None)
@given(segment=st.floats(1e-5, 3e-4), duration=st.floats(0.05, 0.3))
def test_every_segment_and_ack_crosses_dom0_once(segment, duration):
    """Conservation: Dom0 carries each burst of segments that reached the host once and each
    ACK once; what the application read is at most what arrived, and never more than one
    window short of it."""
    model = dataclasses.replace(MODEL, dom0_segment=segment, dom0_ack=5e-5)
    _, receiver, dom0 = _stream(model, with_dom0=True, duration=duration, warmup=0.0)
    bursts_in = receiver.segments_in // model.segments_per_ack
    read = receiver.received_bytes // (model.mss * model.segments_per_ack)
    assert dom0.forwarded == bursts_in + read
    assert dom0.forwarded - dom0.delivered == dom0.waiting() + len(dom0.busy)
    assert 0 <= bursts_in - read <= receiver.window // model.segments_per_ack
    assert dom0.delivered <= dom0.forwarded
    assert receiver.in_flight <= receiver.window


def test_table2_run_reports_the_stream_and_the_wire():
    loaded = load_scenario(NTTCP, [], sweep_points=False)
    summary = simulate(loaded, 1, duration=3.0, warmup=1.0)
    receiver = summary.tcp_receivers["debian[0]"]
    assert receiver.line_mbps == pytest.approx(94.148, rel=1e-4)
    assert receiver.throughput_mbps < receiver.line_mbps
    (dom0,) = summary.dom0.values()
    assert dom0.cpu.used_pct > 95.0  # netback is the stream's slowest stage


def test_a_tcp_receiver_with_a_traffic_table_is_refused(tmp_path):
    text = NTTCP.read_text().replace('model = "tcp_receivers/nttcp_debian_100mb"\n',
                                     'model = "tcp_receivers/nttcp_debian_100mb"\n'
                                     '[group.traffic]\nkind = "tcp_stream"\n')
    bad = tmp_path / "bad.toml"
    bad.write_text(text)
    with pytest.raises(InputError) as info:
        load_scenario(bad, [], sweep_points=False)
    assert info.value.where.endswith("traffic") and "tcp_receiver" in info.value.expected


def test_a_segment_without_payload_is_refused(tmp_path):
    model = (data_root() / "models/tcp_receivers/nttcp_debian_100mb.toml").read_text()
    (tmp_path / "no_payload.toml").write_text(model.replace("value = 52", "value = 1500"))
    bad = tmp_path / "bad.toml"
    bad.write_text(NTTCP.read_text().replace('"tcp_receivers/nttcp_debian_100mb"', '"no_payload.toml"'))
    with pytest.raises(InputError) as info:
        load_scenario(bad, [], sweep_points=False)
    assert "header_bytes" in info.value.where
