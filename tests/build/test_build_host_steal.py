"""Measured steal replayed on a host's logical CPUs (``host.steal_trace``)."""

import itertools
import json
from pathlib import Path

import numpy as np
import pytest
import simpy
from hypothesis import given, settings, strategies as st

from busy_worlds import add_busy_worlds
from vsim.core.errors import InputError
from vsim.cpu.machine import Machine
from vsim.cpu.policies import make_policy
from vsim.cpu.topology import Topology
from vsim.cpu.world import RUN
from vsim.build.host_steal import HostSteal, blocks, policy_for
from vsim.build.load import load_scenario
from vsim.engines.simulation import Simulation
from vsim.traces.steal_trace import parse_steal_trace
from vsim.traces.vsim_trace import trace_text, write_trace

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
TICK = 0.01


def steal_columns(intervals, stolen):
    """Steal trace columns: ``intervals`` (lengths, s) shared by every CPU, ``stolen[cpu][i]`` s."""
    bounds = np.concatenate([[0.0], np.cumsum(intervals)]).tolist()
    out = {"cpu": [], "start_s": [], "end_s": [], "steal_s": []}
    for i in range(len(intervals)):
        for cpu, series in enumerate(stolen):
            out["cpu"].append(cpu)
            out["start_s"].append(bounds[i])
            out["end_s"].append(bounds[i + 1])
            out["steal_s"].append(series[i])
    return out


def steal_trace(intervals, stolen):
    return parse_steal_trace(trace_text("steal", steal_columns(intervals, stolen),
                                        {"steal_resolution_s": TICK}))


def test_blocks_start_each_interval_carry_an_extra_tick_and_merge_where_they_touch():
    trace = steal_trace([0.05] * 4, [[0.06, 0.0, 0.05, 0.02]])
    got = [time for block in itertools.islice(blocks(trace, 0), 3) for time in block]
    # 60 ms charged to a 50 ms interval: 50 ms there, the tick carried into the next; a whole
    # interval and the start of the next are one block; the trace loops after 0.2 s
    assert got == pytest.approx([0.0, 0.06, 0.10, 0.17, 0.2, 0.26])


def test_a_cpu_taken_whole_is_taken_block_after_block():
    trace = steal_trace([0.05, 0.05], [[0.05, 0.05]])
    got = [time for block in itertools.islice(blocks(trace, 0), 3) for time in block]
    assert got == pytest.approx([0.0, 0.1, 0.1, 0.2, 0.2, 0.3])


# ----------------------------------------------------------- on a bare machine
def host(cpus, threads, linux, trace):
    inner = (make_policy("linux_fair", variant="eevdf", tunable_scaling="log", base_slice=7e-4,
                         place_lag=True, run_to_parity=True) if linux else make_policy("proportional_share"))
    machine = Machine(simpy.Environment(), Topology(1, cpus, threads, 0.6), policy_for(inner, trace),
                      quantum=0.004)
    return machine, HostSteal(machine, trace)


def taken_so_far(world, now):
    return world.used + (now - world.run_start if world.state == RUN else 0.0)


def trace_stolen_before(trace, cpu, until):
    """Stolen time of the trace's whole intervals of ``cpu`` ending by ``until``, the trace looped."""
    loops, into = divmod(until, trace.span_s)
    whole = loops * trace.total_s(cpu)
    done = trace.ends[cpu] <= into + 1e-12
    return whole + float(np.sum(trace.stolen[cpu][done]))


@st.composite
def hosts_and_traces(draw):
    cpus = draw(st.integers(1, 3))
    threads = draw(st.sampled_from([1, 2]))
    trace_cpus = draw(st.integers(1, cpus * threads))
    count = draw(st.integers(2, 12))
    intervals = draw(st.lists(st.sampled_from([0.02, 0.05, 0.1]), min_size=count, max_size=count))
    stolen = [[TICK * draw(st.integers(0, round(length / TICK))) for length in intervals]
              for _ in range(trace_cpus)]
    duration = draw(st.floats(0.05, 3.0))
    return cpus, threads, draw(st.booleans()), draw(st.integers(0, 6)), intervals, stolen, duration


