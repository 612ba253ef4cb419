"""Figures: error bars drawn from a statistic and its interval."""

import numpy as np

from vsim.experiments.figures import Curve, plot_sweep


def test_a_mean_a_rounding_error_outside_its_range_still_draws(tmp_path):
    # the mean of three equal values can differ from them in the last bit
    values = np.array([25.12, 25.12, 25.12]) + np.array([0, 1e-15, 2e-15])
    mean, low, high = float(values.mean()), float(values.min()) + 1e-14, float(values.max())
    written = plot_sweep(tmp_path / "fig", title="t", xlabel="x", ylabel="y",
                         curves=[Curve("c", [1], [(mean, (low, high))])], marks=[])
    assert all(path.is_file() for path in written)
