"""Tests of validate's figures: which are drawn, and that they are the same bytes every time."""

import numpy as np

from vsim.validate.trace_metrics import Samples
from vsim.validate.validation import Validation
from vsim.validate.validation_figures import plot_cdf, write_figures


def timed(rng, loc):
    return Samples(rng.normal(loc, 0.1, 500), np.arange(500) * 0.02)


def validation():
    rng = np.random.default_rng(1)
    doc = {"scenario": "s", "measured": ["m.csv"],
           "simulated": {"replications": 2, "seeds": [1, 2], "duration_s": 10.0, "warmup_s": 1.0},
           "metrics": {"jitter_ms": {}, "loss_fraction": {}}}
    return Validation(doc, {"jitter_ms": [timed(rng, 0.5)], "loss_fraction": [Samples(np.zeros(4), None)]},
                      {"jitter_ms": [timed(rng, 0.6), timed(rng, 0.55)],
                       "loss_fraction": [Samples(np.zeros(4), None)] * 2})


def test_a_cdf_per_metric_and_a_time_series_per_timed_metric(tmp_path):
    written = write_figures(tmp_path, validation())
    assert sorted(path.name for path in written) == [
        "cdf_jitter_ms.png", "cdf_jitter_ms.svg", "cdf_loss_fraction.png", "cdf_loss_fraction.svg",
        "time_jitter_ms.png", "time_jitter_ms.svg"]
    assert "Empirical CDF of jitter_ms" in (tmp_path / "cdf_jitter_ms.svg").read_text()


def test_figures_are_byte_identical_run_to_run(tmp_path):
    first = write_figures(tmp_path / "a", validation())
    second = write_figures(tmp_path / "b", validation())
    assert [path.read_bytes() for path in first] == [path.read_bytes() for path in second]


def test_a_long_tailed_metric_gets_a_log_axis(tmp_path):
    rng = np.random.default_rng(2)
    lognormal = [Samples(rng.lognormal(-1.6, 1.0, 800), None) for _ in range(2)]
    body = validation()
    plot_cdf(tmp_path / "tail", "lateness_ms", lognormal[:1], lognormal[1:], body.doc)
    plot_cdf(tmp_path / "body", "jitter_ms", body.measured["jitter_ms"], body.simulated["jitter_ms"], body.doc)
    assert "mathdefault{10^" in (tmp_path / "tail.svg").read_text()
    assert "mathdefault{10^" not in (tmp_path / "body.svg").read_text()
