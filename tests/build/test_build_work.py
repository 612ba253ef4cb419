"""Work a command would take is bounded before any of it starts: each refusal names the key
that makes it too large, where that key's value came from, and the limit."""

from pathlib import Path

import pytest

from vsim.config.schema_cluster import is_cluster_file
from vsim.config.toml_io import load_toml

from cli_run import one_line_error, vsim
from vsim import cli
from vsim.experiments import reproduce as _reproduce  # noqa: F401
from vsim.sweep import capacity as _capacity  # noqa: F401
from vsim.validate import validation as _validation  # noqa: F401
# (loaded before any test patches what they import: each command loads its stages when it runs)
from vsim.build import host
from vsim.build.load import load_scenario
from vsim.build.memory import check_memory
from vsim.build.work import MAX_EVENTS, check_work, command_events
from vsim.core.errors import InputError
from vsim.sweep.executor import point_runs

REPO = Path(__file__).resolve().parents[2]
FIG3 = REPO / "configs" / "voip-vsphere5" / "fig3.toml"
SHIPPED = sorted(path for path in (REPO / "configs").rglob("*.toml")
                 if not is_cluster_file(load_toml(path)))  # cluster files run by vsim cluster


@pytest.fixture
def nothing_runs(monkeypatch):
    """Fail at once, rather than run for hours, where a command gets as far as making its
    replications or building a host."""
    def started(*args, **kwargs):
        raise AssertionError("the command started its runs")
    monkeypatch.setattr("vsim.sweep.executor.sweep_tasks", started)
    monkeypatch.setattr(host.Host, "__init__", started)


@pytest.mark.parametrize("args, where", [
    (["sweep", FIG3, "--replications", "1000000000000"], "--replications"),
    (["run", FIG3, "--set", "host.background_tasks=1000000000"],
     "--set host.background_tasks=1000000000: host.background_tasks"),
    (["run", FIG3, "--set", "vm.background_interval=1e-12"],
     "--set vm.background_interval=1e-12: vm.background_interval"),
    (["run", FIG3, "--set", "vm.streams_per_instance=1000000000"],
     "--set vm.streams_per_instance=1000000000: vm.streams_per_instance"),
    (["run", FIG3, "--set", "vm.streams_per_instance=1000000000", "--duration", "300"],
     "--set vm.streams_per_instance=1000000000: vm.streams_per_instance"),
    (["run", FIG3, "--set", "host.background_tasks=100000000", "--duration", "1"],
     "--set host.background_tasks=100000000: host.background_tasks"),
    (["sweep", FIG3, "--set", "vm.background_interval=1e-7", "--duration", "5000", "--replications", "1"],
     "--set vm.background_interval=1e-7: vm.background_interval"),
])
def test_work_that_cannot_finish_or_fit_is_refused_before_it_starts(capsys, nothing_runs, args, where):
    code, _, err = vsim(capsys, *args)
    line = one_line_error(err)
    assert code == 2
    assert line.startswith(f"vsim: error: {where}: ") or f": {where}: " in line, line
    assert "expected" in line


def test_too_many_events_name_their_factors_where_they_came_from_and_the_limit():
    loaded = load_scenario(FIG3, ["vm.background_interval=1e-12"], sweep_points=False)
    with pytest.raises(InputError) as error:
        check_work([(str(FIG3), loaded, 300.0)], 5, duration_key="run.duration",
                   replications_key="run.replications")
    message = str(error.value)
    assert error.value.where == "vm.background_interval"
    assert f"{MAX_EVENTS:.0e}" in message
    assert "vm.background_interval = 1e-12 s (--set)" in message
    assert "run.duration = 300 s (the config)" in message
    assert "run.replications = 5 (the config)" in message


def test_a_long_run_is_blamed_on_its_length_and_the_flag_that_set_it():
    loaded = load_scenario(FIG3, [], sweep_points=False)
    with pytest.raises(InputError) as error:
        check_work([(str(FIG3), loaded, 1e12)], 1, duration_key="--duration")
    assert error.value.where == "--duration"
    assert "--duration = 1e+12 s (the command line)" in str(error.value)


def test_a_default_value_says_so():
    loaded = load_scenario(FIG3, ["vm.background_interval=1e-9", "vm.instances=12"], sweep_points=False)
    with pytest.raises(InputError) as error:
        check_work([(str(FIG3), loaded, 300.0)], 1)
    assert "vm.background_interval = 1e-09 s (--set)" in str(error.value)
    loaded = load_scenario(FIG3.with_name("fig6.toml"), ["host.background_tasks=100000000"],
                           sweep_points=False)
    with pytest.raises(InputError) as error:
        check_work([(str(FIG3), loaded, 600.0)], 1)
    assert error.value.where == "host.background_tasks"


def test_the_events_of_a_command_add_up_over_points_and_replications():
    loaded = load_scenario(FIG3)
    runs = point_runs(FIG3, loaded, 10.0)
    assert command_events(runs, 2) == pytest.approx(2 * command_events(runs, 1))
    assert command_events(runs, 1) > command_events(runs[:1], 1)


def own_length_runs(config):
    """(every point of ``config`` at its own length, its replications): what ``vsim sweep``
    runs, and ``vsim reproduce`` at paper length."""
    loaded = load_scenario(config)
    run = loaded.scenario.run
    runs = (point_runs(config, loaded, run.duration) if loaded.scenario.sweep is not None
            else [(str(config), loaded, run.duration)])
    return runs, run.replications


@pytest.mark.parametrize("config", SHIPPED, ids=[str(path.relative_to(REPO)) for path in SHIPPED])
def test_every_shipped_config_fits_at_its_own_length(config):
    """Every point of every shipped config, its own duration and replications, within a tenth
    of the event limit and 8 GiB."""
    runs, replications = own_length_runs(config)
    check_work(runs, replications, available=8 * 1024 ** 3)
    check_memory(runs, jobs=1, available=8 * 1024 ** 3)
    assert command_events(runs, replications) * 10 < MAX_EVENTS


def test_all_shipped_configs_at_once_fit():
    """``vsim reproduce`` of every study checks all its configs' runs as one command."""
    planned = [own_length_runs(config) for config in SHIPPED]
    runs = [run for config_runs, _ in planned for run in config_runs]
    counts = [replications for config_runs, replications in planned for _ in config_runs]
    check_work(runs, counts, available=8 * 1024 ** 3)
    assert command_events(runs, counts) * 10 < MAX_EVENTS
