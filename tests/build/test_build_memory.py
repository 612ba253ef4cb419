"""The memory estimate bounds measured runs, and runs that cannot fit are refused up front."""

import tomllib
from pathlib import Path

import pytest
from hypothesis import assume, given, strategies as st

from benchmark_scripts import load_benchmark
from vsim.core.errors import InputError
from vsim.build.load import load_scenario
from vsim.build.memory import MIB, available_bytes, check_memory, estimate_bytes
from vsim.sweep.executor import point_runs

CONFIG = Path(__file__).resolve().parents[2] / "configs" / "voip-vsphere5" / "fig3.toml"


def scenario(instances=12, vcpus=4):
    return load_scenario(CONFIG, [f"vm.instances={instances}", f"vm.vcpus={vcpus}"])


@pytest.mark.parametrize("run", load_benchmark("bench_memory").SHORT)
def test_the_estimate_bounds_the_measured_peak(run):
    peak, estimate = load_benchmark("bench_memory").measure(*run)
    # the interpreter with numpy and simpy alone holds some 40 MiB: a smaller peak was not measured
    assert 30 * MIB < peak <= estimate


@given(instances=st.integers(1, 500), vcpus=st.integers(1, 8), duration=st.floats(1, 1000))
def test_the_estimate_grows_with_vms_vcpus_and_duration(instances, vcpus, duration):
    """On a host where worlds share cores (the closed form's arrays count only where they do not)."""
    assume(instances * (vcpus + 1) > 8)
    loaded = scenario(instances, vcpus)
    base = estimate_bytes(loaded, duration)
    assert estimate_bytes(scenario(instances + 1, vcpus), duration) > base
    assert estimate_bytes(loaded, duration * 2) > base
    if vcpus < 8:
        assert estimate_bytes(scenario(instances, vcpus + 1), duration) > base


def test_available_memory_is_read_from_meminfo(tmp_path):
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       32000000 kB\nMemAvailable:   2048 kB\n")
    assert available_bytes(meminfo) == 2048 * 1024
    meminfo.write_text("MemTotal:       32000000 kB\n")
    assert available_bytes(meminfo) is None
    assert available_bytes(tmp_path / "missing") is None


def test_a_run_that_does_not_fit_is_refused_in_one_line():
    loaded = scenario(12)
    need = estimate_bytes(loaded, 300.0)
    check_memory([("fig3.toml", loaded, 300.0)], jobs=2, available=2 * need)
    with pytest.raises(InputError) as error:
        check_memory([("fig3.toml", scenario(1), 300.0), ("fig3.toml", loaded, 300.0)], jobs=2,
                     available=need - 1)
    message = str(error.value)
    assert message.startswith("fig3.toml: vm.instances: a run of 12 VMs with 48 vCPUs in all for 300 s "
                              f"needs about {need / MIB:.0f} MiB each, x 2 jobs")
    assert "MemAvailable" in message and "\n" not in message


def test_jobs_are_blamed_when_one_run_would_fit():
    """``--jobs 1000`` was blamed on vm.instances."""
    loaded = scenario(12)
    need = estimate_bytes(loaded, 300.0)
    with pytest.raises(InputError) as error:
        check_memory([("fig3.toml", loaded, 300.0)], jobs=4, available=2.5 * need)
    assert str(error.value).startswith("--jobs: a run of 12 VMs")
    assert str(error.value).endswith("expected at most 2 jobs")


def test_the_runs_length_is_blamed_when_most_memory_grows_with_it():
    """``--duration 1e9`` was blamed on vm.instances."""
    loaded = scenario(1)
    with pytest.raises(InputError) as error:
        check_memory([("fig3.toml", loaded, 1e9)], jobs=1, available=estimate_bytes(loaded, 1e5),
                     duration_key="--duration")
    message = str(error.value)
    assert message.startswith("fig3.toml: --duration: a run of 1 VM with 4 vCPUs in all for 1e+09 s")
    assert message.endswith("expected a run of at most 1e+05 s, or fewer VMs")


