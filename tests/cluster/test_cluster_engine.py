"""A cluster run: Fig 2's steps against their closed forms, a migrated VM's bytes conserved,
admission never over capacity (random clusters and events), the balancer after a fault, HA,
VMs added, DRS off, and the same output for the same seed."""

import itertools
import json
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from vsim.cluster.admission import Demand, refusal
from vsim.cluster.engine import ClusterRun
from vsim.cluster.load import MBPS, load_cluster, read_cluster
from vsim.cluster.placement import Unit, waves
from vsim.cluster.vmotion import MB
from vsim.core.errors import InputError
from vsim.net.sources.tcp_stream import TcpStream

ROOT = Path(__file__).resolve().parents[2]
FIG2 = ROOT / "configs" / "netioc-vsphere6" / "fig2.toml"
ALONE = TcpStream().goodput_bps(TcpStream().line_pps(10e9)) / 1e9
"""Gb/s of goodput one TCP stream gets alone on 10 GbE (9.41)."""


def cluster(hosts=2, vms=(), events=(), **tables):
    """A parsed cluster file: ``hosts`` 10 GbE hosts (host1, ...), VM traffic reserving 7.5 Gb/s
    an uplink, the VMs and events given (each a dict), DRS's first pass at 10 s."""
    data = {"name": "test", "run": {"duration": 600.0},
            "host": [{"name": f"host{i + 1}"} for i in range(hosts)],
            "switch": {"traffic_class": [{"name": "vm", "shares": 100.0, "reservation_mbps": 7500.0},
                                         {"name": "vmotion", "shares": 50.0}]},
            "drs": {"first_pass_s": 10.0},
            "vm": [{"traffic": {"kind": "tcp_stream"}, **vm} for vm in vms], "event": list(events)}
    for key, value in tables.items():
        data[key] = {**data.get(key, {}), **value} if isinstance(value, dict) else value
    return read_cluster(data, "test.toml", ROOT)


def run(loaded, seed=1):
    return ClusterRun(loaded, seed).run()


@pytest.fixture(scope="module")
def fig2():
    return run(load_cluster(FIG2))


def _after(result, vm):
    """The rates just after ``vm``'s migration ended, Gb/s."""
    end = next(m["ended_s"] for m in result.migrations if m["vm"] == vm)
    return {name: rate / 1e9 for name, rate in result.rates_at(end).items()}


def test_fig2_after_each_migration_shares_what_the_reservations_leave(fig2):
    """Reservations first, the rest by equal shares among the VMs of a host (the study's arithmetic)."""
    left = ALONE - 7.5
    b = _after(fig2, "vm2")
    assert b["vm2"] == pytest.approx(ALONE, abs=1e-9)
    assert b["vm1"] == pytest.approx(7.5 + left / 2, abs=0.01)
    assert b["vm3"] == pytest.approx(left / 2, abs=0.01)
    c = _after(fig2, "vm3")
    assert c["vm1"] == pytest.approx(ALONE, abs=1e-9)
    assert c["vm2"] == pytest.approx(4.5 + left / 2, abs=0.01)
    assert c["vm3"] == pytest.approx(3.0 + left / 2, abs=0.01)
    assert fig2.hosts_at(fig2.duration - 1) == {"vm1": "host1", "vm2": "host2", "vm3": "host2"}


def test_fig2_each_fault_waits_for_the_next_drs_pass_then_the_vmotion(fig2):
    delays = fig2.fault_delays()
    assert [fault.vm for fault, _ in delays] == ["vm2", "vm3"]
    for (fault, delay), migration in zip(delays, fig2.migrations):
        passes = math.ceil((fault.at - fig2.first_pass) / fig2.period)
        assert migration["started_s"] == pytest.approx(fig2.first_pass + passes * fig2.period)
        assert delay == pytest.approx(migration["ended_s"] - fault.at)
        assert 0 < delay < fig2.period + 60


