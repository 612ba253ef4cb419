"""Capacity search: bisection on made-up monotone metrics, requirements, the varied key's range,
and the command line on short Fig 3 runs."""

import json
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from cli_run import one_line_error, vsim
from short_fig3 import fig3
from vsim.core.errors import InputError
from vsim.sweep.capacity import (Check, Probe, Requirement, VariedKey, bisect, check_requirements,
                                 parse_requirement, varied_key)

FIG3 = Path(__file__).resolve().parents[2] / "configs" / "voip-vsphere5" / "fig3.toml"
SHORT = ("--duration", "1", "--replications", "2", "--quiet")


def fake(metric, requirements):
    """An ``evaluate`` for ``bisect``: each value's probe, the metric ``metric(x)`` in every one of
    three replications; the values probed are kept in ``evaluate.probed``."""
    def evaluate(xs):
        evaluate.probed += list(xs)
        return [Probe(x, (1, 2, 3), (), tuple(Check.of(r, [metric(x)] * 3) for r in requirements)) for x in xs]
    evaluate.probed = []
    return evaluate


def integer_key(low, high):
    return VariedKey("vm.instances", True, low, high, 1)


def test_bisection_finds_the_threshold_of_a_monotone_metric():
    search = bisect(integer_key(1, 100), fake(lambda x: 2 * x, [Requirement("m", "<=", 74.5)]))
    assert search.status == "found" and search.capacity == 37 and search.bracket == (37, 38)
    assert len(search.probes) <= integer_key(1, 100).most_probes()


def test_a_number_key_is_bisected_to_its_resolution():
    key = VariedKey("params.host.ht_rate", False, 0.0, 1.0, 0.01)
    search = bisect(key, fake(lambda x: x, [Requirement("m", "<", 0.4)]))
    good, bad = search.bracket
    assert good < 0.4 <= bad and bad - good <= 0.01


def test_a_range_without_an_answer_says_which_end_is_wrong():
    requirement = [Requirement("m", "<=", 5)]
    below = bisect(integer_key(10, 20), fake(float, requirement))
    assert below.status == "below_range" and below.capacity is None and len(below.probes) == 2
    above = bisect(integer_key(1, 4), fake(float, requirement))
    assert above.status == "above_range" and above.capacity == 4


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 30), st.integers(2, 200), st.floats(0.1, 5), st.floats(0, 1), st.floats(0, 10))
def test_a_stricter_requirement_never_gives_a_higher_capacity(low, span, slope, stricter, bound):
    key = integer_key(low, low + span)
    loose = bisect(key, fake(lambda x: slope * x, [Requirement("m", "<=", bound)]))
    strict = bisect(key, fake(lambda x: slope * x, [Requirement("m", "<=", bound - stricter)]))
    both = bisect(key, fake(lambda x: slope * x, [Requirement("m", "<=", bound), Requirement("m", "<=", bound - stricter)]))
    rank = {"below_range": -1}
    assert rank.get(strict.status, strict.capacity) <= rank.get(loose.status, loose.capacity)
    assert (both.status, both.capacity) == (strict.status, strict.capacity)


@pytest.mark.parametrize("text", ["jitter_p99_ms=2", "jitter_p99_ms<=", "<=2", "jitter_p99_ms<=nan",
                                  "jitter_p99_ms<=2ms", "jitter p99<=2"])
def test_a_malformed_requirement_is_refused(text):
    with pytest.raises(InputError, match="expected METRIC<=VALUE"):
        parse_requirement(text)


def test_a_requirement_parses_each_operator():
    assert [parse_requirement(f"loss_pct{op}1.5").met(1.5) for op in ("<=", ">=", "<", ">")] == [
        True, True, False, False]


def test_an_unknown_metric_is_refused_with_a_hint():
    with pytest.raises(InputError, match="did you mean 'jitter_p99_ms'"):
        check_requirements([parse_requirement("jitter_ms.p99<=2")], fig3().scenario)


@pytest.mark.parametrize("key, low, high, message", [
    ("vm.instance", 1, 4, "did you mean 'vm.instances'"),
    ("host.hyperthreading", 1, 4, "expected a number key"),
    ("vm.instances", 4, 4, "expected a value below --high"),
    ("vm.instances", 1.5, 4, "expected a whole number"),
])
def test_a_bad_key_or_range_is_refused(key, low, high, message):
    with pytest.raises(InputError, match=message):
        varied_key("fig3.toml", fig3(), key, low, high, None)


