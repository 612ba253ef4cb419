"""Tests of read_any: every format recognised by content, and mislabelled files refused by name."""

import gzip
import os

import pytest

from rtp_captures import voice_stream, write_capture
from esxtop_samples import esxtop_text
from test_traces_sipp_stat import TEXT as SIPP_STAT
from test_traces_tshark_streams import TSHARK_4
from vsim.core.errors import InputError
from vsim.traces.detect import FORMATS, detect_format, read_any
from vsim.traces.vsim_trace import trace_text

SIPP_RTT = "Date_ms;response_time_ms;rtd_no\n1795480210123.45;12.5;1\n"
VSIM = trace_text("timer", {"thread": [0], "tick": [0], "scheduled_s": [0.02], "lateness_s": [1e-5]})


@pytest.fixture
def files(tmp_path):
    """One file of every format, named with a neutral extension."""
    paths = {
        "pcap": write_capture(tmp_path / "a.pcap", voice_stream([0.001] * 3)),
        "pcapng": write_capture(tmp_path / "b.pcapng", voice_stream([0.001] * 3), fmt="pcapng"),
    }
    for fmt, text in (("tshark", TSHARK_4), ("esxtop", esxtop_text()), ("sipp-stat", SIPP_STAT),
                      ("sipp-rtt", SIPP_RTT), ("vsim", VSIM)):
        paths[fmt] = tmp_path / f"{fmt}.out"
        paths[fmt].write_text(text)
    return paths


def test_every_format_is_recognised_by_content_and_read(files):
    assert set(files) == set(FORMATS)
    for fmt, path in files.items():
        found, trace = read_any(path)
        assert found == fmt and len(trace) > 0


def test_a_given_format_that_matches_is_read(files):
    assert read_any(files["esxtop"], "esxtop")[0] == "esxtop"
    assert read_any(files["pcapng"], "pcap")[0] == "pcap"  # both capture formats share one reader


def _error(path, fmt=None):
    with pytest.raises(InputError) as info:
        read_any(path, fmt)
    assert "\n" not in str(info.value)
    return info.value


def test_capture_extension_on_a_csv_is_its_own_error(files, tmp_path):
    path = tmp_path / "capture.pcap"
    path.write_text(SIPP_STAT)
    error = _error(path)
    assert error.where == "file name"
    assert "named .pcap but holds a SIPp -trace_stat CSV; expected a pcap capture" in error.expected


def test_csv_extension_on_a_capture_is_its_own_error(files, tmp_path):
    path = tmp_path / "stats.csv"
    path.write_bytes(files["pcap"].read_bytes())
    expected = _error(path).expected
    assert "named .csv but holds a pcap capture" in expected
    assert expected.endswith("(rename the file to match what it holds)")  # no command has a format option


def test_given_format_contradicted_by_content(files):
    error = _error(files["sipp-rtt"], "esxtop")
    assert error.where == "fmt"
    assert "format esxtop given, but the file holds a SIPp -trace_rtt CSV" in error.expected


def test_capture_format_given_for_a_text_file(tmp_path):
    path = tmp_path / "notes"
    path.write_text("some notes about the run\n")
    error = _error(path, "pcap")
    assert error.where == "fmt" and "format pcap given, but the file holds text" in error.expected


def test_unknown_format_name_and_unknown_content(tmp_path):
    path = tmp_path / "x.dat"
    path.write_text("hello\n")
    assert "expected one of pcap, pcapng" in _error(path, "wav").expected
    error = _error(path)
    assert error.where == "line 1" and "recognised by content" in error.expected


def test_empty_and_missing_files(tmp_path):
    (tmp_path / "e.csv").write_text("")
    assert "empty file" in _error(tmp_path / "e.csv").expected
    assert "cannot read" in _error(tmp_path / "missing.pcap").expected


def test_detection_does_not_read_the_whole_file(files):
    assert detect_format(files["vsim"]) == "vsim"


def test_a_gzip_compressed_file_is_named_as_such(files, tmp_path):
    for fmt in ("pcap", "vsim"):
        path = tmp_path / f"{fmt}.gz"
        path.write_bytes(gzip.compress(files[fmt].read_bytes()))
        error = _error(path)
        assert error.where is None
        assert error.expected.endswith("found a gzip-compressed file; decompress it into a file first (gunzip -k FILE)")


def test_another_version_of_the_vsim_format_is_named_by_the_reader(tmp_path):
    path = tmp_path / "v2.csv"
    path.write_text("\ufeff# vsim-trace 2\n# kind: timer\nthread,tick,scheduled_s,lateness_s\n")
    error = _error(path)
    assert (error.where, error.expected) == ("line 1", "unsupported vsim trace version 2 (this vsim reads version 1)")


def test_a_pipe_is_refused_before_its_bytes_are_taken(tmp_path):
    """Its head was taken to tell the format, and the reader then found the rest: "expected a pcap
    magic number, found bytes 00 d5 18 ..." of a good capture."""
    fifo = tmp_path / "capture.pcap"
    os.mkfifo(fifo)
    with pytest.raises(InputError) as error:
        read_any(fifo)
    assert "a pipe or <(...) gives its bytes once: write them to a file first" in error.value.expected
