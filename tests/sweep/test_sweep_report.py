"""The what-if sweep report: statistics per point, table, JSON and figures, on made-up summaries."""

import dataclasses
import hashlib
import json

import numpy as np
import pytest
from hypothesis import given, strategies as st

from summaries import typed_summary
from vsim.metrics.stats import trimmed_mean, trimmed_mean_interval
from vsim.sweep.executor import Sweep, Task
from vsim.sweep.report import (axis, plot_report, point_report, report_json, sweep_metrics,
                               table_markdown, table_text, write_report)

WINDOW = 9.0  # the made-up runs' measuring window: 10 s after 1 s of warm-up


def summary(jitter, cpu=50.0, ready=(1.0, 3.0), rate=100.0, offered=100.0, measured=True,
            emitted=None, silent=False, vms_with_samples=None):
    """A run's summary; ``rate`` is the voice packets the uplink delivered per second and
    ``emitted`` the packets the guests sent in the window (default: as many as delivered);
    ``silent``: a measuring conference without packets after warm-up."""
    emitted = rate * WINDOW if emitted is None else emitted
    has = measured and not silent
    return {
        "jitter": {"mean_ms": jitter if has else None, "p99_ms": 2 * jitter if has else None,
                   "measuring_conference": measured or silent, "samples": 500 if has else 0},
        "instances_jitter": {"p99_ms": 3 * jitter, "vms": len(ready),
                             "vms_with_samples": len(ready) if vms_with_samples is None
                             else vms_with_samples},
        "voice": {"loss_fraction": 1 - rate * WINDOW / emitted if emitted else 0.0,
                  "packet_rate_pps": rate, "offered_pps": offered, "packets_emitted": emitted},
        "host": {"cpu_util_pct": cpu},
        "vms": {f"vm{i}": {"group": "vm", "used_pct": 2 * r, "ready_pct": r, "costop_pct": r / 2,
                           "limited_pct": 0.0} for i, r in enumerate(ready)},
    }


def network(cpu=0.0, transactions=None, latency=None, throughput=None):
    """A run of bulk (``throughput`` Mb/s of group bulk) or request/response traffic
    (``transactions``/s at ``latency`` us one way, group netperf) and no voice."""
    run = {
        "jitter": {"mean_ms": None, "p99_ms": None, "measuring_conference": False, "samples": 0},
        "instances_jitter": {"p99_ms": None, "vms": 0, "vms_with_samples": 0},
        "voice": {"loss_fraction": 0.0, "packet_rate_pps": 0.0, "offered_pps": 0.0,
                  "packets_emitted": 0},
        "host": {"cpu_util_pct": cpu},
        "vms": {},
        "uplink": {"groups": {}},
    }
    if throughput is not None:
        run["uplink"]["groups"]["bulk"] = {"throughput_mbps": throughput}
    if transactions is not None:
        run["uplink"]["request_response"] = {
            "netperf": {"transactions_per_s": transactions, "one_way_latency_mean_us": latency,
                        "one_way_latency_p99_us": 2 * latency}}
    return run


def vm_cpu(group, used, ready, costop=0.0):
    """A VM's entry of a summary: its group and CPU, no limit holding it back."""
    return {"group": group, "used_pct": used, "ready_pct": ready, "costop_pct": costop, "limited_pct": 0.0}


def reports_of(sweep):
    metrics = sweep_metrics(sweep)
    return [point_report(point, metrics) for point in sweep.points]


def make_sweep(key, runs_by_x, overrides=()):
    tasks, summaries = [], []
    for x, runs in runs_by_x.items():
        for r, run in enumerate(runs):
            tasks.append(Task("whatif.toml", overrides, key, x, r, len(runs), 1 + r, 10.0, 1.0))
            summaries.append(typed_summary(run))
    return Sweep.from_runs("whatif", "whatif.toml", tasks, summaries, frozenset())


