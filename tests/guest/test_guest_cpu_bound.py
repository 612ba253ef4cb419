"""CPU-bound VMs: their demand on a CPU of their own, what they take beside others, and the
scenario key that makes them."""

import math

import numpy as np
import pytest
import simpy
from hypothesis import given, settings, strategies as st

from vsim.core.environment import scheduler_for
from vsim.core.errors import InputError
from vsim.cpu.machine import Machine
from vsim.cpu.policies import make_policy
from vsim.cpu.topology import Topology
from vsim.cpu.world import Group, World
from vsim.guest.cpu_bound import CpuBoundVm
from vsim.build.load import load_scenario
from vsim.engines.simulation import Simulation


def machine(cores):
    env = simpy.Environment()
    return env, Machine(env, Topology(1, cores, 1, 1.0), make_policy("proportional_share"))


def cpu_bound_vm(env, host, name, vcpus, demand, burst=0.01, seed=1):
    group = Group(name)
    for j in range(vcpus):
        World(f"{name}.{j}", group)
    host.add_group(group)
    vm = CpuBoundVm(host, scheduler_for(env), group.worlds, demand, burst, np.random.default_rng(seed))
    vm.start()
    return group


def used(group, now):
    return sum(w.used + (now - w.run_start if w.lcpu is not None else 0.0) for w in group.worlds)


@settings(max_examples=10, deadline=None)
@given(st.floats(0.1, 0.9), st.integers(1, 3), st.integers(0, 2**16))
def test_on_cpus_of_its_own_a_vm_uses_its_demand(demand, vcpus, seed):
    """Bursts of 10 ms apart by exponential gaps of mean 10 ms x (1 - d) / d: over 200 s each vCPU
    is busy d of the time, within four standard errors of the cycle count."""
    env, host = machine(vcpus)
    group = cpu_bound_vm(env, host, "hog", vcpus, demand, seed=seed)
    env.run(200.0)
    cycles = 200.0 * demand / 0.01 * vcpus
    error = 4 * (1 - demand) / math.sqrt(cycles)  # the gaps' share of the cycle varies, not the bursts'
    assert used(group, 200.0) / (200.0 * vcpus) == pytest.approx(demand, abs=error)


def test_an_always_runnable_vm_takes_every_cpu_it_can_and_shares_the_rest():
    """Demand 1: on 3 CPUs a 2-vCPU VM keeps two busy; beside a second such VM they split the
    3 CPUs evenly (equal shares per vCPU)."""
    env, host = machine(3)
    first = cpu_bound_vm(env, host, "a", 2, 1.0)
    env.run(10.0)
    assert used(first, 10.0) == pytest.approx(20.0)
    env, host = machine(3)
    first, second = cpu_bound_vm(env, host, "a", 2, 1.0), cpu_bound_vm(env, host, "b", 2, 1.0)
    env.run(10.0)
    assert used(first, 10.0) + used(second, 10.0) == pytest.approx(30.0)
    assert used(first, 10.0) == pytest.approx(15.0, rel=0.01)


CONFIG = """
name = "media servers beside CPU-bound VMs"
[run]
duration = 3.0
warmup = 1.0
[vm]
instances = 2
vcpus = 2
streams_per_instance = 30
[[group]]
name = "hog"
count = 2
vcpus = 2
workload = "cpu_bound"
"""


def scenario(tmp_path, text=CONFIG, *overrides):
    path = tmp_path / "hogs.toml"
    path.write_text(text)
    return load_scenario(path, list(overrides))


def test_a_scenario_s_cpu_bound_group_is_summarised_with_its_demand(tmp_path):
    summary = Simulation(scenario(tmp_path, CONFIG, "group.hog.cpu_demand=0.25"), 1).run(3.0, 1.0).to_json()
    vms = summary["cpu_bound_vms"]
    assert list(vms) == ["hog[0]", "hog[1]"]
    assert all(vm["group"] == "hog" and vm["demand_pct"] == 50.0 for vm in vms.values())
    assert all(20.0 < vm["used_pct"] < 80.0 for vm in vms.values())
    assert set(summary["vms"]) == {"vm0", "vm1"}  # media servers only


TWO_HOGS = """
name = "two always-runnable VMs on the two cores of one socket"
[run]
duration = 3.0
warmup = 1.0
[host]
model = "hosts/xeon3060_xenserver"
[vm]
instances = 0
vcpus = 1
[[group]]
name = "hog"
count = 2
vcpus = 1
workload = "cpu_bound"
cpu_demand = 1.0
"""


@pytest.mark.parametrize("contention", [0.0, 0.09, 0.5])
def test_work_done_is_the_cpu_used_at_the_speed_a_busy_socket_leaves(tmp_path, contention):
    """Each hog has a core to itself and the other core is always busy: it uses all of its core's
    time and gets 1 / (1 + c) of it done, c the host's socket contention."""
    loaded = scenario(tmp_path, TWO_HOGS, f"params.host.socket_contention={contention}")
    vms = Simulation(loaded, 1).run(3.0, 1.0).to_json()["cpu_bound_vms"]
    assert [vm["used_pct"] for vm in vms.values()] == pytest.approx([100.0, 100.0])
    assert [vm["work_pct"] for vm in vms.values()] == pytest.approx([100.0 / (1 + contention)] * 2)


@settings(max_examples=8, deadline=None)
@given(demand=st.floats(0.1, 0.9), contention=st.sampled_from([0.0, 0.2]))
def test_work_done_never_exceeds_the_cpu_used_and_equals_it_on_an_uncontended_socket(tmp_path_factory, demand,
                                                                                      contention):
    """Bursty hogs share the socket's busy time at random: a hog gets no more work done than the
    CPU it used, less while the other core is busy, and exactly that CPU without contention (the
    Xeon 3060 has no hyper-threads)."""
    loaded = scenario(tmp_path_factory.mktemp("hogs"), TWO_HOGS, f"params.host.socket_contention={contention}",
                      f"group.hog.cpu_demand={demand}")
    for vm in Simulation(loaded, 1).run(3.0, 1.0).to_json()["cpu_bound_vms"].values():
        if contention == 0.0:
            assert vm["work_pct"] == pytest.approx(vm["used_pct"])
        else:
            assert vm["used_pct"] / (1 + contention) - 1e-9 <= vm["work_pct"] <= vm["used_pct"] + 1e-9


def test_the_same_seed_gives_the_same_run(tmp_path):
    loaded = scenario(tmp_path, CONFIG, "group.hog.cpu_demand=0.5")
    assert Simulation(loaded, 4).run(3.0, 1.0).to_json() == Simulation(loaded, 4).run(3.0, 1.0).to_json()


@pytest.mark.parametrize("extra, where", [
    ('[group.traffic]\nkind = "udp_flood"\nparams = { pps = 1000 }\n', "group[0].traffic"),
    ("cpu_demand = 1.5\n", "group[0].cpu_demand"),
    ("cpu_demand = 0\n", "group[0].cpu_demand"),
])
def test_a_cpu_bound_group_is_refused_with_traffic_or_a_demand_outside_0_to_1(tmp_path, extra, where):
    text = CONFIG.replace('workload = "cpu_bound"\n', f'workload = "cpu_bound"\n{extra}')
    with pytest.raises(InputError) as caught:
        scenario(tmp_path, text)
    assert caught.value.where.replace("group.hog", "group[0]") == where
