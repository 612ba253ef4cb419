"""Tests of the SIPp -trace_stat reader on a hand-made file in SIPp's column layout."""

from pathlib import Path

import pytest

from vsim.core.errors import InputError
from vsim.traces.sipp_stat import parse_sipp_stat, read_sipp_stat

NAMES = ("StartTime;LastResetTime;CurrentTime;ElapsedTime(P);ElapsedTime(C);TargetRate;CallRate(P);"
         "CallRate(C);IncomingCall(P);IncomingCall(C);OutgoingCall(P);OutgoingCall(C);TotalCallCreated;"
         "CurrentCall;SuccessfulCall(P);SuccessfulCall(C);FailedCall(P);FailedCall(C);"
         "ResponseTime1(P);ResponseTime1(C);ResponseTime1StDev(P);ResponseTime1StDev(C);"
         "CallLength(P);CallLength(C);CallLengthStDev(P);CallLengthStDev(C);"
         "ResponseTimeRepartition1_<10;ResponseTimeRepartition1_>=10;")


def clock(hms, epoch):
    return f"2026-11-24\t{hms}\t{epoch}"


def row(current, epoch, elapsed, rate, success, failed, rt_p, rt_c):
    cells = [clock("00:30:05.000100", "1795480205.000100"), clock("00:30:05.000100", "1795480205.000100"),
             clock(current, epoch), elapsed, elapsed, "10", rate, rate, "0", "0", "50", "100", "100", "5",
             str(success), str(success * 2), str(failed), str(failed), rt_p, rt_c, "00:00:00:001000",
             "00:00:00:001000", "00:00:10:000000", "00:00:10:000000", "00:00:00:000000", "00:00:00:000000",
             "90", "10"]
    return ";".join(cells) + ";"


TEXT = "\n".join([
    NAMES,
    row("00:30:10.000100", "1795480210.000100", "00:00:05", "9.8", 45, 0, "00:00:00:012000", "00:00:00:012000"),
    row("00:30:15.250100", "1795480215.250100", "00:00:05", "10.2", 50, 1, "00:00:00:015500", "00:00:00:013750"),
]) + "\n"


def test_columns_are_read_with_their_units(tmp_path):
    path = tmp_path / "uac_1234_.csv"
    path.write_text(TEXT)
    stats = read_sipp_stat(path)
    assert len(stats) == 2
    assert stats.time_s.tolist() == pytest.approx([0.0, 5.25])
    assert stats.columns["CurrentTime"][1] == pytest.approx(1795480215.2501)
    assert stats.columns["ElapsedTime(C)"].tolist() == [5.0, 5.0]
    assert stats.columns["CallRate(P)"].tolist() == [9.8, 10.2]
    assert stats.columns["SuccessfulCall(C)"].tolist() == [90, 100]
    assert stats.columns["FailedCall(P)"].tolist() == [0, 1]
    assert stats.columns["ResponseTime1(P)"].tolist() == pytest.approx([0.012, 0.0155])
    assert stats.columns["CallLength(C)"].tolist() == [10.0, 10.0]
    assert stats.columns["ResponseTimeRepartition1_<10"].tolist() == [90, 90]


@pytest.mark.parametrize("text, where, words", [
    ("", None, "empty file"),
    ("Date_ms;response_time_ms;rtd_no\n1;2;1\n", "line 1", "SIPp -trace_stat header"),
    (NAMES + "\n", "line 2", "truncated"),
    (TEXT[:-40], "line 3", "truncated file"),
    (TEXT.replace("00:00:00:015500", "15.5 ms"), "line 3", "HH:MM:SS:uuuuuu in column 'ResponseTime1(P)'"),
    (TEXT.replace(";9.8;", ";fast;"), "line 2", "a number in column 'CallRate(P)'"),
    (TEXT.replace("\t1795480210.000100", "\tnow"), "line 2", "column 'CurrentTime'"),
])
def test_defects_are_one_line_errors(text, where, words):
    with pytest.raises(InputError) as info:
        parse_sipp_stat(text, "uac.csv")
    assert info.value.where == where and words in info.value.expected
    assert "\n" not in str(info.value)


def test_sipp_3_6_1s_own_file_is_read_with_its_empty_marker_columns():
    """A file SIPp 3.6.1 wrote (validation/sipp_stat): its repartition markers are empty in every row."""
    path = Path(__file__).resolve().parents[2] / "validation" / "sipp_stat" / "uac_3.6.1.csv"
    stats = read_sipp_stat(path)
    assert len(stats) == 6
    assert stats.columns["TotalCallCreated"][-1] == 20 and stats.columns["SuccessfulCall(C)"][-1] == 20
    assert "ResponseTimeRepartition1" not in stats.columns and "CallLengthRepartition" not in stats.columns
    assert stats.columns["CallLengthRepartition_<10"][-1] == 15


def test_a_marker_column_holding_a_value_is_refused(tmp_path):
    text = open(Path(__file__).resolve().parents[2] / "validation" / "sipp_stat" / "uac_3.6.1.csv").read()
    header, first, *rest = text.splitlines()
    marker = header.split(";").index("CallLengthRepartition")
    cells = first.split(";")
    cells[marker] = "7"
    path = tmp_path / "stat.csv"
    path.write_text("\n".join([header, ";".join(cells), *rest]) + "\n")
    with pytest.raises(InputError, match="line 2: expected an empty cell .* 'CallLengthRepartition'"):
        read_sipp_stat(path)
