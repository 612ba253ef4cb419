"""Tests of a run's length as every command resolves it, and of the shortest run worth simulating."""

from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from vsim.core.errors import InputError
from vsim.build.load import load_scenario
from vsim.config.run_length import QUICK, RunPlan, has_media_servers, shortest_duration
from vsim.config.schema_sections import RunSection

ROOT = Path(__file__).resolve().parents[2]
FIG2 = ROOT / "configs" / "voip-vsphere5" / "fig2.toml"
EXP1 = ROOT / "configs" / "netioc-vsphere6" / "exp1.toml"


@given(st.floats(1e-4, 1.0), st.floats(0.0, 10.0))
def test_the_shortest_duration_measures_exactly_one_interval(interval, warmup_setting):
    """At the shortest duration the window after the (halved) warm-up is one interval; a
    hundredth less holds less."""
    shortest = shortest_duration(interval, warmup_setting)
    window = shortest - min(warmup_setting, shortest / 2)
    assert window == pytest.approx(interval, rel=1e-9)
    less = shortest * 0.99
    assert less - min(warmup_setting, less / 2) < interval


def test_a_voice_run_shorter_than_one_packet_interval_after_warm_up_is_refused():
    loaded = load_scenario(FIG2)
    run = loaded.scenario.run
    with pytest.raises(InputError) as info:
        RunPlan(duration=1e-9).resolve(run).check("fig2.toml", loaded)
    assert str(info.value).startswith("fig2.toml: --duration: expected a run of at least 0.04 s")
    RunPlan(duration=0.04).resolve(run).check("fig2.toml", loaded)


def test_a_too_short_run_blames_the_option_that_shortened_it_and_says_where_the_warm_up_came_from():
    loaded = load_scenario(FIG2, ["run.duration=0.03", "run.warmup=0.0125"])
    with pytest.raises(InputError) as info:
        RunPlan().resolve(loaded.scenario.run).check("fig2.toml", loaded)
    assert info.value.where == "run.duration"
    assert "after the 0.0125 s warm-up (run.warmup 0.0125 s, at most half the run)" in str(info.value)
    with pytest.raises(InputError) as info:
        RunPlan(duration=0.02, warmup=0.01, shorten_only=True, option="--quick").resolve(
            loaded.scenario.run).check("fig2.toml", loaded)
    assert info.value.where == "--quick"
    assert "after the 0.01 s warm-up (--quick 0.01 s, at most half the run)" in str(info.value)


def test_a_run_without_media_servers_has_no_floor():
    loaded = load_scenario(EXP1)
    assert not has_media_servers(loaded.scenario) and has_media_servers(load_scenario(FIG2).scenario)
    RunPlan(duration=1e-9).resolve(loaded.scenario.run).check("exp1.toml", loaded)


@given(config_duration=st.floats(0.5, 1000.0), config_warmup=st.floats(0.0, 100.0),
       plan_duration=st.floats(0.5, 1000.0), plan_warmup=st.floats(0.0, 100.0))
def test_a_shortened_plan_always_leaves_half_its_run_to_measure(config_duration, config_warmup,
                                                               plan_duration, plan_warmup):
    """``--quick`` on a config shorter than its warm-up (netioc-vsphere6's 2 s Fig 6) measured nothing."""
    run = RunSection(duration=config_duration, warmup=config_warmup, replications=5)
    length = RunPlan(plan_duration, plan_warmup, 3, shorten_only=True, option="--quick").resolve(run)
    assert length.duration == min(plan_duration, config_duration)
    assert length.duration_key == ("--quick" if plan_duration < config_duration else "run.duration")
    assert 0 <= length.warmup <= length.duration / 2
    assert length.warmup <= plan_warmup and length.warmup <= config_warmup
    assert length.replications == 3


@given(config_duration=st.floats(0.5, 1000.0), config_warmup=st.floats(0.0, 100.0),
       plan_duration=st.floats(0.5, 1e6))
def test_a_plan_duration_is_the_run_length_longer_or_shorter_than_the_configs(config_duration, config_warmup,
                                                                            plan_duration):
    """``--duration 40`` on a 20 s config ran 20 s: a longer run was silently cut to the config's."""
    run = RunSection(duration=config_duration, warmup=config_warmup, replications=5)
    length = RunPlan(plan_duration).resolve(run)
    assert (length.duration, length.duration_key) == (plan_duration, "--duration")
    assert length.warmup == min(config_warmup, plan_duration / 2)
    assert (length.warmup_setting, length.warmup_key) == (config_warmup, "run.warmup")
    assert length.replications == 5


def test_an_empty_plan_keeps_the_configs_run_table():
    run = RunSection(duration=30.0, warmup=2.0, replications=4)
    length = RunPlan().resolve(run)
    assert (length.duration, length.warmup, length.replications) == (30.0, 2.0, 4)
    assert (length.duration_key, length.warmup_key) == ("run.duration", "run.warmup")


def test_quick_runs_keep_a_short_configs_length_and_warm_up():
    """Quick runs of netioc-vsphere6's 2 s Fig 6 (0.2 s warm-up) warmed up for a whole second."""
    run = load_scenario(ROOT / "configs" / "netioc-vsphere6" / "fig6.toml").scenario.run
    assert run.duration < 2 * QUICK.warmup and run.warmup < QUICK.warmup
    length = QUICK.resolve(run)
    assert (length.duration, length.warmup) == (run.duration, run.warmup)
