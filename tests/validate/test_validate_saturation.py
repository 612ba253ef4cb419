"""Saturation is set by the tick's whole CPU cost: configs/validation/cpu_saturation.toml (10 VMs x 2
workers of 2 ms per 20 ms on 2 CPUs, demand = capacity before the wake-up's CPU). Below capacity
almost no tick overruns, above it nearly all do, and the work a CPU does is bounded by its time:
a closed form the simulation cannot beat. The wake-up's cost beyond the worker's accounting
(wake_cost) is set to 0 here, so that the tick costs what each test says."""

from pathlib import Path

import numpy as np
import pytest

from vsim.build.load import load_scenario
from vsim.engines.simulation import Simulation
from vsim.results.simulation_trace import cpu_ticks_trace

CONFIG = Path(__file__).resolve().parents[2] / "configs" / "validation" / "cpu_saturation.toml"
DURATION = 4.0
CPUS, WORKERS, PERIOD = 2, 20, 0.02


def ticks(work, overhead, seed=1):
    sim = Simulation(load_scenario(CONFIG, [f"params.workload.frame_cost={work}",
                                            f"params.workload.tick_overhead={overhead}",
                                            "params.workload.wake_cost=0.0"]), seed, engine="events")
    sim.record_ticks()
    sim.run(DURATION, 0.0)
    return cpu_ticks_trace(sim, {}).columns


def overrun_share(columns):
    return float(np.mean(columns["end_s"] > columns["scheduled_s"] + PERIOD))


def test_the_measured_wake_up_costs_are_what_the_workload_adds():
    values = load_scenario(CONFIG).models["workload"].values
    assert (values.tick_overhead, values.wake_cost) == pytest.approx((6.7e-5, 2.1e-5))


def test_a_few_per_cent_of_demand_either_side_of_capacity_turns_overruns_from_few_to_most():
    below = overrun_share(ticks(1.95e-3, 0.0))  # demand 0.975 of the CPUs
    above = overrun_share(ticks(2.0e-3, 5e-6))  # 1.0025: a 5 us wake-up cost
    assert below < 0.05 and above > 0.6, (below, above)


def test_only_the_ticks_whole_cost_counts_not_how_it_is_split():
    split = ticks(1.933e-3, 6.7e-5)
    whole = ticks(2.0e-3, 0.0)
    assert overrun_share(split) == pytest.approx(overrun_share(whole), abs=0.02)


@pytest.mark.parametrize("overhead", [5e-6, 6.7e-5])
def test_above_capacity_no_more_ticks_end_than_the_cpus_have_time_for(overhead):
    """Work conservation: by time t the CPUs have done at most CPUS * t of work, so at most
    CPUS * t / (work + overhead) ticks have ended; with demand above capacity the simulation
    should sit close to that bound, the backlog growing at the excess rate."""
    work = 2.0e-3
    columns = ticks(work, overhead)
    cost = work + overhead
    ended = np.sort(columns["end_s"])
    bound = CPUS * ended / cost + 1e-6
    assert np.all(np.arange(1, ended.size + 1) <= bound)
    due_by_end = WORKERS * (DURATION // PERIOD)
    assert ended.size >= 0.97 * CPUS * DURATION / cost  # the CPUs were kept busy
    assert ended.size < due_by_end  # and fell behind