def test_the_range_defaults_to_the_configs_sweep_of_the_key():
    assert (varied_key("fig3.toml", fig3(), "vm.instances", None, None, None)) == VariedKey(
        "vm.instances", True, 1, 12, 1)
    with pytest.raises(InputError, match="no \\[sweep\\] of vm.vcpus"):
        varied_key("fig3.toml", fig3(), "vm.vcpus", None, None, None)


def test_the_command_finds_a_capacity_reproducibly(capsys, tmp_path):
    args = ("capacity", FIG3, "--vary", "vm.instances", "--require", "jitter_p99_ms<=1", "--high", "12", *SHORT)
    code, out, err = vsim(capsys, *args, "--json", "-")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["result"]["status"] == "found" and doc["seeds"] == [1, 2]
    good, bad = doc["result"]["bracket"]
    assert bad == good + 1 and doc["result"]["capacity"] == good
    assert [probe["x"] for probe in doc["probes"]][:2] == [1, 12]
    assert "capacity: vm.instances =" in err
    again = vsim(capsys, *args, "--json", "-", "--jobs", "2")
    assert again[1] == out
    code, _, err = vsim(capsys, *args, "--out", tmp_path / "cap")
    assert code == 0, err
    assert sorted(path.name for path in (tmp_path / "cap").iterdir()) == [
        "fig3_capacity_jitter_p99_ms.png", "fig3_capacity_jitter_p99_ms.svg", "results.json", "summary.md"]
    assert json.loads((tmp_path / "cap" / "results.json").read_text())["sha256"]


def test_a_low_end_that_fails_is_a_verdict_with_exit_1_and_the_json_written(capsys, tmp_path):
    out = tmp_path / "cap.json"
    code, _, err = vsim(capsys, "capacity", FIG3, "--vary", "vm.instances", "--require", "jitter_p99_ms<=0.1",
                        "--low", "1", "--high", "4", *SHORT, "--json", out)
    assert code == 1
    assert err.splitlines()[-1].startswith("vsim: capacity: no capacity in range: vm.instances = 1 (--low) "
                                           "already fails (jitter_p99_ms mean")
    assert json.loads(out.read_text())["result"]["status"] == "below_range"


@pytest.mark.parametrize("args, message", [
    (("--vary", "vm.instances", "--require", "jitter_ms.p99<=2"), "did you mean 'jitter_p99_ms'"),
    (("--vary", "vm.instances", "--require", "jitter_p99_ms=2"), "expected METRIC<=VALUE"),
    (("--vary", "vm.instances", "--require", "jitter_p99_ms<=2", "--low", "5", "--high", "3"),
     "expected a value below --high"),
    (("--vary", "vm.instancez", "--require", "jitter_p99_ms<=2"), "did you mean 'vm.instances'"),
    (("--vary", "vm.instances", "--require", "throughput_mbps.vm<=2"), "expected a metric this scenario reports"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, args, message):
    code, _, err = vsim(capsys, "capacity", FIG3, *args, *SHORT)
    assert code == 2
    assert message in one_line_error(err)


def test_a_high_end_that_passes_is_a_verdict_and_the_next_out_removes_the_stale_figure(capsys, tmp_path):
    args = ("capacity", FIG3, "--vary", "vm.instances", "--low", "1", "--high", "2", *SHORT, "--out", tmp_path)
    code, _, err = vsim(capsys, *args, "--require", "jitter_p99_ms<=50")
    assert code == 1
    assert err.splitlines()[-1].startswith("vsim: capacity: capacity above range: vm.instances = 2 (--high) "
                                           "still meets every requirement")
    assert (tmp_path / "fig3_capacity_jitter_p99_ms.png").exists()
    code, _, err = vsim(capsys, *args, "--require", "host_cpu_pct<=99")
    assert code == 1, err
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "fig3_capacity_host_cpu_pct.png", "fig3_capacity_host_cpu_pct.svg", "results.json", "summary.md"]


def test_progress_names_each_run_and_each_probes_verdict(capsys):
    code, _, err = vsim(capsys, "capacity", FIG3, "--vary", "vm.instances", "--require", "jitter_p99_ms<=50",
                        "--low", "1", "--high", "2", "--duration", "1", "--replications", "1")
    assert code == 1
    lines = err.splitlines()
    assert lines[0] == "[0/2] 2 runs, 1 at a time: a line as each ends"
    assert lines[3].startswith("probe vm.instances=1: pass (jitter_p99_ms mean ")
    assert lines[3].endswith(" <= 50, 1/1 runs met it)")