def test_fig2_a_vmotion_copy_gets_its_class_share_and_its_vm_a_short_dip(fig2):
    """vMotion (shares 50) beside VM traffic (100, 7.5 Gb/s reserved): a third of what is left."""
    first = fig2.migrations[0]
    during = [s for s in fig2.segments if s.start >= first["started_s"] and s.end <= first["paused_s"]]
    assert during and all(s.copies[first["key"]] / 1e9 == pytest.approx((ALONE - 7.5) / 3, abs=0.01)
                          for s in during)
    paused = [s for s in fig2.segments if first["paused_s"] <= s.start < first["ended_s"]]
    assert paused and all(s.rates["vm2"] == 0 for s in paused)
    assert 0 < first["pause_s"] < 1.0


def test_a_migrated_vms_bytes_are_conserved(fig2):
    """The copy sends the memory and each round's dirtied pages, and the bytes its goodput carried
    over the segments are those; the VM's own bytes add up over the hosts it ran on."""
    dirty = load_cluster(FIG2).model.vmotion_dirty_rate * MB
    for m in fig2.migrations:
        rounds = m["rounds"]
        assert rounds[0]["bytes"] == m["memory_bytes"] == 2048 * MB
        for before, after in zip(rounds, rounds[1:]):
            assert after["bytes"] == pytest.approx(min(m["memory_bytes"], dirty * (before["end_s"] - before["start_s"])))
        assert m["sent_bytes"] == pytest.approx(sum(r["bytes"] for r in rounds), rel=1e-12)
        carried = sum(s.copies.get(m["key"], 0.0) / 8 * (s.end - s.start) for s in fig2.segments)
        assert carried == pytest.approx(m["sent_bytes"], rel=1e-9)
    for vm in fig2.vms:
        by_host = fig2.bytes_by_host(vm)
        per_second = sum(fig2.per_second(vm)) * 1e9 / 8
        assert sum(by_host.values()) == pytest.approx(per_second, rel=1e-9)
    assert set(fig2.bytes_by_host("vm2")) == {"host1", "host2"}


def test_the_same_file_and_seed_give_the_same_run_and_another_seed_another_drs_phase():
    loaded = load_cluster(FIG2)
    first, again = run(loaded, 3), run(load_cluster(FIG2), 3)
    assert json.dumps(first.to_json()) == json.dumps(again.to_json())
    assert run(loaded, 4).first_pass != first.first_pass


# ---------------------------------------------------------------- admission on random clusters
@st.composite
def random_clusters(draw):
    n_hosts = draw(st.integers(1, 3))
    hosts = [f"host{i + 1}" for i in range(n_hosts)]
    quota = draw(st.sampled_from([5000.0, 10000.0, 15000.0]))
    vms = []
    for i in range(draw(st.integers(1, 5))):
        vms.append({"name": f"vm{i + 1}", "host": draw(st.sampled_from([None] + hosts)),
                    "pool": draw(st.sampled_from([None, "pool"])),
                    "powered_on": draw(st.sampled_from([True, True, False])),
                    "reservation_mbps": draw(st.sampled_from([0.0, 1000.0, 2500.0, 4500.0])),
                    "cpu_reservation": draw(st.sampled_from([0.0, 1.0])),
                    "memory_mb": draw(st.sampled_from([512.0, 2048.0]))})
    names = [vm["name"] for vm in vms]
    events = []
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["reservation", "reservation", "migrate", "host_failure", "vm_added"]))
        at = draw(st.sampled_from([5.0, 30.0, 100.0, 200.0, 350.0]))
        if kind == "reservation":
            events.append({"at": at, "kind": kind, "vm": draw(st.sampled_from(names)),
                           "reservation_mbps": draw(st.sampled_from([0.0, 2000.0, 4000.0, 6000.0, 7500.0])),
                           "cpu_reservation": draw(st.sampled_from([0.0, 1.0]))})
        elif kind == "migrate":
            events.append({"at": at, "kind": kind, "vm": draw(st.sampled_from(names)),
                           "host": draw(st.sampled_from(hosts))})
        elif kind == "host_failure":
            events.append({"at": at, "kind": kind, "host": draw(st.sampled_from(hosts))})
        else:
            off = [vm["name"] for vm in vms if not vm["powered_on"]
                   and all(e.get("vm") != vm["name"] or e["kind"] != "vm_added" for e in events)]
            if off:
                events.append({"at": at, "kind": kind, "vm": draw(st.sampled_from(off))})
    for vm in vms:
        if vm["host"] is None:
            del vm["host"]
        if vm["pool"] is None:
            del vm["pool"]
    pools = [{"name": "pool", "reservation_mbps": min(quota, 0.75 * 10000.0 * n_hosts)}]
    try:
        return cluster(n_hosts, vms, events, switch={"pool": pools},
                       drs={"first_pass_s": draw(st.sampled_from([0.0, 20.0, 50.0])), "period_s": 60.0})
    except InputError:
        assume(False)


