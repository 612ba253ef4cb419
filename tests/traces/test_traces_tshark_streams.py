"""Tests of the tshark ``-z rtp,streams`` table reader: both layouts, and one-line errors."""

import pytest

from vsim.core.errors import InputError
from vsim.traces.tshark_streams import parse_tshark_streams, read_tshark_streams

# As tshark 4.0 prints it (two streams; the second with a problem flag and two payload names).
TSHARK_4 = """\
========================= RTP Streams ========================
   Start time      End time     Src IP addr  Port    Dest IP addr  Port       SSRC          Payload  Pkts         Lost   Min Delta(ms)  Mean Delta(ms)   Max Delta(ms)  Min Jitter(ms) Mean Jitter(ms)  Max Jitter(ms) Problems?
     0.005047      9.985701        10.0.0.1 40000        10.0.0.2 40002 0x1234ABCD            g711U   497     3 (0.6%)          16.076          20.122          60.390           0.110           1.295           1.835 X
     0.000000      9.980000     2001:db8::1 40010     2001:db8::2 40012 0x00000007        g711U, CN   500    -1 (-0.2%)           5.000          20.000          35.000           0.000           0.480           3.430 
==============================================================
"""

# The older layout (Wireshark 3.x): no start/end times, no minimum or mean delta.
TSHARK_3 = """\
========================= RTP Streams ========================
    Src IP addr  Port    Dest IP addr  Port       SSRC          Payload  Pkts         Lost   Max Delta(ms)  Max Jitter(ms) Mean Jitter(ms) Problems?
       10.0.0.1 40000        10.0.0.2 40002 0x1234ABCD  ITU-T G.711 PCMU   497     3 (0.6%)          60.390           1.835           1.295 X
==============================================================
"""


def test_tshark_4_rows_are_read():
    first, second = parse_tshark_streams(TSHARK_4)
    assert first.key == ("10.0.0.1", 40000, "10.0.0.2", 40002, 0x1234ABCD)
    assert (first.payload, first.packets, first.lost, first.lost_pct, first.problems) == ("g711U", 497, 3, 0.6, True)
    assert first.values == {"Min Delta(ms)": 16.076, "Mean Delta(ms)": 20.122, "Max Delta(ms)": 60.390,
                            "Min Jitter(ms)": 0.110, "Mean Jitter(ms)": 1.295, "Max Jitter(ms)": 1.835}
    assert (first.start_s, first.end_s) == (0.005047, 9.985701)
    assert second.key == ("2001:db8::1", 40010, "2001:db8::2", 40012, 7)
    assert (second.payload, second.lost, second.problems) == ("g711U, CN", -1, False)


def test_tshark_3_rows_are_read():
    (stream,) = parse_tshark_streams(TSHARK_3)
    assert stream.payload == "ITU-T G.711 PCMU" and stream.start_s is None
    assert stream.values == {"Max Delta(ms)": 60.390, "Max Jitter(ms)": 1.835, "Mean Jitter(ms)": 1.295}


def test_text_around_the_table_is_ignored(tmp_path):
    path = tmp_path / "out.txt"
    path.write_text("Running as user \"root\"\n" + TSHARK_4 + "\n")
    assert len(read_tshark_streams(path)) == 2


@pytest.mark.parametrize("text, where, words", [
    ("\n\n", None, "empty file"),
    ("StartTime;LastResetTime;CurrentTime;\n", "line 1", "expected a '=== RTP Streams ===' banner"),
    (TSHARK_4.splitlines()[0] + "\n", "line 2", "truncated"),
    ("\n".join(TSHARK_4.splitlines()[:3]) + "\n", "line 3", "closing '====' line"),
    (TSHARK_4.replace("497     3 (0.6%)", "497     3 0.6%"), "line 3", "expected a stream row"),
])
def test_defects_are_one_line_errors(text, where, words):
    with pytest.raises(InputError) as info:
        parse_tshark_streams(text, "t.txt")
    assert info.value.where == where and words in info.value.expected
    assert "\n" not in str(info.value)


def test_binary_file_is_refused(tmp_path):
    path = tmp_path / "x.txt"
    path.write_bytes(b"\xd4\xc3\xb2\xa1\xff\xfe")
    with pytest.raises(InputError, match="binary"):
        read_tshark_streams(path)
