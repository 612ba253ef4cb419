"""Figures: error bars drawn from a statistic and its interval."""

import numpy as np

from vsim.results.plotting import Curve, Quantity, plot_grid, plot_sweep


def test_a_mean_a_rounding_error_outside_its_range_still_draws(tmp_path):
    # the mean of three equal values can differ from them in the last bit
    values = np.array([25.12, 25.12, 25.12]) + np.array([0, 1e-15, 2e-15])
    mean, low, high = float(values.mean()), float(values.min()) + 1e-14, float(values.max())
    written = plot_sweep(tmp_path / "fig", title="t", xlabel="x", ylabel="y",
                         curves=[Curve("c", [1], [(mean, (low, high))])], marks=[])
    assert all(path.is_file() for path in written)


def drawn_axes(monkeypatch):
    """The axes every later plot_sweep draws, kept as they are written."""
    import vsim.results.plotting as figures
    kept, write = [], figures.write_figure
    monkeypatch.setattr(figures, "write_figure", lambda fig, ax, *a, **kw: kept.append(ax) or write(fig, ax, *a, **kw))
    return kept


def test_a_series_flat_at_its_top_leaves_room_above_it_and_starts_at_zero(tmp_path, monkeypatch):
    kept = drawn_axes(monkeypatch)
    flat = Curve("c", [1, 2, 3], [(814.0, (814.0, 814.0))] + [(965.0, (965.0, 965.0))] * 2,
                 [[814.0], [965.0], [965.0]])
    plot_sweep(tmp_path / "fig", title="t", xlabel="x", ylabel="y", curves=[flat], marks=[])
    bottom, top = kept[0].get_ylim()
    assert bottom == 0 and top >= 965.0 * 1.05


def test_whole_number_sweeps_get_whole_number_ticks(tmp_path, monkeypatch):
    kept = drawn_axes(monkeypatch)
    curve = Curve("c", [1, 2, 3], [(1.0, (0.9, 1.1))] * 3)
    plot_sweep(tmp_path / "fig", title="t", xlabel="x", ylabel="y", curves=[curve], marks=[])
    ticks = [tick for tick in kept[0].get_xticks() if 1 <= tick <= 3]
    assert ticks and all(float(tick).is_integer() for tick in ticks)


def test_a_legend_outside_the_axes_widens_the_figure(tmp_path, monkeypatch):
    kept = drawn_axes(monkeypatch)
    curve = Curve("c", [1, 2], [(1.0, (0.9, 1.1))] * 2)
    plot_sweep(tmp_path / "fig", title="t", xlabel="x", ylabel="y", curves=[curve], marks=[],
               legend_loc="outside right upper")
    figure = kept[0].figure
    assert figure.legends and kept[0].get_legend() is None
    assert figure.get_size_inches()[0] > 6.4


def test_a_negative_value_stays_on_the_axes(tmp_path, monkeypatch):
    """An overhead can be negative (NetIOC below the default scheduler at some VM counts)."""
    kept = drawn_axes(monkeypatch)
    curve = Curve("c", [1, 2, 3], [(5.0, (5.0, 5.0)), (-4.5, (-4.5, -4.5)), (10.0, (10.0, 10.0))])
    plot_sweep(tmp_path / "fig", title="t", xlabel="x", ylabel="y", curves=[curve], marks=[])
    bottom, top = kept[0].get_ylim()
    assert bottom < -4.5 and top > 10.0


def test_curves_spanning_decades_are_drawn_on_a_log_scale(tmp_path, monkeypatch):
    """A latency from 27 us to the retransmission timeout's 100 ms: on a linear axis the
    low points would lie flat on the floor."""
    kept = drawn_axes(monkeypatch)
    wide = Curve("c", [1, 2, 3], [(27.0, (26.9, 27.1)), (47.0, (47.0, 47.0)),
                                  (101375.0, (101000.0, 102000.0))])
    plot_sweep(tmp_path / "wide", title="t", xlabel="x", ylabel="us", curves=[wide], marks=[])
    narrow = Curve("c", [1, 2], [(27.0, (26.9, 27.1)), (2000.0, (1990.0, 2010.0))])
    plot_sweep(tmp_path / "narrow", title="t", xlabel="x", ylabel="us", curves=[narrow], marks=[])
    assert kept[0].get_yscale() == "log" and kept[0].get_ylabel() == "us (log scale)"
    assert kept[1].get_yscale() == "linear" and kept[1].get_ylim()[0] == 0


