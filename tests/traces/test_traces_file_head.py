"""The first bytes of a file of another kind in an error message: whether it is text or binary, nothing quoted."""

from hypothesis import given, strategies as st

from vsim.traces.file_head import describe_head


def test_text_is_named_text_and_not_quoted():
    assert describe_head("root:x:0:0:root — what".encode()) == "text of another kind"
    assert describe_head(b"a,b\nc") == "text of another kind"


def test_a_character_cut_at_the_end_of_the_head_is_still_text():
    raw = "ab—cd".encode()[:4]  # the dash is 3 bytes: 2..4
    assert describe_head(raw) == "text of another kind"


def test_binary_is_named_binary():
    assert describe_head(b"\x89PNG\r\n\x1a\n") == "binary data of another kind"
    assert describe_head(b"\x00\x01\x02") == "binary data of another kind"


@given(st.binary(min_size=1, max_size=64))
def test_no_byte_of_the_file_is_shown(raw):
    assert describe_head(raw) in ("text of another kind", "binary data of another kind")
