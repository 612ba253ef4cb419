"""Tests of vsim's own trace format: round trips and one-line errors on bad files."""

import gzip
import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

from vsim.core.errors import InputError
from vsim.traces.vsim_trace import MAGIC, parse_trace, read_trace, trace_text, write_trace

finite = st.floats(min_value=0, max_value=1e6, allow_nan=False)


@given(st.lists(st.tuples(st.integers(0, 10**6), finite, finite), max_size=30, unique_by=lambda row: row[0]))
def test_timer_trace_round_trips_exactly(rows):
    columns = {"thread": [0] * len(rows), "tick": [r[0] for r in rows],
               "scheduled_s": [r[1] for r in rows], "lateness_s": [r[2] for r in rows]}
    trace = parse_trace(trace_text("timer", columns, {"command": "x --y 1"}))
    assert trace.kind == "timer" and trace.meta["command"] == "x --y 1"
    assert len(trace) == len(rows)
    assert trace.columns["tick"].tolist() == columns["tick"]
    assert trace.columns["scheduled_s"].tolist() == columns["scheduled_s"]


def test_lost_packet_has_no_arrival_and_survives_a_file_round_trip(tmp_path):
    columns = {"stream": ["0x1", "0x1"], "class": ["voice"] * 2, "seq": [1, 2],
               "rtp_timestamp": [160, 320], "send_s": [0.0, 0.02], "arrival_s": [0.001, math.nan],
               "size_bytes": [78, 78]}
    path = tmp_path / "p.csv"
    write_trace(path, "packets", columns)
    trace = read_trace(path)
    assert trace.columns["stream"] == ["0x1", "0x1"]
    assert trace.columns["arrival_s"][0] == 0.001 and np.isnan(trace.columns["arrival_s"][1])


@pytest.mark.parametrize("text, where, words", [
    ("", None, "empty file"),
    ("time,value\n1,2\n", "line 1", "not a vsim trace"),
    (f"{MAGIC}\n# kind: timer\n", "line 2", "truncated"),
    (f"{MAGIC}\n# kind: sound\nx\n", "kind", "one of"),
    (f"{MAGIC}\n# kind: timer\nthread,tick\n", "line 3", "header"),
    (f"{MAGIC}\n# kind: timer\nthread,tick,scheduled_s,lateness_s\n0,1,0.02\n", "line 4", "3"),
    (f"{MAGIC}\n# kind: timer\nthread,tick,scheduled_s,lateness_s\n0,x,0.02,0\n", "line 4", "integer"),
    (f"{MAGIC}\n# kind: timer\nthread,tick,scheduled_s,lateness_s\n0,1,,0\n", "line 4", "none"),
    (f"{MAGIC}\n# kind: timer\nthread,tick,scheduled_s,lateness_s\n0,1,0.02,0,7\n", "line 4", "quote it"),
    (f"{MAGIC}\n# period_s: 0.02\nthread\n", "kind", "found none"),
    (f"{MAGIC}\n# kind: timer\n# kind: timer\nx\n", "line 3", "once"),
    (f"{MAGIC}\n# kind: timer\nthread,tick,scheduled_s,lateness_s\n0,0,0.02,0\n0,1,0.04,-1e-05\n",
     "line 5", "lateness_s >= 0"),
    (f"{MAGIC}\n# kind: timer\nthread,tick,scheduled_s,lateness_s\n0,0,-0.02,0\n", "line 4", "scheduled_s >= 0"),
    (f"{MAGIC}\n# kind: timer\nthread,tick,scheduled_s,lateness_s\n0,3,0.02,0\n1,3,0.02,0\n0,3,0.06,0\n",
     "line 6", "thread 0, tick 3 is also on line 4"),
    (f"{MAGIC}\n# kind: packets\nstream,class,seq,rtp_timestamp,send_s,arrival_s,size_bytes\n"
     "0x1,voice,1,160,0.0,0.001,-78\n", "line 4", "size_bytes >= 1"),
    (f"{MAGIC}\n# kind: packets\nstream,class,seq,rtp_timestamp,send_s,arrival_s,size_bytes\n"
     "0x1,voice,1,4294967301,0.0,0.001,78\n", "line 4", "rtp_timestamp <= 4.29497e+09"),
    (f"{MAGIC}\n# kind: packets\nstream,class,seq,rtp_timestamp,send_s,arrival_s,size_bytes\n"
     "0x1,voice,1,99999999999999999999,0.0,0.001,78\n", "line 4", "64-bit integer"),
    (f"{MAGIC}\n# kind: packets\nstream,class,seq,rtp_timestamp,send_s,arrival_s,size_bytes\n"
     "0x1,voice,1,160,0.0,1e300,78\n", "line 4", "a time within 1e+10 s in column 'arrival_s'"),
    (f"{MAGIC}\n# kind: cpu_ticks\nvm,worker,tick,scheduled_s,start_s,end_s\nvm0,0,0,0.02,0.019,0.03\n",
     "line 4", "start_s >= scheduled_s"),
    (f"{MAGIC}\n# kind: cpu_ticks\nvm,worker,tick,scheduled_s,start_s,end_s\nvm0,0,0,0.02,0.021,0.0205\n",
     "line 4", "end_s >= start_s"),
    ("# vsim-trace 2\n# kind: timer\nthread,tick,scheduled_s,lateness_s\n", "line 1",
     "unsupported vsim trace version 2 (this vsim reads version 1)"),
    (f"{MAGIC}\n# kind: timer\nthread,tick,scheduled_s,lateness_s\n\n# note\n0,0,0.02,0\n\n0,0,0.04,0\n",
     "line 8", "thread 0, tick 0 is also on line 6"),
    (f"{MAGIC}\n# kind: timer\nthread,tick,scheduled_s,lateness_s\n# note\n0,x,0.02,0\n", "line 5", "integer"),
])
def test_bad_files_name_the_line_and_the_expectation(text, where, words):
    with pytest.raises(InputError) as info:
        parse_trace(text, "t.csv")
    assert info.value.source == "t.csv" and info.value.where == where
    assert words in info.value.expected