def test_a_long_title_is_wrapped_not_cut(tmp_path, monkeypatch):
    kept = drawn_axes(monkeypatch)
    title = "what-if: TCP_RR latency beside a growing UDP flood on a shared 1 GbE uplink " * 2
    curve = Curve("c", [1, 2], [(1.0, (0.9, 1.1))] * 2)
    plot_sweep(tmp_path / "fig", title=title, xlabel="x", ylabel="y", curves=[curve], marks=[])
    lines = kept[0].get_title().split("\n")
    assert len(lines) >= 2 and all(len(line) <= 80 for line in lines)
    assert " ".join(lines) == title.strip()


def test_points_of_categories_are_not_joined_and_numbers_are(tmp_path, monkeypatch):
    kept = drawn_axes(monkeypatch)
    curve = Curve("c", [0, 1, 2], [(1.0, (0.9, 1.1)), (2.0, (1.9, 2.1)), (1.5, (1.4, 1.6))])
    plot_sweep(tmp_path / "fig", title="t", xlabel="x", ylabel="y", curves=[curve], marks=[],
               xticks=[(0, "esx"), (1, "cfs"), (2, "eevdf")])
    plot_sweep(tmp_path / "fig", title="t", xlabel="x", ylabel="y", curves=[curve], marks=[])
    categories, numbers = (ax.lines[0].get_linestyle() for ax in kept)
    assert categories == "None" and numbers == "-"


def test_long_tick_labels_are_slanted_and_short_ones_not(tmp_path, monkeypatch):
    kept = drawn_axes(monkeypatch)
    curve = Curve("c", [0, 1, 2], [(1.0, (0.9, 1.1))] * 3)
    names = ["esx5_proportional_share", "linux_cfs", "linux_eevdf_hz250"]
    for labels in (names, ["a", "b", "c"]):
        plot_sweep(tmp_path / "fig", title="t", xlabel="x", ylabel="y", curves=[curve], marks=[],
                   xticks=list(enumerate(labels)))
    slanted, upright = ([label.get_rotation() for label in ax.get_xticklabels()] for ax in kept)
    assert set(slanted) == {20.0} and set(upright) == {0.0}


def test_a_long_legend_beside_the_axes_makes_the_figure_taller_and_the_title_narrower(tmp_path, monkeypatch):
    kept = drawn_axes(monkeypatch)
    curves = [Curve(f"c{i}", [1, 2], [(1.0, (0.9, 1.1))] * 2, [[1.0], [1.0]]) for i in range(10)]
    plot_sweep(tmp_path / "fig", title="a title of sixty characters or so that would run on and on", xlabel="x",
               ylabel="y", curves=curves, marks=[], legend_loc="outside right upper")
    assert kept[0].figure.get_size_inches()[1] > 4.4  # 20 entries
    assert len(kept[0].get_title().splitlines()) == 2


def grid_axes(monkeypatch):
    """The figures every later plot_grid saves."""
    import vsim.results.plotting as figures
    kept, save = [], figures._save
    monkeypatch.setattr(figures, "_save", lambda fig, stem: kept.append(fig) or save(fig, stem))
    return kept


def test_a_grid_gives_each_quantity_its_own_axis_and_hides_the_unused_places(tmp_path, monkeypatch):
    kept = grid_axes(monkeypatch)
    percent = Curve("cpu", [1, 2], [(50.0, (40.0, 60.0)), (99.0, (98.0, 100.0))])
    rate = Curve("calls", [1, 2], [(700.0, (700.0, 700.0)), (1400.0, (1400.0, 1400.0))])
    written = plot_grid(tmp_path / "grid", title="t", xlabel="x",
                        quantities=[Quantity("a", "%", [percent]), Quantity("b", "calls/s", [rate]),
                                    Quantity("c", "none", []), Quantity("d", "%", [percent])])
    assert [path.suffix for path in written] == [".png", ".svg"] and all(p.is_file() for p in written)
    axes = kept[0].axes
    visible = [ax for ax in axes if ax.get_visible()]
    assert len(axes) == 6 and len(visible) == 4
    assert [ax.get_ylabel() for ax in visible] == ["%", "calls/s", "none", "%"]
    assert visible[0].get_ylim()[1] < 200 < 1400 <= visible[1].get_ylim()[1]  # one y axis each


def test_a_grid_is_written_the_same_twice(tmp_path):
    curve = Curve("c", [1, 2], [(1.0, (0.5, 1.5)), (2.0, (2.0, 2.0))])
    first = plot_grid(tmp_path / "one", title="t", xlabel="x", quantities=[Quantity("a", "y", [curve])])
    again = plot_grid(tmp_path / "two", title="t", xlabel="x", quantities=[Quantity("a", "y", [curve])])
    assert first[1].read_bytes() == again[1].read_bytes()
