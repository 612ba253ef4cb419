"""Tests of validate's report: JSON without non-finite numbers, the verdict sentence, the tables."""

import json
import math

from vsim.validate.validation_report import report_markdown, report_text, results_json, run_stamp, verdict_line


def doc(checks=(), skipped=None):
    entry = {"measured": 1.0, "simulated": 1.5, "error": 0.5, "rel_error": 0.5}
    metric = {"unit": "ms", "definition": "d", "samples": {"measured": 10, "simulated": 20},
              "p50": entry, "p90": entry, "p95": entry, "p99": entry,
              "mean": {**entry, "measured_interval": [0.9, 1.1], "simulated_interval": [1.4, 1.6]},
              "ks": {"statistic": 0.25, "pvalue": 0.01}, "wasserstein": 0.5}
    return {"scenario": "s", "config": "s.toml", "overrides": [], "measured": ["m.csv"], "kind": "packets",
            "simulated": {"replications": 2, "seeds": [1, 2], "duration_s": 20.0, "warmup_s": 5.0,
                          "engine": "events"},
            "metrics": {"jitter_ms": metric}, "skipped": skipped or {}, "tolerances": {},
            "checks": list(checks), "failed": sum(not c["passed"] for c in checks)}


def a_check(key, value, passed):
    return {"key": key, "metric": key.split(".")[0], "stat": key.split(".")[1], "value": value,
            "tolerance": 0.2, "bound": "<=", "passed": passed}


def test_non_finite_values_are_written_as_null():
    text = results_json(doc([a_check("loss_fraction.mean_rel", math.inf, False)]))
    assert json.loads(text)["checks"][0]["value"] is None and "Infinity" not in text


def test_the_verdict_counts_the_checks():
    assert verdict_line(doc()) .startswith("no tolerances stated")
    assert verdict_line(doc([a_check("jitter_ms.ks", 0.1, True)])) == "the one check within tolerance"
    failing = doc([a_check("jitter_ms.ks", 0.3, False), a_check("jitter_ms.p99", 0.1, True)])
    assert verdict_line(failing) == "1 of 2 checks outside tolerance"


def test_the_tables_show_every_metric_check_and_skipped_metric():
    d = doc([a_check("jitter_ms.ks", 0.3, False)], skipped={"interarrival_ms": "no measured samples"})
    text = report_text(d)
    assert run_stamp(d) == "2 x 20 s (5 s warm-up), seeds 1-2"
    assert "1.000/1.500 (+50.0%)" in text and "0.250 (p 0.01)" in text
    assert "interarrival_ms: not compared (no measured samples)" in text
    assert text.rstrip().endswith("1 of 1 checks outside tolerance")
    markdown = report_markdown(d, [])
    assert "| jitter_ms.ks | 0.3000 | <= 0.2 | FAIL |" in markdown


def test_a_scenario_named_as_a_validation_is_not_titled_validation_twice():
    named = {**doc(), "scenario": "validation: vsim probe net"}
    assert report_markdown(named, []).splitlines()[0] == "# validation: vsim probe net"
    assert report_markdown(doc(), []).splitlines()[0] == "# Validation: s"


def test_a_small_quantile_is_not_printed_as_zero_beside_its_relative_error():
    d = doc()
    d["metrics"]["jitter_ms"]["p50"] = {"measured": 1 / 3000, "simulated": 0.0, "error": -1 / 3000,
                                        "rel_error": -1.0}
    assert "0.000333/0.000 (-100.0%)" in report_markdown(d, [])
    d["metrics"]["jitter_ms"]["p50"] = {"measured": 0.0, "simulated": 0.0, "error": 0.0, "rel_error": None}
    assert "0.000/0.000 (n/a)" in report_markdown(d, [])


def test_few_simulated_replications_are_said_to_give_narrow_intervals_and_one_is_batched():
    assert "note: with 2 replications the intervals are narrower than 95 %" in report_text(doc())
    assert "Note: the simulated means' intervals: with 2 replications" in report_markdown(doc(), [])
    one = doc()
    one["simulated"]["replications"] = 1  # cut into batches: no caveat
    assert "narrower" not in report_text(one) and "narrower" not in report_markdown(one, [])
