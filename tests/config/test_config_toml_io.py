"""Tests for reading TOML files and applying ``--set`` overrides."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vsim.core.errors import InputError
from vsim.config.toml_io import apply_overrides, load_toml


def write(tmp_path, content, name="scenario.toml"):
    path = tmp_path / name
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


def test_load_toml_reads_tables(tmp_path):
    path = write(tmp_path, 'name = "voip"\n[host]\ncores = 8\n')
    assert load_toml(path) == {"name": "voip", "host": {"cores": 8}}


def test_load_toml_accepts_str_path(tmp_path):
    path = write(tmp_path, "a = 1\n")
    assert load_toml(str(path)) == {"a": 1}


def test_missing_file(tmp_path):
    path = tmp_path / "absent.toml"
    with pytest.raises(InputError) as info:
        load_toml(path)
    assert str(info.value) == f"{path}: file not found"


def test_directory_is_reported(tmp_path):
    with pytest.raises(InputError) as info:
        load_toml(tmp_path)
    assert str(info.value).startswith(f"{tmp_path}: cannot read file")


def test_malformed_file_names_line_and_parser_message(tmp_path):
    path = write(tmp_path, "a = 1\nb = 2\ncores 8\n")
    with pytest.raises(InputError) as info:
        load_toml(path)
    err = info.value
    assert err.where == "line 3"
    assert err.expected.startswith("invalid TOML: Expected '=' after a key")
    assert "column" in err.expected
    assert str(err).startswith(f"{path}: line 3: invalid TOML: ")
    assert "\n" not in str(err)


def test_error_at_end_of_document_names_last_line(tmp_path):
    path = write(tmp_path, 'a = 1\nname = "unterminated\n')
    with pytest.raises(InputError) as info:
        load_toml(path)
    assert info.value.where == "line 2"
    assert info.value.expected.startswith("invalid TOML: ")
    assert "(at end of document)" not in info.value.expected


def test_non_utf8_file(tmp_path):
    path = write(tmp_path, b'a = 1\nname = "caf\xe9"\n')
    with pytest.raises(InputError) as info:
        load_toml(path)
    assert info.value.where == "line 2"
    assert "UTF-8" in info.value.expected
    assert str(path) in str(info.value)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("3", 3),
        ("2.5", 2.5),
        ("true", True),
        ("[1,2]", [1, 2]),
        ('"quoted"', "quoted"),
        ("foo", "foo"),
        ("", ""),
        ("a=b", "a=b"),
        ("1\nextra = 2", "1\nextra = 2"),
        ("{ x = 1 }", {"x": 1}),
    ],
)
def test_override_values_are_parsed_as_toml_or_kept_as_text(text, value):
    result = apply_overrides({}, [f"a.b={text}"])
    assert result == {"a": {"b": value}}
    assert type(result["a"]["b"]) is type(value)


def test_override_replaces_existing_and_keeps_siblings():
    data = {"host": {"cores": 4, "smt": False}, "name": "x"}
    result = apply_overrides(data, ["host.cores=16", "name=voip"])
    assert result == {"host": {"cores": 16, "smt": False}, "name": "voip"}


def test_override_does_not_touch_the_input():
    data = {"host": {"cores": 4}}
    apply_overrides(data, ["host.cores=16", "host.extra.deep=1"])
    assert data == {"host": {"cores": 4}}


def test_override_creates_intermediate_tables():
    assert apply_overrides({"a": {}}, ["a.b.c.d=1"]) == {"a": {"b": {"c": {"d": 1}}}}


def test_override_strips_spaces_around_key_and_value():
    assert apply_overrides({}, [" a . b = 7 "]) == {"a": {"b": 7}}


@pytest.mark.parametrize("assignment", ["novalue", "=3", "a..b=1", "a.=1", ".a=1", " =1"])
def test_malformed_assignment(assignment):
    with pytest.raises(InputError) as info:
        apply_overrides({}, [assignment], source="--set")
    assert str(info.value) == f"--set {assignment}: expected dotted.key=value"


def test_setting_under_a_non_table_is_rejected():
    with pytest.raises(InputError) as info:
        apply_overrides({"a": {"b": 3}}, ["a.b.c=1"])
    err = info.value
    assert err.source == "--set a.b.c=1"  # as an error at a key a --set set
    assert err.where == "a.b.c"
    assert err.expected.startswith("'a.b' holds int 3, not a table")


@given(st.integers())
def test_integer_overrides_round_trip(number):
    assert apply_overrides({}, [f"x.y={number}"])["x"]["y"] == number


WORDS = st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True).filter(
    lambda word: word not in {"true", "false", "inf", "nan"}
)


@given(WORDS)
def test_bare_words_are_kept_as_strings(word):
    assert apply_overrides({}, [f"name={word}"]) == {"name": word}


TREE = {"group": [{"name": "voice", "count": 1},
                  {"name": "flood", "count": 1, "traffic": {"kind": "udp_flood", "params": {"pps": 5.0}}}],
        "netioc": {"node": [{"name": "voip", "shares": 50.0}, {"name": "flood", "shares": 50.0}]}}


@pytest.mark.parametrize("assignment, path, value", [
    ("group.flood.count=2", ("group", 1, "count"), 2),
    ("group.voice.vcpus=4", ("group", 0, "vcpus"), 4),
    ("group.flood.traffic.params.pps=7.5", ("group", 1, "traffic", "params", "pps"), 7.5),
    ("netioc.node.voip.reservation_mbps=100", ("netioc", "node", 0, "reservation_mbps"), 100),
    ("netioc.node.flood.shares=25.0", ("netioc", "node", 1, "shares"), 25.0),
])
def test_a_table_of_an_array_is_reached_by_its_name(assignment, path, value):
    result = apply_overrides(TREE, [assignment])
    table = result
    for part in path:
        table = table[part]
    assert table == value
    assert TREE["group"][1]["count"] == 1 and "reservation_mbps" not in TREE["netioc"]["node"][0]


@pytest.mark.parametrize("assignment, names", [
    ("group.flod.count=2", "(voice, flood)"),
    ("netioc.node.voice.shares=1", "(voip, flood)"),
    ("htb.node.voip.rate_mbps=1", "(none: the scenario has no [[htb.node]])"),
])
def test_an_unknown_table_name_is_one_line_naming_the_key_and_the_names(assignment, names):
    with pytest.raises(InputError) as info:
        apply_overrides(TREE, [assignment])
    err = info.value
    assert (err.source, err.where) == (f"--set {assignment}", assignment.partition("=")[0])
    assert names in err.expected and repr(assignment.partition("=")[0]) in err.expected
    assert "{" not in str(err) and "\n" not in str(err)


def test_an_array_of_tables_is_named_without_its_contents():
    with pytest.raises(InputError) as info:
        apply_overrides(TREE, ["group.flood=3"])
    assert info.value.expected == ("'group' holds an array, not a table, so it has no keys; reach "
                                   "one of its tables by name, group.NAME.KEY")
