"""The first bytes of a file in an error message: text as text, anything else as hex, never a bytes repr."""

from hypothesis import given, strategies as st

from vsim.traces.file_head import describe_head


def test_text_is_quoted_as_text_and_marked_when_cut():
    assert describe_head("# vsim — what".encode()) == "text starting '# vsim — what'"
    assert describe_head(b"a,b\nc", limit=4) == "text starting 'a,b\\n…'"


def test_a_character_cut_by_the_limit_is_dropped_not_escaped():
    raw = "ab—cd".encode()  # the dash is 3 bytes: 2..4
    assert describe_head(raw, limit=4) == "text starting 'ab…'"


def test_binary_is_hex():
    assert describe_head(b"\x89PNG\r\n\x1a\n", limit=8) == "bytes 89 50 4e 47 0d 0a 1a 0a"
    assert describe_head(b"\x00\x01\x02", limit=2) == "bytes 00 01 …"


@given(st.binary(min_size=1, max_size=64), st.integers(1, 40))
def test_any_bytes_give_one_readable_line(raw, limit):
    shown = describe_head(raw, limit)
    assert "\n" not in shown and "b'" not in shown and "\\x" not in shown
    assert shown.startswith(("text starting '", "bytes "))


@given(st.text(min_size=1, max_size=20).filter(str.isprintable))
def test_printable_text_is_shown_whole(text):
    assert describe_head(text.encode(), limit=200) == f"text starting '{text}'"