class Checked(ClusterRun):
    """A run that checks, at every change of the rates, that no host holds more reservations
    than it can meet and no pool more than its quota."""

    def _reallocate(self):
        super()._reallocate()
        for host, up in self.alive.items():
            capacity = self.loaded.hosts[host].capacity
            if up:
                assert refusal(capacity, self._committed(host)) is None, (host, self._committed(host))
            else:
                assert not [n for n, vm in self.vms.items() if vm.host == host and vm.status != "off"]
        for pool in self.config.switch.pool:
            wanted = sum(vm.wanted.bandwidth for vm in self.vms.values()
                         if vm.spec.pool == pool.name and vm.status != "off")
            assert wanted <= pool.reservation_mbps * MBPS * (1 + 1e-9)


@settings(max_examples=120, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(random_clusters())
def test_admission_never_admits_more_than_a_host_or_pool_can_hold(loaded):
    result = Checked(loaded, 1).run()
    capacities = {name: host.capacity for name, host in loaded.hosts.items()}
    for segment in result.segments:
        for host, capacity in capacities.items():
            mine = [vm for vm, on in segment.hosts.items() if on == host]
            assert refusal(capacity, [Demand(0, segment.reserved[vm]) for vm in mine]) is None
        for vm, rate in segment.rates.items():  # a sending VM gets what it reserves (NetIOC's
            if rate > 0:                          # meter counts headers once a TSO segment)
                assert rate >= segment.reserved[vm] * 0.995, (vm, rate, segment.reserved[vm])


# ---------------------------------------------------------------- the balancer after a fault
def _feasible(loaded, wanted, held, start, apart):
    """Whether some placement of VMs ``wanted`` ({vm: Demand}) on the hosts meets all of them
    and can be reached from hosts ``start`` ({vm: host}), where they hold ``held``, by moves
    that never overfill a host (``waves``), trying every placement."""
    names = list(wanted)
    capacities = {name: h.capacity for name, h in loaded.hosts.items()}
    units = [Unit((n,), (wanted[n],), 512.0, start[n], held=(held[n],)) for n in names]
    for hosts in itertools.product(list(loaded.hosts), repeat=len(names)):
        on = dict(zip(names, hosts))
        if any(on[a] == on[b] for a, b in apart):
            continue
        if all(refusal(capacities[name], [wanted[n] for n in names if on[n] == name]) is None
               for name in capacities) and waves(capacities, units, hosts) is not None:
            return True
    return False


@settings(max_examples=80, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(st.integers(2, 3), st.lists(st.sampled_from([0.0, 1000.0, 2500.0, 4500.0, 7500.0]), min_size=2, max_size=5),
       st.data())
def test_after_a_fault_drs_meets_every_reservation_when_a_placement_does_and_says_so_when_none_does(
        n_hosts, reservations, data):
    vms = [{"name": f"vm{i + 1}", "host": data.draw(st.sampled_from([f"host{h + 1}" for h in range(n_hosts)])),
            "reservation_mbps": r, "memory_mb": 512.0} for i, r in enumerate(reservations)]
    changed = data.draw(st.sampled_from([vm["name"] for vm in vms]))
    to = data.draw(st.sampled_from([2500.0, 4500.0, 6000.0, 7500.0]))
    apart = [("vm1", "vm2")] if data.draw(st.booleans()) else []
    if apart:
        vms[0]["apart_from"] = ["vm2"]
    try:
        loaded = cluster(n_hosts, vms, [{"at": 5.0, "kind": "reservation", "vm": changed,
                                         "reservation_mbps": to}], drs={"period_s": 1000.0})
    except InputError:
        assume(False)
    result = run(loaded)
    wanted = {vm["name"]: Demand(0.0, (to if vm["name"] == changed else vm["reservation_mbps"]) * MBPS)
              for vm in vms}
    faults = [f for f in result.faults if f.vm == changed]
    if not faults:  # its host met it at once
        return
    held = {vm["name"]: Demand(0.0, vm["reservation_mbps"] * MBPS) for vm in vms}
    if _feasible(loaded, wanted, held, {vm["name"]: vm["host"] for vm in vms}, apart):
        assert faults[0].cleared_at is not None, [m.text for m in result.marks]
        final = result.segments[-1]
        assert all(final.reserved[vm] == wanted[vm].bandwidth for vm in wanted)
    else:
        assert faults[0].cleared_at is None
        assert any(m.kind == "drs" and "no placement meets" in m.text for m in result.marks)


# ---------------------------------------------------------------- HA, VMs added, DRS off
def test_ha_restarts_a_failed_hosts_vms_where_their_reservations_fit_and_says_which_do_not():
    vms = [{"name": "a", "host": "host1", "reservation_mbps": 5000.0},
           {"name": "b", "host": "host2", "reservation_mbps": 1000.0},
           {"name": "c", "host": "host2", "reservation_mbps": 6000.0, "memory_mb": 1024.0},
           {"name": "d", "host": "host3", "reservation_mbps": 4000.0}]
    result = run(cluster(3, vms, [{"at": 50.0, "kind": "host_failure", "host": "host2"}]))
    model = load_cluster(FIG2).model
    restart = 50.0 + model.ha_detection
    texts = [m.text for m in result.marks]
    assert any("b powers on" in t for t in texts)
    assert any(t.startswith("c not powered on") and "fits no host even alone" not in t for t in texts)
    assert result.hosts_at(restart + 1)["c"] is None
    running = result.rates_at(restart + model.ha_boot + 1)
    assert running["b"] > 2e9 and running["c"] == 0
    assert result.rates_at(restart + 1)["b"] == 0  # booting


def test_a_vm_added_goes_to_the_least_loaded_host_within_its_pool_quota():
    vms = [{"name": "a", "host": "host1", "reservation_mbps": 5000.0, "pool": "p"},
           {"name": "b", "host": "host2", "reservation_mbps": 1000.0, "pool": "p"},
           {"name": "new", "powered_on": False, "reservation_mbps": 2000.0, "pool": "p"},
           {"name": "big", "powered_on": False, "reservation_mbps": 2000.0, "pool": "p"}]
    events = [{"at": 20.0, "kind": "vm_added", "vm": "new"}, {"at": 30.0, "kind": "vm_added", "vm": "big"}]
    result = run(cluster(2, vms, events, switch={"pool": [{"name": "p", "reservation_mbps": 9000.0}]}))
    assert result.hosts_at(25.0)["new"] == "host2"
    refused = next(m for m in result.marks if m.vm == "big")
    assert refused.kind == "refused" and "pool 'p' would reserve 10 Gb/s of its 9 Gb/s quota" in refused.text


def test_with_drs_off_a_change_its_host_cannot_meet_is_refused():
    vms = [{"name": "a", "host": "host1", "reservation_mbps": 5000.0},
           {"name": "b", "host": "host1"}]
    result = run(cluster(2, vms, [{"at": 20.0, "kind": "reservation", "vm": "b", "reservation_mbps": 4000.0}],
                         drs={"automation": "off"}))
    refused = next(m for m in result.marks if m.kind == "refused")
    assert "DRS is off" in refused.text and not result.faults and not result.migrations
    assert result.segments[-1].reserved["b"] == 0


def test_a_manual_migration_moves_a_vm_with_the_vms_that_run_with_it():
    vms = [{"name": "a", "host": "host1"}, {"name": "b", "same_host_as": "a"}, {"name": "c", "host": "host2"}]
    result = run(cluster(2, vms, [{"at": 20.0, "kind": "migrate", "vm": "a", "host": "host2"}]))
    assert result.hosts_at(1.0) == {"a": "host1", "b": "host1", "c": "host2"}
    assert result.hosts_at(590.0) == {"a": "host2", "b": "host2", "c": "host2"}
    assert sorted(m["vm"] for m in result.migrations) == ["a", "b"]


def test_vms_swapping_hosts_move_one_after_the_other_so_no_host_ever_holds_too_much():
    """vm3's 4.5 Gb/s fits only once vm2 has left host1, and vm2 fits host2 only once vm3 has
    left it: vm3 moves holding what it has in force, then vm2, then vm3's reservation fits."""
    vms = [{"name": "vm1", "host": "host1", "reservation_mbps": 1000.0, "memory_mb": 512.0},
           {"name": "vm2", "host": "host1", "reservation_mbps": 2500.0, "memory_mb": 512.0},
           {"name": "vm3", "host": "host2", "reservation_mbps": 1000.0, "memory_mb": 512.0},
           {"name": "vm4", "host": "host2", "reservation_mbps": 4500.0, "memory_mb": 512.0}]
    loaded = cluster(2, vms, [{"at": 5.0, "kind": "reservation", "vm": "vm3", "reservation_mbps": 4500.0}],
                     drs={"period_s": 1000.0})
    result = Checked(loaded, 1).run()
    starts = {m["vm"]: m["started_s"] for m in result.migrations}
    ends = {m["vm"]: m["ended_s"] for m in result.migrations}
    assert starts["vm2"] >= ends["vm3"]
    assert result.hosts_at(590.0) == {"vm1": "host1", "vm2": "host2", "vm3": "host1", "vm4": "host2"}
    assert result.segments[-1].reserved == {"vm1": 1e9, "vm2": 2.5e9, "vm3": 4.5e9, "vm4": 4.5e9}
    assert result.faults[0].cleared_by == "room on host1"


def test_a_vmotion_still_copying_at_the_end_has_sent_what_its_segments_carried():
    result = ClusterRun(load_cluster(FIG2), 1, duration=360.0).run()
    (m,) = result.migrations
    assert m["outcome"] == "precopy" and 0 < m["sent_bytes"] < m["memory_bytes"]
    carried = sum(s.copies.get(m["key"], 0.0) / 8 * (s.end - s.start) for s in result.segments)
    assert carried == pytest.approx(m["sent_bytes"], rel=1e-9)


def test_two_copies_into_one_host_share_its_receive_side():
    """Each copy leaves an idle uplink of its own, which would give it the line; the destination
    receives both, so each gets half of what one stream gets through it."""
    vms = [{"name": "a", "host": "host1", "memory_mb": 4096.0}, {"name": "b", "host": "host2", "memory_mb": 4096.0}]
    events = [{"at": 10.0, "kind": "migrate", "vm": name, "host": "host3"} for name in ("a", "b")]
    loaded = read_cluster({"name": "rx", "run": {"duration": 100.0}, "host": [{"name": f"host{i}"} for i in (1, 2, 3)],
                           "vm": vms, "event": events}, "rx.toml", ROOT)  # VMs without traffic
    result = run(loaded)
    copying = [s for s in result.segments if len(s.copies) == 2]
    assert copying and all(rate / 1e9 == pytest.approx(ALONE / 2) for s in copying for rate in s.copies.values())


def test_a_vm_added_where_only_a_move_makes_room_powers_on_once_the_move_has_ended():
    vms = [{"name": "a", "host": "host1", "reservation_mbps": 4000.0}, {"name": "b", "host": "host2", "reservation_mbps": 4000.0},
           {"name": "c", "host": "host3", "reservation_mbps": 2000.0, "memory_mb": 512.0},
           {"name": "e", "host": "host3", "reservation_mbps": 2000.0},
           {"name": "d", "powered_on": False, "reservation_mbps": 5000.0}]
    result = Checked(cluster(3, vms, [{"at": 20.0, "kind": "vm_added", "vm": "d"}]), 1).run()
    (move,) = result.migrations
    assert move["vm"] == "c" and move["reason"] == "room for d"
    on = next(m for m in result.marks if m.kind == "power_on" and m.vm == "d")
    assert on.host == "host3" and on.t == move["ended_s"]
    assert result.segments[-1].reserved["d"] == 5e9 and result.rates_at(590.0)["d"] > 5e9 * 0.995