def test_a_point_is_the_trimmed_mean_of_its_runs_with_its_bootstrap_interval():
    jitters = [0.1, 0.5, 0.6, 0.7, 5.0]
    sweep = make_sweep("vm.instances", {4: [summary(j) for j in jitters]})
    stats = reports_of(sweep)[0].stats
    value, (low, high) = stats["jitter_mean_ms"]
    assert value == pytest.approx(0.6)  # the highest and lowest of five dropped
    assert (low, high) == trimmed_mean_interval(jitters)
    assert 0.1 <= low < value < high <= 5.0  # inside the runs' range, never below zero
    assert stats["jitter_p99_ms"][0] == pytest.approx(1.2)
    assert stats["ready_pct"][0] == pytest.approx(2.0)  # the mean over the VMs
    assert stats["sent_pct_of_offered"][0] == pytest.approx(100.0)


def test_a_metric_some_run_lacks_is_missing_not_guessed():
    sweep = make_sweep("vm.instances", {4: [summary(0.5), summary(0.6, measured=False)]})
    stats = reports_of(sweep)[0].stats
    assert stats["jitter_mean_ms"] is None and stats["jitter_p99_ms"] is None
    assert stats["all_vms_p99_ms"] is not None
    quiet = make_sweep("vm.streams_per_instance", {0: [summary(0.5, rate=0.0, offered=0.0)],
                                                   10: [summary(0.5)]})
    assert reports_of(quiet)[0].stats["sent_pct_of_offered"] is None


def test_falling_behind_shows_as_sent_below_offered():
    sweep = make_sweep("vm.instances", {13: [summary(2.0, rate=77000.0, offered=78200.0)]})
    assert reports_of(sweep)[0].stats["sent_pct_of_offered"][0] == pytest.approx(98.465, abs=1e-3)


@given(offered=st.floats(10.0, 1e5), delivered=st.floats(0.0, 1.0), sent=st.floats(0.01, 1.0))
def test_sent_counts_what_the_guests_sent_not_what_the_uplink_delivered(offered, delivered, sent):
    """Guests sending ``sent`` of the offered packets, of which the uplink delivers ``delivered``:
    the column is the guests' share, the loss the uplink's."""
    emitted = sent * offered * WINDOW
    run = summary(1.0, rate=delivered * emitted / WINDOW, offered=offered, emitted=emitted)
    stats = reports_of(make_sweep("group.flood.count", {8: [run]}))[0].stats
    assert stats["sent_pct_of_offered"][0] == pytest.approx(100 * sent)
    assert stats["loss_pct"][0] == pytest.approx(100 * (1 - delivered))


def test_request_response_groups_get_transactions_and_latency_and_no_voice_columns():
    runs = {"multiqueue": [network(transactions=t, latency=l) for t, l in
                           ((238000.0, 25.0), (239000.0, 25.2), (240000.0, 25.1))],
            "netioc": [network(transactions=t, latency=l) for t, l in
                       ((202000.0, 29.6), (202500.0, 29.8), (201000.0, 29.7))]}
    sweep = make_sweep("host.uplink", runs)
    names = [metric.name for metric in sweep_metrics(sweep)]
    assert names == ["transactions_per_s.netperf", "one_way_latency_us.netperf",
                     "one_way_latency_p99_us.netperf", "host_cpu_pct"]
    stats = reports_of(sweep)[1].stats
    latencies = [29.6, 29.8, 29.7]
    assert stats["one_way_latency_us.netperf"] == (trimmed_mean(latencies),
                                                   trimmed_mean_interval(latencies))
    assert stats["one_way_latency_p99_us.netperf"][0] == pytest.approx(2 * trimmed_mean(latencies))
    text = table_text("fig6", sweep, reports_of(sweep))
    heading = text.splitlines()[1]
    assert "netperf transactions/s" in heading and "netperf one-way µs" in heading
    assert "netperf one-way p99 µs" in heading
    assert "jitter" not in heading and "loss" not in heading and "ready" not in heading
    assert text.splitlines()[3].split()[1] == "202,000"  # the trimmed mean: the middle one
    assert "whose CPU is not modelled" in text.splitlines()[-2]
    assert text.splitlines()[-1].startswith("note: with 3 replications the intervals")
    assert "whose CPU is not modelled" in table_markdown("fig6", sweep, reports_of(sweep))


