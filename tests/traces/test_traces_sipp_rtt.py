"""Tests of the SIPp -trace_rtt reader."""

from pathlib import Path

import numpy as np
import pytest

from vsim.core.errors import InputError
from vsim.traces.sipp_rtt import parse_sipp_rtt, read_sipp_rtt

TEXT = "Date_ms;response_time_ms;rtd_no\n10123.45;12.5;1\n10140.1;14;invite\n"


def test_rows_are_read(tmp_path):
    path = tmp_path / "uac_1234_rtt.csv"
    path.write_text(TEXT)
    rtt = read_sipp_rtt(path)
    assert rtt.date_ms.tolist() == [10123.45, 10140.1]
    assert rtt.response_time_ms.tolist() == [12.5, 14.0]
    assert rtt.rtd == ["1", "invite"]


@pytest.mark.parametrize("text, where, words", [
    ("  \n", None, "empty file"),
    ("Date;rtt\n1;2\n", "line 1", "-trace_rtt header"),
    ("Date_ms;response_time_ms;rtd_no\n", "line 2", "truncated"),
    (TEXT + "10150.0;1", "line 4", "expected 3"),
    (TEXT.replace("12.5", "slow"), "line 2", "column 'response_time_ms'"),
])
def test_defects_are_one_line_errors(text, where, words):
    with pytest.raises(InputError) as info:
        parse_sipp_rtt(text, "rtt.csv")
    assert info.value.where == where and words in info.value.expected


def test_sipp_3_6_1s_own_file_is_read():
    """A file SIPp 3.6.1 wrote (validation/sip_uas, 25 calls/s for 10 s): its dates are ms since
    SIPp started, its response times whole ticks of the kernel's coarse clock."""
    path = Path(__file__).resolve().parents[2] / "validation" / "sip_uas" / "data" / "rate_25" / "uac_rtt.csv"
    rtt = read_sipp_rtt(path)
    assert len(rtt) == 250 and set(rtt.rtd) == {"1"}
    assert 0 < rtt.date_ms[0] < rtt.date_ms[-1] < 60_000  # not epoch milliseconds
    assert np.all(np.diff(rtt.date_ms) >= 0)
    tick = 4.0  # ms: the measuring machine's kernel ticks at 250 Hz
    for values in (rtt.response_time_ms, rtt.date_ms - rtt.date_ms[0]):
        assert np.allclose(np.round(values / tick) * tick, values)


def test_dates_past_1000_s_in_sipps_six_digit_form_are_read():
    rtt = parse_sipp_rtt("Date_ms;response_time_ms;rtd_no\n999996;4;1\n1e+06;0;1\n1.00001e+06;8;1\n")
    assert rtt.date_ms.tolist() == [999996.0, 1e6, 1000010.0]


def test_a_sipp_file_as_a_trace_gives_its_response_times_in_time_order():
    """``rtt_trace`` makes the file a ``sipp_rtt`` trace whose one metric is every response time,
    timed by when SIPp measured it; a warm-up in the header drops the rows measured before it."""
    from vsim.traces.sipp_rtt import rtt_trace
    from vsim.traces.trace_metrics import trace_samples
    rtt = parse_sipp_rtt("Date_ms;response_time_ms;rtd_no\n500;4;1\n1500;0;1\n2500;8;1\n")
    samples = trace_samples(rtt_trace(rtt), "rtt.csv")["response_time_ms"]
    assert samples.values.tolist() == [4.0, 0.0, 8.0] and samples.times.tolist() == [0.5, 1.5, 2.5]
    kept = trace_samples(rtt_trace(rtt, {"warmup_s": "1"}), "rtt.csv")["response_time_ms"]
    assert kept.values.tolist() == [0.0, 8.0]