@settings(max_examples=40, deadline=None)
@given(hosts_and_traces())
def test_the_time_taken_is_the_traces_stolen_time_within_one_sample(case):
    """Conservation: over a run of any length, each logical CPU loses what its trace CPU lost in the
    intervals that ended, plus at most the interval in progress, whatever else the host runs (and
    beside busy hyper-thread siblings)."""
    cpus, threads, linux, busy, intervals, stolen, duration = case
    trace = steal_trace(intervals, stolen)
    machine, steal = host(cpus, threads, linux, trace)
    add_busy_worlds(machine, busy, linux)
    steal.start()
    machine.env.run(until=duration)
    taken = {next(iter(cpu.world.affinity)): taken_so_far(cpu.world, duration) for cpu in steal.cpus}
    for lcpu in range(cpus * threads):
        source = lcpu % trace.cpus
        expected = trace_stolen_before(trace, source, duration)
        got = taken.get(lcpu, 0.0)
        assert expected - 1e-9 <= got <= expected + max(stolen[source]) + 1e-9


def test_a_block_holds_its_cpu_exactly_its_length_beside_a_busy_sibling():
    """One core of two threads at 0.6 when both are busy: the block on thread 0 does its 20 ms of
    work more slowly beside the busy thread 1, and still ends after 20 ms."""
    trace = steal_trace([0.05], [[0.02], [0.0]])
    machine, steal = host(1, 2, False, trace)
    add_busy_worlds(machine, 2, False)
    assert [next(iter(cpu.world.affinity)) for cpu in steal.cpus] == [0]  # thread 1 loses nothing
    world = steal.cpus[0].world
    runs = []
    world.on_start = lambda w: runs.append(machine.env.now)
    steal.start()
    machine.env.run(until=0.049)
    assert runs == [0.0] and world.state != RUN and world.used == pytest.approx(0.02, abs=1e-12)
    machine.env.run(until=0.1)
    assert runs == [0.0, 0.05] and world.used == pytest.approx(0.04, abs=1e-12)


def test_a_trace_with_more_cpus_than_the_host_is_refused():
    trace = steal_trace([0.05], [[0.0], [0.01], [0.0]])
    with pytest.raises(InputError, match="at most 2 CPUs"):
        host(2, 1, False, trace)


# ------------------------------------------------------------- in a scenario
def scenario_dir(tmp_path, config, stolen):
    """``config`` copied into ``tmp_path`` without its own steal trace, and a 2-CPU steal trace beside
    it, 20 intervals of 50 ms."""
    text = (CONFIGS / config).read_text()
    (tmp_path / "scenario.toml").write_text(
        "\n".join(line for line in text.splitlines() if not line.startswith("steal_trace")) + "\n")
    write_trace(tmp_path / "steal.csv", "steal", steal_columns([0.05] * 20, stolen),
                {"steal_resolution_s": TICK})
    return tmp_path / "scenario.toml"


EVERY_THIRD = [[TICK * 2 * (i % 3 == 0) for i in range(20)], [TICK * (i % 4 == 1) for i in range(20)]]


def summary_json(config, overrides=(), seed=1, duration=2.0, warmup=0.5):
    sim = Simulation(load_scenario(config, list(overrides)), seed)
    return sim, json.dumps(sim.run(duration, warmup).to_json(), sort_keys=True)


@pytest.mark.parametrize("config", ["validation/cpu_cgroups.toml", "voip-vsphere5/fig2.toml"])
def test_a_trace_without_steal_gives_byte_identical_results(tmp_path, config):
    path = scenario_dir(tmp_path, config, [[0.0] * 20, [0.0] * 20])
    bare_sim, bare = summary_json(path)
    zero_sim, zero = summary_json(path, ['host.steal_trace="steal.csv"'])
    assert zero == bare and zero_sim.engine == bare_sim.engine
    assert zero_sim.host_steal.worlds == [] and "host_steal" not in json.loads(zero)