def test_unreadable_and_binary_files_are_input_errors(tmp_path):
    with pytest.raises(InputError, match="cannot read"):
        read_trace(tmp_path / "missing.csv")
    binary = tmp_path / "b.csv"
    binary.write_bytes(b"\xd4\xc3\xb2\xa1\x02\x00\x04\x00\xff\xfe")
    with pytest.raises(InputError, match="binary"):
        read_trace(binary)


def test_a_packet_may_arrive_before_its_send_time_on_another_clock():
    text = (f"{MAGIC}\n# kind: packets\nstream,class,seq,rtp_timestamp,send_s,arrival_s,size_bytes\n"
            "0x1,voice,1,160,5.0,0.001,78\n")
    assert parse_trace(text).columns["arrival_s"].tolist() == [0.001]


def test_blank_lines_and_comments_among_the_rows_are_skipped():
    text = (f"{MAGIC}\n# kind: timer\n\nthread,tick,scheduled_s,lateness_s\n0,0,0.02,1e-05\n\n"
            "# the load started here\n   \n0,1,0.04,2e-05\n")
    trace = parse_trace(text)
    assert trace.meta == {"kind": "timer"} and trace.columns["tick"].tolist() == [0, 1]


def test_a_value_starting_with_a_hash_is_quoted_so_it_is_not_a_comment():
    columns = {"vm": ["#1", "vm"], "worker": [0, 0], "tick": [0, 0], "scheduled_s": [0.0, 0.0],
               "start_s": [0.001, 0.001], "end_s": [0.002, 0.002]}
    text = trace_text("cpu_ticks", columns)
    assert '"#1"' in text and parse_trace(text).columns["vm"] == ["#1", "vm"]


def test_a_byte_order_mark_is_dropped(tmp_path):
    path = tmp_path / "bom.csv"
    path.write_bytes(b"\xef\xbb\xbf" + trace_text("timer", {"thread": [0], "tick": [0], "scheduled_s": [0.02],
                                                          "lateness_s": [0.0]}).encode())
    assert read_trace(path).columns["scheduled_s"].tolist() == [0.02]


def test_a_gzip_compressed_trace_is_named_as_such(tmp_path):
    path = tmp_path / "t.csv.gz"
    path.write_bytes(gzip.compress(f"{MAGIC}\n# kind: timer\nthread,tick,scheduled_s,lateness_s\n".encode()))
    with pytest.raises(InputError, match="t.csv.gz: expected a text vsim trace, found a gzip-compressed "
                                         r"file; decompress it into a file first \(gunzip -k FILE\)"):
        read_trace(path)
