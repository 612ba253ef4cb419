"""The host's other work: always-runnable tasks outside the VMs (``host.background_tasks``)."""

from pathlib import Path

import pytest
import simpy
from hypothesis import given, settings, strategies as st

from vsim.cpu.machine import Machine
from vsim.cpu.policies import make_policy
from vsim.cpu.topology import Topology
from vsim.build.host_background import BackgroundTasks
from vsim.build.load import load_scenario
from vsim.engines.simulation import Simulation

CPU_CGROUPS = Path(__file__).resolve().parents[2] / "configs" / "validation" / "cpu_cgroups.toml"


def machine(cpus, linux):
    policy = (make_policy("linux_fair", variant="eevdf", tunable_scaling="log", base_slice=7e-4,
                          place_lag=True, run_to_parity=True) if linux else make_policy("proportional_share"))
    return Machine(simpy.Environment(), Topology(1, cpus, 1, 1.0), policy, quantum=0.004)


@settings(max_examples=10, deadline=None)
@given(st.integers(1, 3), st.integers(1, 5), st.booleans())
def test_tasks_keep_every_cpu_busy_and_share_it_equally(cpus, count, linux):
    host = machine(cpus, linux)
    tasks = BackgroundTasks(host, count, linux)
    tasks.start()
    host.env.run(until=1.0)
    used = [world.used + (1.0 - world.run_start if world.lcpu is not None else 0.0) for world in tasks.worlds]
    assert sum(used) == pytest.approx(min(cpus, count), rel=1e-9)
    assert max(used) - min(used) <= 0.05 * max(used)  # equal weights, equal time within a few slices
    expected = 100.0 if linux else 1000.0
    assert {world.group.shares for world in tasks.worlds} == {expected}


def test_the_probe_vms_keep_their_cpu_beside_them_but_wait_for_it():
    """cpu_cgroups: the VMs (weights 200 and 800 flattened) outweigh three nice-0 tasks, so they still
    get the 0.81 CPU they ask for, while the tasks fill the rest and the workers wait longer."""
    def run(count):
        sim = Simulation(load_scenario(CPU_CGROUPS, [f"host.background_tasks={count}"]), 1)
        summary = sim.run(2.0, 0.0).to_json()
        return (sim, sum(vm["used_pct"] for vm in summary["vms"].values()),
                sum(vm["ready_pct"] for vm in summary["vms"].values()), summary["host"]["cpu_util_pct"])

    alone, used_alone, ready_alone, util_alone = run(0)
    crowded, used_crowded, ready_crowded, util_crowded = run(3)
    assert alone.background_tasks.worlds == [] and len(crowded.background_tasks.worlds) == 3
    assert used_alone == pytest.approx(2 * 2 * 4.071 / 20 * 100, rel=1e-6)  # 4 workers x 4.05 ms per 20 ms
    # (work and wake-up) and the 0.021 ms of the switch to them
    assert used_crowded == pytest.approx(used_alone, rel=1e-6)
    assert util_alone == pytest.approx(used_alone / 2) and util_crowded == pytest.approx(100.0)
    assert ready_crowded > ready_alone


def test_the_summary_gives_the_tasks_cpu_and_it_fills_the_host_beside_the_vms():
    """cpu_cgroups with three tasks: what the VMs and their transmit worlds leave of the two CPUs, the
    tasks use, and the summary says so (and has no such section without tasks)."""
    sim = Simulation(load_scenario(CPU_CGROUPS, ["host.background_tasks=3"]), 1)
    summary = sim.run(2.0, 0.0).to_json()
    tasks = summary["host_background_tasks"]
    assert tasks["tasks"] == 3 and tasks["ready_pct"] > 0
    vms = sum(vm["used_pct"] for vm in summary["vms"].values())
    transmit = sum(100 * w.used / 2.0 for w in sim.machine.worlds if w.name.endswith(".vnic-tx"))
    assert vms + transmit + tasks["used_pct"] == pytest.approx(2 * summary["host"]["cpu_util_pct"], rel=1e-6)
    without = Simulation(load_scenario(CPU_CGROUPS, ["host.background_tasks=0"]), 1).run(2.0, 0.0).to_json()
    assert "host_background_tasks" not in without


def test_a_host_with_them_runs_the_events_even_where_every_world_has_a_core():
    """One 4-vCPU VM and one task on the study's 16 logical CPUs: no world waits, but the closed form
    plays only the VMs' worlds, so the task's CPU time shows only from the event engine."""
    fig2 = Path(__file__).resolve().parents[2] / "configs" / "voip-vsphere5" / "fig2.toml"
    alone = Simulation(load_scenario(fig2, ["params.host.socket_contention=0"]), 1)
    busy = Simulation(load_scenario(fig2, ["params.host.socket_contention=0", "host.background_tasks=1"]), 1)
    assert alone.engine == "uncontended" and busy.engine == "events"
    extra = busy.run(2.0, 1.0).to_json()["host"]["cpu_util_pct"] - alone.run(2.0, 1.0).to_json()["host"]["cpu_util_pct"]
    assert extra == pytest.approx(100 / 16, rel=1e-6)  # one of 16 logical CPUs, always busy
