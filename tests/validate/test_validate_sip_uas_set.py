"""The committed SIP measurement (validation/sip_uas): every rate's SIPp files parse with vsim's
readers, their counts add up, and summary.csv says what the files say."""

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from vsim.traces.sipp_rtt import read_sipp_rtt
from vsim.traces.sipp_stat import read_sipp_stat

SET = Path(__file__).resolve().parents[2] / "validation" / "sip_uas"
DATA = SET / "data"


def summary_rows():
    with open(DATA / "summary.csv", newline="") as handle:
        return list(csv.DictReader(handle))


ROWS = summary_rows()


def folder(row):
    return DATA / f"rate_{float(row['rate_cps']):g}"


def test_the_set_covers_rates_on_both_sides_of_the_knee_and_stays_small():
    rates = [float(row["rate_cps"]) for row in ROWS]
    assert len(rates) >= 6 and rates == sorted(rates)
    failed = [int(row["failed"]) + int(row["current_at_end"]) for row in ROWS]
    assert failed[0] == 0 and failed[-1] > 0  # the lowest rate is far below the knee, the highest above
    size = sum(path.stat().st_size for path in SET.rglob("*") if path.is_file())
    assert size < 2_000_000


@pytest.mark.parametrize("row", ROWS, ids=lambda row: f"{float(row['rate_cps']):g}cps")
def test_each_rates_stat_files_add_up_and_match_the_summary(row):
    uac = read_sipp_stat(folder(row) / "uac_stat.csv").columns
    uas = read_sipp_stat(folder(row) / "uas_stat.csv").columns
    created, successful, failed = (int(uac[name][-1]) for name in
                                   ("TotalCallCreated", "SuccessfulCall(C)", "FailedCall(C)"))
    current = int(uac["CurrentCall"][-1])
    assert created == round(float(row["rate_cps"]) * float(row["duration_s"]))  # the UAC's -m
    assert created == successful + failed + current
    for name in ("SuccessfulCall", "FailedCall", "Retransmissions", "FailedMaxUDPRetrans"):
        for columns in (uac, uas):  # every call counted in one period: the periods sum to the run
            assert columns[f"{name}(P)"].sum() == columns[f"{name}(C)"][-1], name
    assert (created, successful, failed, current) == (
        int(row["calls_created"]), int(row["successful"]), int(row["failed"]), int(row["current_at_end"]))
    assert int(row["uac_retransmissions"]) == uac["Retransmissions(C)"][-1]
    assert int(row["uas_retransmissions"]) == uas["Retransmissions(C)"][-1]
    assert int(row["uas_successful"]) == uas["SuccessfulCall(C)"][-1]
    assert uas["IncomingCall(C)"][-1] <= created  # a call whose every INVITE was dropped never began
    gaps = np.diff(read_sipp_stat(folder(row) / "uas_stat.csv").time_s)
    assert float(row["uas_stat_max_gap_s"]) == pytest.approx(gaps.max(), abs=1e-3)
    # the UAS's own count: each call it began ended well, failed, or was still held when it stopped
    assert uas["IncomingCall(C)"][-1] == (uas["SuccessfulCall(C)"][-1] + uas["FailedCall(C)"][-1]
                                          + uas["CurrentCall"][-1])


@pytest.mark.parametrize("row", ROWS, ids=lambda row: f"{float(row['rate_cps']):g}cps")
def test_each_rates_response_times_match_the_summary(row):
    rtt = read_sipp_rtt(folder(row) / "uac_rtt.csv")
    times = rtt.response_time_ms
    # one response time per call that had its 200 (a successful call, or one failing later on its BYE)
    assert int(row["successful"]) <= len(rtt) == int(row["rtt_count"]) <= int(row["calls_created"])
    assert set(rtt.rtd) == {"1"} and np.all(times >= 0)
    assert np.all(np.diff(rtt.date_ms) >= 0)  # written in the order measured, ms since SIPp started
    assert float(row["rtt_mean_ms"]) == pytest.approx(times.mean(), abs=1e-3)
    for q in (50, 95, 99):
        assert float(row[f"rtt_p{q}_ms"]) == pytest.approx(np.percentile(times, q), abs=1e-3)
    assert float(row["rtt_max_ms"]) == times.max()
    uas = read_sipp_rtt(folder(row) / "uas_rtt.csv").response_time_ms
    assert len(uas) == int(row["uas_rtt_count"]) <= int(row["uas_successful"]) + int(row["uas_failed"])
    for q in (50, 95):
        assert float(row[f"uas_rtt_p{q}_ms"]) == pytest.approx(np.percentile(uas, q), abs=1e-3)
    # the stat file's mean response time (ms resolution per call) agrees with the rtt file's
    mean_s = read_sipp_stat(folder(row) / "uac_stat.csv").columns["ResponseTime1(C)"][-1]
    assert mean_s * 1000 == pytest.approx(times.mean(), abs=1.0)


@pytest.mark.parametrize("row", ROWS, ids=lambda row: f"{float(row['rate_cps']):g}cps")
def test_each_rates_uas_cpu_stays_within_its_cgroup_quota(row):
    run = json.loads((folder(row) / "run.json").read_text())
    machine = json.loads((DATA / "machine.json").read_text())
    quota_s, period_s = machine["quota_us"] / 1e6, machine["period_us"] / 1e6
    assert float(row["quota_fraction"]) == pytest.approx(quota_s / period_s, abs=1e-6)
    wall = run["wall_s"]
    assert float(row["uas_cpu_s"]) == pytest.approx(run["cgroup_stat_end"]["usage_s"]
                                                     - run["cgroup_stat_start"]["usage_s"], abs=1e-5)
    # the kernel gives the group at most its quota in each period (one period of slack at the ends)
    assert float(row["uas_cpu_s"]) <= quota_s * (wall / period_s + 2)
    assert 0 <= int(row["nr_throttled"]) <= int(row["nr_periods"]) <= wall / period_s + 2
    idle = run["idle_cgroup_stat_end"]["usage_s"] - run["idle_cgroup_stat_start"]["usage_s"]
    assert float(row["uas_idle_cpu_fraction"]) == pytest.approx(idle / run["idle_s"], abs=1e-4)
    assert 0 < idle <= quota_s * (run["idle_s"] / period_s + 2)  # SIPp's loop costs something when idle
    assert run["uac_command"].split()[:3] == ["sipp", "-sn", "uac"] and f"-r {float(row['rate_cps']):g}" \
        in run["uac_command"]
