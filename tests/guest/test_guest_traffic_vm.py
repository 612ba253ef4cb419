"""A VM sending bulk traffic: its rate schedule over a run and the changes it hands the uplink."""

import numpy as np
import pytest

from vsim.core.environment import Environment
from vsim.core.errors import InputError
from vsim.guest.traffic_vm import TrafficVm
from vsim.net.sources.tcp_stream import TcpStream

GIGABIT = 1e9


class RecordingUplink:
    """Stands in for the shared uplink: remembers every rate change."""

    def __init__(self):
        self.changes = []

    def set_rate(self, t, flow, pps):
        self.changes.append((t, flow, pps))


def traffic_vm(kind, params, active=(0.0, 1.0), env=None, uplink=None, seed=1):
    return TrafficVm(env or Environment(), uplink or RecordingUplink(), 3, kind, params,
                     active_from=active[0], active_until=active[1],
                     rng=np.random.default_rng(seed), source="s.toml", where="group[0].traffic")


def test_a_flood_runs_over_its_fraction_of_the_run():
    vm = traffic_vm("udp_flood", {"pps": 1000.0, "ip_bytes": 264}, active=(0.5, 0.9))
    times, rates = vm.rate_schedule(600.0, GIGABIT)
    assert times.tolist() == [0.0, 300.0, 540.0]
    assert rates.tolist() == [0.0, 1000.0, 0.0]


def test_a_flood_from_the_start_does_not_begin_silent():
    times, rates = traffic_vm("udp_flood", {"pps": 5.0, "ip_bytes": 100}).rate_schedule(10.0, GIGABIT)
    assert times.tolist() == [0.0, 10.0] and rates.tolist() == [5.0, 0.0]


def test_an_on_off_flood_keeps_its_cycles():
    vm = traffic_vm("udp_flood", {"pps": 10.0, "ip_bytes": 100, "on": 1.0, "off": 1.0}, active=(0.5, 1.0))
    times, rates = vm.rate_schedule(10.0, GIGABIT)
    assert times.tolist() == [0.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0]
    assert rates.tolist() == [0.0, 10.0, 0.0, 10.0, 0.0, 10.0, 0.0]


def test_a_tcp_stream_offers_the_line_rate_while_active():
    vm = traffic_vm("tcp_stream", {}, active=(0.0, 0.5))
    times, rates = vm.rate_schedule(20.0, GIGABIT)
    assert times.tolist() == [0.0, 10.0]
    assert rates.tolist() == [pytest.approx(TcpStream().demand_pps(GIGABIT)), 0.0]


def test_the_changes_reach_the_uplink_at_their_times():
    env, uplink = Environment(), RecordingUplink()
    vm = traffic_vm("udp_flood", {"pps": 7.0, "ip_bytes": 100}, active=(0.25, 0.75), env=env,
                    uplink=uplink)
    vm.start(8.0, GIGABIT)
    env.run(until=8.5)
    assert uplink.changes == [(0.0, 3, 0.0), (2.0, 3, 7.0), (6.0, 3, 0.0)]


def test_bad_source_parameters_name_the_scenario_key():
    with pytest.raises(InputError) as info:
        traffic_vm("udp_flood", {"pps": -1.0, "ip_bytes": 100})
    assert info.value.source == "s.toml" and info.value.where.startswith("group[0].traffic.pps")
    with pytest.raises(InputError) as info:
        traffic_vm("udp_flood", {"pps": 1.0, "ip_bytes": 100, "burst": 3})
    assert info.value.where == "group[0].traffic.burst"


def test_bulk_traffic_refuses_the_closed_form():
    assert traffic_vm("tcp_stream", {}).supports_closed_form() is False
