"""Tests of the SIPp -trace_rtt reader."""

import pytest

from vsim.core.errors import InputError
from vsim.traces.sipp_rtt import parse_sipp_rtt, read_sipp_rtt

TEXT = "Date_ms;response_time_ms;rtd_no\n1795480210123.45;12.5;1\n1795480210140.1;14;invite\n"


def test_rows_are_read(tmp_path):
    path = tmp_path / "uac_1234_rtt.csv"
    path.write_text(TEXT)
    rtt = read_sipp_rtt(path)
    assert rtt.date_ms.tolist() == [1795480210123.45, 1795480210140.1]
    assert rtt.response_time_ms.tolist() == [12.5, 14.0]
    assert rtt.rtd == ["1", "invite"]


@pytest.mark.parametrize("text, where, words", [
    ("  \n", None, "empty file"),
    ("Date;rtt\n1;2\n", "line 1", "-trace_rtt header"),
    ("Date_ms;response_time_ms;rtd_no\n", "line 2", "truncated"),
    (TEXT + "1795480210150.0;1", "line 4", "expected 3"),
    (TEXT.replace("12.5", "slow"), "line 2", "column 'response_time_ms'"),
])
def test_defects_are_one_line_errors(text, where, words):
    with pytest.raises(InputError) as info:
        parse_sipp_rtt(text, "rtt.csv")
    assert info.value.where == where and words in info.value.expected
