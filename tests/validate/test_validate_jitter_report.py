"""Tests of ``vsim jitter``: the table, the JSON, determinism and one-line errors."""

import json

from rtp_captures import scenario_delays, voice_stream, write_capture
from vsim import cli


def _run(capsys, *args):
    code = cli.main(["jitter", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def _capture(tmp_path):
    packets = voice_stream(scenario_delays("uniform"), lost=(7,)) + voice_stream(
        scenario_delays("spikes"), ssrc=0x99, ports=(41000, 41002), payload_type=8)
    return write_capture(tmp_path / "call.pcap", packets)


def test_table_has_one_row_per_stream_in_order_of_first_packet(tmp_path, capsys):
    code, out, err = _run(capsys, _capture(tmp_path))
    lines = out.splitlines()
    assert code == 0 and err == ""
    assert lines[0].endswith("2 RTP streams (RFC 3550 jitter, tshark -z rtp,streams conventions)")
    assert "Max Jitter(ms)" in lines[1] and "Mean Jitter(ms)" in lines[1]
    assert "0x00000099" in lines[2] and "g711A" in lines[2]  # its first packet arrives 3 ms earlier
    assert "0x1234ABCD" in lines[3] and "1 (0.2%)" in lines[3] and "g711U" in lines[3]


def test_json_is_written_atomically_and_identically_twice(tmp_path, capsys):
    capture = _capture(tmp_path)
    assert _run(capsys, capture, "--json", tmp_path / "a.json")[0] == 0
    assert _run(capsys, capture, "--json", tmp_path / "b.json")[0] == 0
    text = (tmp_path / "a.json").read_text()
    assert text == (tmp_path / "b.json").read_text()
    doc = json.loads(text)
    assert [s["ssrc"] for s in doc["streams"]] == ["0x00000099", "0x1234ABCD"]
    assert doc["streams"][1]["lost"] == 1 and doc["streams"][1]["mean_jitter_ms"] > 0
    code, out, _ = _run(capsys, capture, "--json", "-")
    assert code == 0 and json.loads(out) == doc


def test_a_csv_is_refused_in_one_line(tmp_path, capsys):
    path = tmp_path / "rtt.csv"
    path.write_text("Date_ms;response_time_ms;rtd_no\n1;2;1\n")
    code, out, err = _run(capsys, path)
    assert code == 2 and out == ""
    assert err == f"vsim: error: {path}: expected a pcap capture or a pcapng capture, found a SIPp -trace_rtt CSV\n"


def test_a_capture_without_rtp_is_refused(tmp_path, capsys):
    path = write_capture(tmp_path / "empty.pcap", [], extra=[(1.0, bytes(60))])
    code, _, err = _run(capsys, path)
    assert code == 2 and "found none" in err and len(err.splitlines()) == 1


def test_a_capture_cut_short_in_its_last_packet_is_read_up_to_it_with_a_note(tmp_path, capsys):
    path = _capture(tmp_path)
    whole = _run(capsys, path, "--json", "-")[1]
    path.write_bytes(path.read_bytes()[:-3])
    code, out, err = _run(capsys, path, "--json", "-")
    assert code == 0
    assert err == (f"vsim: note: {path}: packet 999: expected 214 bytes of packet data, the file ends after "
                   f"211 (truncated?); read the 998 packets before it, as tshark does\n")
    cut, full = json.loads(out)["streams"], json.loads(whole)["streams"]
    assert sum(s["packets"] for s in cut) == sum(s["packets"] for s in full) - 1


def test_a_capture_cut_short_in_its_first_packet_is_refused(tmp_path, capsys):
    path = _capture(tmp_path)
    path.write_bytes(path.read_bytes()[:24 + 16 + 10])
    code, _, err = _run(capsys, path)
    assert code == 2 and ": packet 1: expected " in err and len(err.splitlines()) == 1


def test_a_text_file_is_named_text_and_not_quoted(tmp_path, capsys):
    path = tmp_path / "notes.md"
    path.write_text("# vsim — what over-commitment costs\n", encoding="utf-8")
    code, _, err = _run(capsys, path)
    assert code == 2 and len(err.splitlines()) == 1
    assert err.endswith("found text of another kind\n") and "over-commitment" not in err


def test_an_empty_or_foreign_file_is_told_jitter_takes_captures_only(tmp_path, capsys):
    """It listed tshark, esxtop and SIPp files as what was expected."""
    empty, text = tmp_path / "empty.pcap", tmp_path / "text.pcap"
    empty.write_bytes(b"")
    text.write_text("hello\n")
    for path, found in ((empty, "empty file; expected a pcap capture or a pcapng capture"),
                        (text, "expected a pcap capture or a pcapng capture, found text of another kind")):
        code, out, err = _run(capsys, path)
        assert code == 2 and out == "" and err == f"vsim: error: {path}: {found}\n"
