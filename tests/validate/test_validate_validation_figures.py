"""Tests of validate's figures: which are drawn, and that they are the same bytes every time."""

import numpy as np

from vsim.traces.trace_metrics import Samples
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
    # axes in words: "jitter (ms)", not the metric's key with its unit twice
    assert "jitter (ms)" in (tmp_path / "cdf_jitter_ms.svg").read_text()
    assert "jitter_ms (ms)" not in (tmp_path / "time_jitter_ms.svg").read_text()
    assert "loss fraction" in (tmp_path / "cdf_loss_fraction.svg").read_text()


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


def test_an_empirical_cdf_is_a_staircase_through_every_sample():
    from vsim.validate.validation_figures import _cdf
    xs, ys = _cdf(np.array([3.0, 1.0, 2.0, 2.0]))
    assert list(xs) == [1.0, 1.0, 2.0, 2.0, 3.0] and list(ys) == [0.0, 0.25, 0.5, 0.75, 1.0]
    xs, ys = _cdf(np.arange(10_000.0))
    assert len(xs) <= 513 and xs[-1] == 9999.0 and ys[-1] == 1.0 and np.all(np.diff(ys) > 0)
    xs, ys = _cdf(np.array([0.0, 0.0, 0.0, 0.5]))  # often 0: the rise at 0 is drawn from 0
    assert (xs[0], ys[0]) == (0.0, 0.0) and ys[3] == 0.75


def test_cdfs_are_drawn_as_steps(tmp_path, monkeypatch):
    import vsim.validate.validation_figures as figures
    steps = []
    monkeypatch.setattr(figures, "write_figure", lambda fig, ax, *a, **kw: steps.extend(
        line.get_drawstyle() for line in ax.get_lines()) or [])
    made = validation()
    plot_cdf(tmp_path / "cdf", "jitter_ms", made.measured["jitter_ms"], made.simulated["jitter_ms"], made.doc)
    assert steps and set(steps) == {"steps-post"}