def test_a_point_without_measured_packets_says_why_under_the_table():
    behind = summary(0.5, emitted=0.5 * 100.0 * WINDOW, silent=True, vms_with_samples=1)
    lost = summary(0.5, rate=0.0, silent=True)
    lost.update(measured_packets=400, measured_loss_fraction=1.0)
    sweep = make_sweep("measured_vm.shares", {1000: [behind, lost, summary(0.6)], 4000: [summary(0.5)] * 3})
    lines = table_text("shares", sweep, reports_of(sweep)).splitlines()
    assert lines[2].split()[1] == "n/a"  # the jitter of shares 1000
    assert ("note: at measured_vm.shares 1000 the measuring conference had no packets after warm-up "
            "in 2 of 3 runs (all were lost on the way; the guests fell behind their ticks)") in lines
    assert ("note: at measured_vm.shares 1000 the all-VM jitter leaves out VMs without packets "
            "after warm-up (as few as 1 of 2 counted)") in lines
    assert not any("shares 4000" in line for line in lines)


def test_bulk_groups_get_their_throughput_beside_the_voice():
    with_flood = summary(0.5)
    with_flood["uplink"] = network(throughput=854.0)["uplink"]
    sweep = make_sweep("group.flood.count", {8: [with_flood]})
    names = [metric.name for metric in sweep_metrics(sweep)]
    assert names[:5] == ["jitter_mean_ms", "jitter_p99_ms", "all_vms_p99_ms", "loss_pct",
                         "sent_pct_of_offered"]
    assert names[5:] == ["throughput_mbps.bulk", "host_cpu_pct", "used_pct.vm", "ready_pct", "costop_pct"]
    assert reports_of(sweep)[0].stats["throughput_mbps.bulk"][0] == pytest.approx(854.0)
    assert "bulk Mb/s" in table_text("flood", sweep, reports_of(sweep)).splitlines()[1]


def test_request_response_sweeps_draw_latency_and_transactions(tmp_path):
    runs = {x: [network(transactions=1000.0 * x, latency=20.0 + x)] for x in (1, 2)}
    sweep = make_sweep("group.netperf.count", runs)
    written = write_report(tmp_path, "fig6", "title", sweep, reports_of(sweep))
    assert sorted(path.name for path in written if path.suffix == ".svg") == [
        "fig6_host.svg", "fig6_latency.svg", "fig6_transactions.svg"]  # no VM's CPU: no cpu figure
    assert "netperf one-way µs" in (tmp_path / "fig6_latency.svg").read_text()
    assert "not modelled" in (tmp_path / "fig6_host.svg").read_text()


def test_table_has_a_row_per_point_with_values_written_as_in_toml():
    sweep = make_sweep("host.hyperthreading", {True: [summary(0.5)] * 3, False: [summary(0.7)] * 3})
    reports = reports_of(sweep)
    lines = table_text("HT on and off", sweep, reports).splitlines()
    assert lines[0] == "HT on and off"
    assert lines[1].split()[0] == "host.hyperthreading"
    assert all(metric.heading in lines[1] for metric in sweep_metrics(sweep))
    assert [line.split()[0] for line in lines[2:]] == ["true", "false", "note:"]
    assert "n/a" not in "\n".join(lines)


def test_json_holds_the_statistics_and_every_run():
    runs = {1: [summary(0.5), summary(0.6)], 12: [summary(0.8), summary(0.9)]}
    sweep = make_sweep("vm.instances", runs)
    doc = json.loads(report_json("over-commit", sweep, reports_of(sweep)))
    assert doc["name"] == "over-commit" and doc["key"] == "vm.instances"
    assert [p["x"] for p in doc["points"]] == [1, 12]
    assert doc["points"][1]["stats"]["jitter_mean_ms"]["value"] == pytest.approx(0.85)
    assert len(doc["points"][0]["runs"]) == 2
    assert set(doc["points"][0]["stats"]) == {metric.name for metric in sweep_metrics(sweep)}


def test_the_model_files_are_recorded_in_the_json_when_known():
    sweep = make_sweep("vm.instances", {1: [summary(0.5)]})
    assert "models" not in json.loads(report_json("t", sweep, reports_of(sweep)))
    known = dataclasses.replace(sweep, models=(("host", "hosts/h sha256:0123456789ab"),))
    assert json.loads(report_json("t", known, reports_of(known)))["models"] == {
        "host": "hosts/h sha256:0123456789ab"}