def test_the_group_holding_most_vcpus_is_the_key_blamed():
    loaded = load_scenario(CONFIG.with_name("fig6.toml"), ["group.flood.count=100000"])
    with pytest.raises(InputError) as error:
        check_memory([("fig6.toml", loaded, 60.0)], jobs=1, available=1)
    assert str(error.value).startswith("fig6.toml: group.flood.count: a run of 100001 VMs with ")


def test_a_sweeps_point_is_blamed_when_its_value_is_the_key_to_change():
    loaded = scenario(1)
    big = scenario(12)
    runs = [("fig3.toml", loaded, 300.0, (("sweep.values[0]", "vm.instances", 1),)),
            ("fig3.toml", big, 300.0, (("sweep.values[1]", "vm.instances", 12),))]
    with pytest.raises(InputError) as error:
        check_memory(runs, jobs=1, available=estimate_bytes(big, 300.0) / 100)
    assert str(error.value).startswith("fig3.toml: sweep.values[1]: at vm.instances = 12, a run of 12 VMs")
    with pytest.raises(InputError) as error:  # swept along another key: the VM count is blamed
        check_memory([("fig3.toml", big, 300.0, (("sweep.values[0]", "vm.vcpus", 4),))], jobs=1, available=1)
    assert str(error.value).startswith("fig3.toml: vm.instances: a run of 12 VMs")


def test_the_streams_are_blamed_when_their_arrays_make_the_run_too_large():
    """``--set vm.streams_per_instance=1000000000`` was blamed on the run's length."""
    loaded = load_scenario(CONFIG, ["vm.streams_per_instance=1000000000"], sweep_points=False)
    with pytest.raises(InputError) as error:
        check_memory([("fig3.toml", loaded, 300.0)], jobs=1, available=8 * 1024 ** 3,
                     duration_key="--duration")
    assert error.value.where == "vm.streams_per_instance"
    message = str(error.value)
    assert "vm.streams_per_instance = 1e+09 (--set)" in message
    assert "--duration = 300 s (the command line)" in message


def test_host_background_tasks_count_and_are_blamed():
    loaded = load_scenario(CONFIG, ["host.background_tasks=100000000"], sweep_points=False)
    assert estimate_bytes(loaded, 1.0) > 100_000_000 * 1024
    with pytest.raises(InputError) as error:
        check_memory([("fig3.toml", loaded, 1.0)], jobs=1, available=8 * 1024 ** 3)
    assert error.value.where == "host.background_tasks"
    assert "host.background_tasks = 1e+08 (--set)" in str(error.value)


def test_a_sip_ramp_is_bounded_at_its_peak_rate():
    """A SIPp ramp's calls are counted at the rate it ramps to, not the rate it starts at."""
    from types import SimpleNamespace
    from vsim.build.memory import sip_call_rate

    def group(**params):
        return SimpleNamespace(traffic=SimpleNamespace(params=params))
    assert sip_call_rate(group(rate=10.0)) == 10.0
    assert sip_call_rate(group(rate=10.0, rate_period=0.5)) == 20.0
    assert sip_call_rate(group(rate=10.0, rate_increase=5.0, rate_max=250.0)) == 250.0


COMMITTED = sorted(path for path in (Path(__file__).resolve().parents[2] / "configs").rglob("*.toml")
                   if not isinstance(tomllib.loads(path.read_text()).get("host"), list))
"""Every committed single-host scenario (a cluster file's [[host]] tables run as fluid flows)."""


@pytest.mark.parametrize("config", COMMITTED, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_every_committed_scenario_fits_in_a_gibibyte(config):
    """Each point of each committed config, at its own length, within 1 GiB by the estimate, which
    bounds the measured peak (above): what a run of the studies or a template asks of a laptop."""
    loaded = load_scenario(config)
    if loaded.scenario.sweep is None:
        points = [loaded]
    else:
        points = [run[1] for run in point_runs(config, loaded, loaded.scenario.run.duration)]
    worst = max(estimate_bytes(point, point.scenario.run.duration) for point in points)
    assert worst <= 1024 * MIB, f"{config.name}: {worst / MIB:.0f} MiB"