def test_a_trace_with_steal_is_replayed_deterministically_and_reported(tmp_path):
    path = scenario_dir(tmp_path, "validation/cpu_cgroups.toml", EVERY_THIRD)
    overrides = ['host.steal_trace="steal.csv"']
    sim, first = summary_json(path, overrides)
    _, again = summary_json(path, overrides)
    _, bare = summary_json(path)
    assert first == again and first != bare
    steal = json.loads(first)["host_steal"]
    # from the warm-up's end (0.5 s) to 2 s, the 1 s trace looped: CPU 0 loses 20 ms at the start of
    # intervals 0, 3, ..., 18, i.e. at 0.60, 0.75, 0.90 s, then 7 times in the second loop; CPU 1
    # loses 10 ms in intervals 1, 5, ..., 17, at 0.65 and 0.85 s, then 5 times
    assert steal["lcpu_stolen_pct"][0] == pytest.approx(100 * 0.02 * 10 / 1.5, abs=1e-6)
    assert steal["lcpu_stolen_pct"][1] == pytest.approx(100 * 0.01 * 7 / 1.5, abs=1e-6)
    assert steal["stolen_pct"] == pytest.approx(sum(steal["lcpu_stolen_pct"]) / 2)


def test_the_closed_form_declines_a_host_with_steal(tmp_path):
    path = scenario_dir(tmp_path, "voip-vsphere5/fig2.toml", EVERY_THIRD)
    overrides = ["params.host.socket_contention=0", 'host.steal_trace="steal.csv"']
    loaded = load_scenario(path, overrides)
    assert Simulation(load_scenario(path, overrides[:1]), 1).engine == "uncontended"
    assert Simulation(loaded, 1).engine == "events"
    with pytest.raises(ValueError, match="no steal"):
        Simulation(loaded, 1, engine="uncontended")


def test_the_trace_path_is_taken_relative_to_the_scenario_file(tmp_path, monkeypatch):
    path = scenario_dir(tmp_path, "validation/cpu_cgroups.toml", EVERY_THIRD)
    monkeypatch.chdir(CONFIGS)  # anywhere but the scenario's folder
    loaded = load_scenario(path, ['host.steal_trace="steal.csv"'])
    assert loaded.steal.cpus == 2 and loaded.steal.total_s(0) == pytest.approx(0.14)


def test_a_missing_trace_is_named_by_its_key(tmp_path):
    path = scenario_dir(tmp_path, "validation/cpu_cgroups.toml", EVERY_THIRD)
    with pytest.raises(InputError) as caught:
        load_scenario(path, ['host.steal_trace="nowhere.csv"'])
    assert caught.value.where == "host.steal_trace" and "nowhere.csv is not a file" in caught.value.expected


def test_a_bad_trace_is_named_by_its_file_and_line(tmp_path):
    path = scenario_dir(tmp_path, "validation/cpu_cgroups.toml", EVERY_THIRD)
    (tmp_path / "bad.csv").write_text((tmp_path / "steal.csv").read_text().replace("0,0.05,0.1,0.0", "0,0.05,0.1,-1"))
    with pytest.raises(InputError) as caught:
        load_scenario(path, ['host.steal_trace="bad.csv"'])
    assert caught.value.source == str(tmp_path / "bad.csv") and caught.value.where.startswith("line ")


def test_a_trace_wider_than_the_host_is_refused_at_load(tmp_path):
    path = scenario_dir(tmp_path, "validation/cpu_cgroups.toml", EVERY_THIRD * 2)  # 4 CPUs, host has 2
    with pytest.raises(InputError, match="at most 2 CPUs") as caught:
        load_scenario(path, ['host.steal_trace="steal.csv"'])
    assert caught.value.where == "host.steal_trace"