def test_overrides_are_recorded_in_order_in_the_json_table_and_figures(tmp_path):
    overrides = ("host.cores=4", "sweep.values=[1, 2]")
    sweep = make_sweep("vm.instances", {x: [summary(0.1 * x)] for x in (1, 2)}, overrides)
    write_report(tmp_path, "whatif", "title", sweep, reports_of(sweep))
    assert json.loads((tmp_path / "results.json").read_text())["overrides"] == list(overrides)
    assert ("seed 1, --set host.cores=4 --set 'sweep.values=[1, 2]'."
            in (tmp_path / "summary.md").read_text())
    assert "host.cores=4" in (tmp_path / "whatif_jitter.svg").read_text()
    # the title says what the scenario became, the sweep's own key and values aside
    assert (tmp_path / "summary.md").read_text().startswith("# title, as changed by --set host.cores=4\n")
    assert json.loads((tmp_path / "results.json").read_text())["name"] == \
        "title, as changed by --set host.cores=4"


def test_a_sweep_without_overrides_has_no_overrides_key():
    sweep = make_sweep("vm.instances", {x: [summary(0.1 * x)] for x in (1, 2)})
    assert "overrides" not in json.loads(report_json("title", sweep, reports_of(sweep)))
    assert "--set" not in sweep.stamp()


def test_axis_labels_units_and_names_boolean_ticks():
    numbers = make_sweep("vm.background_burst", {0.0: [summary(0.5)], 0.005: [summary(0.6)]})
    assert axis(numbers) == ([0.0, 0.005], "vm.background_burst (s)", None)
    flags = make_sweep("host.hyperthreading", {True: [summary(0.5)], False: [summary(0.6)]})
    assert axis(flags) == ([0, 1], "host.hyperthreading", [(0, "true"), (1, "false")])  # table order


def test_models_of_one_folder_are_ticked_by_name_with_the_folder_in_the_label():
    models = make_sweep("host.scheduler", {"schedulers/esx5_proportional_share": [summary(0.5)],
                                           "schedulers/linux_cfs": [summary(0.6)]})
    assert axis(models) == ([0, 1], "host.scheduler (schedulers/)",
                            [(0, "esx5_proportional_share"), (1, "linux_cfs")])
    mixed = make_sweep("vm.workload", {"workloads/a": [summary(0.5)], "mine.toml": [summary(0.6)]})
    assert axis(mixed)[1:] == ("vm.workload", [(0, "workloads/a"), (1, "mine.toml")])


def test_figures_are_written_and_identical_when_redrawn(tmp_path):
    sweep = make_sweep("vm.instances", {x: [summary(0.1 * x + j) for j in (0.0, 0.1, 0.2)]
                                        for x in (1, 6, 12)})
    reports = reports_of(sweep)
    first = write_report(tmp_path / "a", "whatif", "title", sweep, reports)
    (tmp_path / "b").mkdir()
    second = plot_report(tmp_path / "b" / "whatif", "title", sweep, reports)
    names = sorted(path.name for path in first)
    assert names == ["points.csv", "points.parquet", "results.json", "runs.csv", "runs.parquet",
                     "summary.md", "whatif_cpu.png", "whatif_cpu.svg",
                     "whatif_host.png", "whatif_host.svg", "whatif_jitter.png", "whatif_jitter.svg"]
    assert len(second) == 6
    for path in second:
        if path.suffix == ".svg":
            assert path.read_bytes() == (tmp_path / "a" / path.name).read_bytes()
    table = (tmp_path / "a" / "summary.md").read_text()
    assert table.count("\n| ") == 5  # heading, separator and three points
    assert np.isfinite(json.loads((tmp_path / "a" / "results.json").read_text())
                       ["points"][2]["stats"]["host_cpu_pct"]["value"])


def test_per_vm_cpu_columns_and_axis_say_they_sum_the_vcpus(tmp_path, monkeypatch):
    import vsim.results.plotting as figures
    labels = []
    monkeypatch.setattr(figures, "plot_sweep", lambda path, **kw: labels.append(kw["ylabel"]) or [])
    sweep = make_sweep("vm.instances", {x: [summary(0.1 * x)] for x in (1, 2)})
    headings = {metric.name: metric.heading for metric in sweep_metrics(sweep)}
    assert headings["ready_pct"] == "ready % per VM (vCPUs summed)"
    assert headings["costop_pct"] == "co-stop % per VM (vCPUs summed)"
    metrics = sweep_metrics(sweep)
    plot_report(tmp_path / "whatif", "title", sweep, [point_report(p, metrics) for p in sweep.points])
    assert labels == ["jitter (ms)", "host CPU (%)", "CPU per VM (% of one vCPU, summed)"]


