"""A disk benchmark through the driver domain to a disk (IOzone's side): closed forms of its
rate natively and through Dom0, every request through Dom0 and the disk once, refusals."""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from vsim.build.load import load_scenario
from vsim.config.data_dirs import data_root
from vsim.config.schema_models import DiskBenchmarkModel
from vsim.core.environment import Environment
from vsim.core.errors import InputError
from vsim.cpu.machine import Machine
from vsim.cpu.policies import make_policy
from vsim.cpu.topology import Topology
from vsim.cpu.world import Group, World
from vsim.guest.disk_benchmark import DiskBenchmark
from vsim.guest.driver_domain import DriverDomain

CFG6 = data_root() / "configs/xen-appliances/cfg6.toml"
SEQUENTIAL = DiskBenchmarkModel(request_bytes=45056.0, outstanding=1, random_fraction=0.0,
                                disk_rate=65e6, seek_time=0.0085, rpm=7200.0,
                                guest_request=5e-5, dom0_request=8e-5)


class _Vm:
    def __init__(self, worlds):
        self.worlds = worlds


def _vm(machine, name):
    group = Group(name, shares=1000)
    worlds = [World(f"{name}.vcpu0", group)]
    machine.add_group(group)
    return _Vm(worlds)


def _bench(model, with_dom0, duration=2.0):
    """The benchmark alone on two cores: (its requests' B/s, the benchmark, Dom0 or None)."""
    env = Environment()
    machine = Machine(env, Topology(1, 2, 1, 1.0), make_policy("proportional_share"))
    dom0 = DriverDomain(machine, _vm(machine, "dom0")) if with_dom0 else None
    bench = DiskBenchmark("debian[0]", "debian", _vm(machine, "debian"), machine, env.call_later,
                          lambda: env.now, model, np.random.default_rng(1), dom0=dom0)
    bench.start()
    env.run(until=duration)
    return bench.done_bytes / duration, bench, dom0


@settings(max_examples=12, deadline=None)
@given(dom0_request=st.floats(0.0, 1e-3), guest=st.floats(1e-6, 1e-3))
def test_one_sequential_request_at_a_time_runs_at_its_path_closed_form(dom0_request, guest):
    """One outstanding request: a request per guest + Dom0 + transfer time, natively without Dom0."""
    model = dataclasses.replace(SEQUENTIAL, dom0_request=dom0_request, guest_request=guest)
    transfer = model.request_bytes / model.disk_rate
    for with_dom0, path in ((False, guest + transfer), (True, guest + dom0_request + transfer)):
        rate, _, _ = _bench(model, with_dom0)
        assert rate == pytest.approx(model.request_bytes / path, rel=0.01)


def test_random_requests_add_a_seek_and_half_a_revolution_on_average():
    model = dataclasses.replace(SEQUENTIAL, random_fraction=1.0)
    rate, _, _ = _bench(model, with_dom0=False, duration=30.0)
    path = model.guest_request + model.request_bytes / model.disk_rate + model.seek_time + 30.0 / model.rpm
    assert rate == pytest.approx(model.request_bytes / path, rel=0.03)


@settings(max_examples=10, deadline=None)
@given(outstanding=st.integers(1, 8), fraction=st.floats(0.0, 1.0), duration=st.floats(0.05, 1.0))
def test_every_request_crosses_dom0_and_the_disk_once(outstanding, fraction, duration):
    """Conservation: Dom0 carries each issued request once; the disk serves one at a time, never
    more than Dom0 handed it; requests in the system never exceed those outstanding."""
    model = dataclasses.replace(SEQUENTIAL, outstanding=outstanding, random_fraction=fraction)
    _, bench, dom0 = _bench(model, with_dom0=True, duration=duration)
    completed = int(bench.done_bytes // model.request_bytes)
    assert dom0.forwarded - dom0.delivered == dom0.waiting() + len(dom0.busy)
    assert dom0.delivered == bench.requests + len(bench.disk_queue)
    assert 0 <= bench.requests - completed <= 1  # the one in service
    assert bench.disk_time <= duration + 0.1  # one at a time (the last may run past the end)
    assert dom0.forwarded - completed <= outstanding


def test_a_disk_benchmark_with_a_traffic_table_is_refused(tmp_path):
    text = CFG6.read_text().replace('model = "disk_benchmarks/iozone_debian_sata"\n',
                                    'model = "disk_benchmarks/iozone_debian_sata"\n'
                                    '[group.traffic]\nkind = "tcp_stream"\n')
    bad = tmp_path / "bad.toml"
    bad.write_text(text)
    with pytest.raises(InputError) as info:
        load_scenario(bad, [], sweep_points=False)
    assert info.value.where.endswith("traffic") and "disk_benchmark" in info.value.expected
