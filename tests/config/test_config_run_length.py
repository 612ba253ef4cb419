"""Tests of the shortest run worth simulating."""

from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from vsim.core.errors import InputError
from vsim.build.load import load_scenario
from vsim.config.run_length import check_run_length, has_media_servers, shortest_duration
from vsim.engines.simulation import default_warmup

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
        check_run_length("fig2.toml", "--duration", loaded, 1e-9, default_warmup(run, 1e-9))
    assert str(info.value).startswith("fig2.toml: --duration: expected a run of at least 0.04 s")
    check_run_length("fig2.toml", "--duration", loaded, 0.04, default_warmup(run, 0.04))


def test_a_run_without_media_servers_has_no_floor():
    loaded = load_scenario(EXP1)
    assert not has_media_servers(loaded.scenario) and has_media_servers(load_scenario(FIG2).scenario)
    check_run_length("exp1.toml", "--duration", loaded, 1e-9, 5e-10)