def test_the_cpu_figure_says_in_its_caption_what_its_percentages_are_of(tmp_path, monkeypatch):
    import vsim.results.plotting as figures
    captions = {}
    monkeypatch.setattr(figures, "plot_sweep",
                        lambda path, **kw: captions.update({path.name: kw["caption"]}) or [])
    sweep = make_sweep("vm.instances", {x: [summary(0.1 * x)] for x in (1, 2)})
    plot_report(tmp_path / "whatif", "title", sweep, reports_of(sweep))
    assert "% of one vCPU, summed over its vCPUs" in captions["whatif_cpu"]
    assert "PCPU UTIL" in captions["whatif_host"] and "PCPU UTIL" not in captions["whatif_cpu"]
    assert "vCPU" not in captions["whatif_jitter"]


def with_traffic(run, during_loss):
    """``run`` with bulk traffic beside its voice, losing ``during_loss`` of the voice while
    the traffic runs (None: no whole second of it)."""
    return {**run, "uplink": {"groups": {"flood": {"throughput_mbps": 900.0}},
                              "during_traffic": {"voice_loss_fraction": during_loss}}}


def test_loss_while_traffic_runs_gets_a_column_beside_the_whole_window_loss():
    sweep = make_sweep("group.flood.count", {1: [with_traffic(summary(0.5), 0.0)],
                                             2: [with_traffic(summary(0.5, emitted=1800.0), 0.9)]})
    names = [metric.name for metric in sweep_metrics(sweep)]
    assert names[names.index("loss_pct") + 1] == "loss_during_traffic_pct"
    reports = reports_of(sweep)
    assert reports[1].stats["loss_during_traffic_pct"][0] == pytest.approx(90.0)
    assert "loss % while traffic runs" in table_text("t", sweep, reports).splitlines()[1]


def test_jitter_while_traffic_runs_gets_a_column_beside_the_whole_window_jitter():
    quiet, loaded = with_traffic(summary(0.5), 0.0), with_traffic(summary(0.5), 0.5)
    loaded["uplink"]["during_traffic"]["jitter_mean_ms"] = 5.4
    quiet["uplink"]["during_traffic"]["jitter_mean_ms"] = 0.5
    sweep = make_sweep("netioc.node.voice.shares", {1: [quiet], 0.1: [loaded]})
    names = [metric.name for metric in sweep_metrics(sweep)]
    assert names[:2] == ["jitter_mean_ms", "jitter_mean_during_traffic_ms"]
    assert reports_of(sweep)[1].stats["jitter_mean_during_traffic_ms"][0] == pytest.approx(5.4)
    assert "jitter mean ms while traffic runs" in table_text("t", sweep, reports_of(sweep)).splitlines()[1]
    without_client = make_sweep("group.flood.count", {1: [with_traffic(summary(0.5), 0.0)]})
    assert "jitter_mean_during_traffic_ms" not in [m.name for m in sweep_metrics(without_client)]


def test_no_traffic_means_no_during_traffic_column_and_a_short_window_is_missing():
    assert "loss_during_traffic_pct" not in [m.name for m in sweep_metrics(
        make_sweep("vm.instances", {1: [summary(0.5)]}))]
    sweep = make_sweep("group.flood.count", {1: [with_traffic(summary(0.5), None)]})
    assert reports_of(sweep)[0].stats["loss_during_traffic_pct"] is None


def test_a_loss_figure_is_drawn_only_when_some_run_lost_voice(tmp_path):
    lossless = make_sweep("vm.instances", {x: [summary(0.1 * x)] for x in (1, 2)})
    written = plot_report(tmp_path / "none", "title", lossless, reports_of(lossless))
    assert not any("_loss" in path.name for path in written)
    lossy = make_sweep("group.flood.count", {1: [with_traffic(summary(0.5), 0.0)],
                                             2: [with_traffic(summary(0.5, emitted=1800.0), 0.9)]})
    written = plot_report(tmp_path / "some", "title", lossy, reports_of(lossy))
    assert {"some_loss.png", "some_loss.svg"} <= {path.name for path in written}
    assert "loss % while traffic runs" in (tmp_path / "some_loss.svg").read_text()


def test_lost_requests_get_a_resent_column_only_where_some_run_lost_them():
    def rr(resent):
        run = network(transactions=600.0, latency=6500.0)
        run["uplink"]["request_response"]["netperf"]["retransmissions"] = resent
        return run
    quiet = make_sweep("group.flood.count", {4: [rr(0)], 6: [rr(0)]})
    assert "resent_per_s.netperf" not in [m.name for m in sweep_metrics(quiet)]
    lossy = make_sweep("group.flood.count", {4: [rr(0)], 8: [rr(2 * WINDOW)]})
    assert "resent_per_s.netperf" in [m.name for m in sweep_metrics(lossy)]
    assert reports_of(lossy)[1].stats["resent_per_s.netperf"][0] == pytest.approx(2.0)


def test_each_groups_cpu_has_a_column_and_ready_time_counts_the_traffic_vms():
    run = network(throughput=10.0)
    run["vms"] = {"lo[0]": vm_cpu("lo", 100.0, 10.0), "lo[1]": vm_cpu("lo", 140.0, 30.0),
                  "hi[0]": vm_cpu("hi", 300.0, 0.0)}
    run["traffic_vms"] = {"bulk[0]": vm_cpu("bulk", 80.0, 40.0, costop=4.0)}
    sweep = make_sweep("group.lo.reservation", {0.0: [run]})
    metrics = sweep_metrics(sweep)
    stats = point_report(sweep.points[0], metrics).stats
    assert [m.heading for m in metrics if m.name.startswith("used_pct.")] == [
        "lo used % per VM (vCPUs summed)", "hi used % per VM (vCPUs summed)", "bulk used % per VM (vCPUs summed)"]
    assert stats["used_pct.lo"][0] == 120.0 and stats["used_pct.hi"][0] == 300.0
    assert stats["used_pct.bulk"][0] == 80.0
    assert stats["ready_pct"][0] == 20.0 and stats["costop_pct"][0] == 1.0


def test_each_of_several_groups_gets_its_ready_column_and_cpu_bound_vms_count():
    run = network(throughput=10.0)
    run["vms"] = {"vm0": vm_cpu("vm", 120.0, 0.0)}
    run["cpu_bound_vms"] = {"hog[0]": {**vm_cpu("hog", 280.0, 120.0), "demand_pct": 400.0}}
    metrics = sweep_metrics(make_sweep("group.hog.limit", {4.0: [run]}))
    stats = point_report(make_sweep("group.hog.limit", {4.0: [run]}).points[0], metrics).stats
    assert [m.name for m in metrics if m.name.startswith("ready_pct.")] == ["ready_pct.vm", "ready_pct.hog"]
    assert (stats["ready_pct.vm"][0], stats["ready_pct.hog"][0], stats["ready_pct"][0]) == (0.0, 120.0, 60.0)
    alone = make_sweep("vm.instances", {1: [summary(0.5)]})
    assert not any(m.name.startswith("ready_pct.") for m in sweep_metrics(alone))  # one group: its column is the ready column


def test_a_groups_limited_time_gets_a_column_only_where_some_run_held_it_at_its_limit():
    def run(limited):
        out = network(throughput=10.0)
        out["vms"] = {"lo[0]": {"group": "lo", "used_pct": 50.0, "ready_pct": 80.0, "costop_pct": 0.0,
                                "limited_pct": limited},
                      "lo[1]": {"group": "lo", "used_pct": 50.0, "ready_pct": 80.0, "costop_pct": 0.0,
                                "limited_pct": limited / 2},
                      "hi[0]": {"group": "hi", "used_pct": 300.0, "ready_pct": 0.0, "costop_pct": 0.0,
                                "limited_pct": 0.0}}
        return out
    free = make_sweep("group.lo.limit", {4.0: [run(0.0)]})
    assert not any(m.name.startswith("limited_pct") for m in sweep_metrics(free))
    sweep = make_sweep("group.lo.limit", {4.0: [run(0.0)], 0.5: [run(60.0)]})
    metrics = sweep_metrics(sweep)
    assert [m.heading for m in metrics if m.name.endswith(".lo") and "used" not in m.name] == [
        "lo ready % per VM (vCPUs summed)", "lo limited % per VM (vCPUs summed, part of its ready)"]
    assert [m.name for m in metrics[-3:]] == ["ready_pct.lo", "limited_pct.lo", "ready_pct.hi"]
    reports = reports_of(sweep)
    assert [report.stats["limited_pct.lo"][0] for report in reports] == [0.0, 45.0]
    assert [report.stats["ready_pct.lo"][0] for report in reports] == [80.0, 80.0]  # the group's, not every VM's


def test_a_report_replaces_the_files_of_the_last_one_in_its_directory_and_leaves_others(tmp_path):
    lossy = make_sweep("vm.instances", {x: [summary(0.1 * x, rate=90.0, emitted=100.0 * WINDOW)] for x in (1, 2)})
    first = write_report(tmp_path, "overcommit", "title", lossy, reports_of(lossy))
    assert "overcommit_loss.svg" in {path.name for path in first}
    assert json.loads((tmp_path / "results.json").read_text())["files"] == sorted(p.name for p in first)
    (tmp_path / "notes.txt").write_text("the user's")
    clean = make_sweep("vm.instances", {x: [summary(0.1 * x)] for x in (1, 2)})
    second = write_report(tmp_path, "hyperthreading", "title", clean, reports_of(clean))
    assert {path.name for path in tmp_path.iterdir()} == {path.name for path in second} | {"notes.txt"}
    assert not any(name.startswith("overcommit") for name in json.loads((tmp_path / "results.json")
                                                                        .read_text())["files"])


def test_a_report_removes_no_file_a_manifest_merely_names(tmp_path):
    """A results.json listing the user's file made the next report delete it."""
    (tmp_path / "my_notes.txt").write_text("the user's")
    (tmp_path / "results.json").write_text(json.dumps({"files": ["my_notes.txt", "results.json"]}))
    clean = make_sweep("vm.instances", {x: [summary(0.1 * x)] for x in (1, 2)})
    written = write_report(tmp_path, "hyperthreading", "title", clean, reports_of(clean))
    assert (tmp_path / "my_notes.txt").read_text() == "the user's"
    recorded = json.loads((tmp_path / "results.json").read_text())["sha256"]
    assert recorded == {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in written[1:]}


def with_late(run, late):
    """``run`` whose measuring conference's buffer discarded ``late`` of its packets as late."""
    return {**run, "voice_quality": {"measuring_conference": {"late_fraction": late}}}


def test_late_discards_get_a_column_when_some_run_has_them():
    """An over-committed host showed "loss % 0" while every packet came too late to be played."""
    calm = make_sweep("vm.instances", {12: [with_late(summary(0.5), 0.0)]})
    assert "late_pct" not in [metric.name for metric in sweep_metrics(calm)]
    sweep = make_sweep("vm.instances", {12: [with_late(summary(0.5), 0.0)],
                                        13: [with_late(summary(3.0), 1.0)], 14: [summary(4.0)]})
    names = [metric.name for metric in sweep_metrics(sweep)]
    assert names[names.index("loss_pct") + 1] == "late_pct"
    reports = reports_of(sweep)
    assert [report.stats["late_pct"][0] for report in reports[:2]] == [0.0, pytest.approx(100.0)]
    assert reports[2].stats["late_pct"] is None
    assert "late %" in table_text("t", sweep, reports).splitlines()[1]


def test_tables_and_captions_say_when_the_replications_are_too_few_for_95_percent():
    few = make_sweep("vm.instances", {1: [summary(0.1), summary(0.2), summary(0.3)]})
    many = make_sweep("vm.instances", {1: [summary(0.1 * j) for j in range(1, 7)]})
    assert "note: with 3 replications the intervals are narrower than 95 %" in table_text(
        "t", few, reports_of(few))
    assert "narrower" in table_markdown("t", few, reports_of(few))
    assert "narrower" not in table_text("t", many, reports_of(many))


def test_a_point_of_one_run_shows_its_value_without_a_bracket():
    sweep = make_sweep("vm.instances", {1: [summary(0.5)], 2: [summary(0.5), summary(0.7)]})
    lines = table_text("one run", sweep, reports_of(sweep)).splitlines()
    assert lines[2].split()[:2] == ["1", "0.5"] and "[" not in lines[2].split("  ")[1]
    assert "0.6 [0.5, 0.7]" in lines[3]
