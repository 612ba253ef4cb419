"""Tests for validating nested config tables into typed dataclasses."""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field
from typing import Literal, Optional

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vsim.core.errors import InputError
from vsim.config.typed import describe, fail, from_dict, join_path

SOURCE = "configs/example.toml"


@dataclass(frozen=True)
class Stream:
    """One media stream of a workload."""

    rate: float = field(metadata={"min": 0, "min_exclusive": True, "unit": "bit/s", "doc": "payload rate"})
    codec: Literal["g711", "opus"] = "opus"


@dataclass(frozen=True)
class Workload:
    """A guest with its streams."""

    name: str
    streams: list[Stream]
    weights: tuple[float, ...] = field(default=(), metadata={"min": 0, "max": 1})
    priority: int | None = None


@dataclass(frozen=True)
class Host:
    """The physical host."""

    cores: int = field(default=4, metadata={"min": 1, "max": 256, "doc": "physical cores"})
    scheduler: Literal["fifo", "netioc"] = "fifo"
    smt: bool = False


@dataclass(frozen=True)
class Scenario:
    """Top of the example schema."""

    name: str
    host: Host = field(default_factory=Host)
    workloads: list[Workload] = ()
    labels: dict[str, str] = field(default_factory=dict)
    duration: float = field(default=10.0, metadata={"min": 0, "min_exclusive": True, "unit": "s"})
    seed: Optional[int] = None

    def validate(self, source, path):
        names = [workload.name for workload in self.workloads]
        for i, name in enumerate(names):
            if name in names[:i]:
                fail(source, f"{join_path(path, 'workloads')}[{i}].name", f"a unique name, '{name}' is used twice")


@dataclass(frozen=True)
class Leaf:
    """A table whose own check reports a key below its path."""

    x: int = 0

    def validate(self, source, path):
        if self.x < 0:
            fail(source, join_path(path, "x"), f"a non-negative x, got {self.x}")


@dataclass(frozen=True)
class Pool:
    """A list of checked tables."""

    leaves: list[Leaf] = ()


def load(data, cls=Scenario):
    return from_dict(cls, data, source=SOURCE)


def error_of(data, cls=Scenario):
    with pytest.raises(InputError) as info:
        load(data, cls)
    return info.value


# Valid configs of the example schema.
NAMES = st.text(alphabet="abcdefgh", min_size=1, max_size=6)
STREAMS = st.fixed_dictionaries(
    {"rate": st.floats(min_value=0, exclude_min=True, allow_infinity=False) | st.integers(min_value=1)},
    optional={"codec": st.sampled_from(["g711", "opus"])},
)


def workloads(min_size):
    """Strategy of workload tables, each with at least ``min_size`` streams."""
    return st.fixed_dictionaries(
        {"name": NAMES, "streams": st.lists(STREAMS, min_size=min_size, max_size=3)},
        optional={
            "weights": st.lists(st.floats(min_value=0, max_value=1) | st.integers(0, 1), max_size=3),
            "priority": st.integers(),
        },
    )


HOSTS = st.fixed_dictionaries(
    {},
    optional={"cores": st.integers(1, 256), "scheduler": st.sampled_from(["fifo", "netioc"]), "smt": st.booleans()},
)
OPTIONAL_TOP_KEYS = {
    "labels": st.dictionaries(st.text(max_size=5), st.text(max_size=5), max_size=3),
    "duration": st.floats(min_value=0, exclude_min=True, allow_infinity=False),
    "seed": st.integers(),
}
SCENARIOS = st.fixed_dictionaries(
    {"name": st.text(max_size=10)},
    optional={
        "host": HOSTS,
        "workloads": st.lists(workloads(0), max_size=3, unique_by=lambda w: w["name"]),
        **OPTIONAL_TOP_KEYS,
    },
)
DEEP_SCENARIOS = st.fixed_dictionaries(
    {
        "name": st.text(max_size=10),
        "host": HOSTS,
        "workloads": st.lists(workloads(1), min_size=1, max_size=3, unique_by=lambda w: w["name"]),
    },
    optional=OPTIONAL_TOP_KEYS,
)


def assert_matches(obj, data, cls):
    """Every key given in ``data`` is on ``obj`` with an equal value; absent keys hold defaults."""
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        value = getattr(obj, f.name)
        if f.name not in data:
            default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
            assert value == default
            continue
        given_value, hint = data[f.name], hints[f.name]
        inner = typing.get_args(hint)[0] if typing.get_origin(hint) in (list, tuple) else None
        if dataclasses.is_dataclass(hint):
            assert_matches(value, given_value, hint)
        elif dataclasses.is_dataclass(inner):
            assert isinstance(value, tuple) and len(value) == len(given_value)
            for item, given_item in zip(value, given_value):
                assert_matches(item, given_item, inner)
        elif inner is float:
            assert value == tuple(float(x) for x in given_value)
        elif inner is not None:
            assert value == tuple(given_value)
        elif hint is float:
            assert value == float(given_value)
        else:
            assert value == given_value
        if hint is float or inner is float:
            assert all(type(x) is float for x in (value if inner else [value]))


@given(SCENARIOS)
def test_valid_configs_round_trip(data):
    assert_matches(load(data), data, Scenario)


def tables(cls, data, path=""):
    """Every (key path, table, dataclass) of a valid config, the document first."""
    yield path, data, cls
    hints = typing.get_type_hints(cls)
    for name, value in data.items():
        hint, sub = hints[name], join_path(path, name)
        if dataclasses.is_dataclass(hint):
            yield from tables(hint, value, sub)
        elif typing.get_origin(hint) is list and dataclasses.is_dataclass(typing.get_args(hint)[0]):
            for i, item in enumerate(value):
                yield from tables(typing.get_args(hint)[0], item, f"{sub}[{i}]")


def wrong_values(hint):
    """Values that are never acceptable for a field annotated ``hint``."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        hint = next(arg for arg in typing.get_args(hint) if arg is not type(None))
    scalars = {
        int: ["7", 2.5, True, [1], {"a": 1}],
        float: ["7", True, False, [1.0], {"a": 1}],
        bool: ["true", 0, 1, 1.0, [True]],
        str: [3, 1.5, True, ["a"], {"a": "b"}],
    }
    if hint in scalars:
        return scalars[hint]
    if typing.get_origin(hint) is Literal:
        return ["other", "FIFO", 1, True, ["fifo"]]
    if typing.get_origin(hint) in (list, tuple):
        return ["text", 3, 1.5, True, {"a": 1}]
    return ["text", 3, 1.5, True, [1]]


def out_of_bounds(meta, integral):
    """Strategy of numbers violating the bounds in ``meta``."""
    low, high = meta.get("min"), meta.get("max")
    low_ok, high_ok = not meta.get("min_exclusive"), not meta.get("max_exclusive")
    options = []
    if integral:
        if low is not None:
            options.append(st.integers(max_value=low - 1 if low_ok else low))
        if high is not None:
            options.append(st.integers(min_value=high + 1 if high_ok else high))
    else:
        if low is not None:
            options.append(st.floats(max_value=low, exclude_max=low_ok))
        if high is not None:
            options.append(st.floats(min_value=high, exclude_min=high_ok))
    return st.one_of(options)


@st.composite
def broken_configs(draw):
    """A valid config with exactly one defect, and the key path of that defect."""
    data = draw(DEEP_SCENARIOS | SCENARIOS)
    path, table, cls = draw(st.sampled_from(list(tables(Scenario, data))[::-1]))
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    required = [name for name, f in fields.items() if f.default is f.default_factory is dataclasses.MISSING]
    bounded = [name for name, f in fields.items() if "min" in f.metadata or "max" in f.metadata]
    defects = ["extra"] + ["type"] * bool(table) + ["missing"] * bool(required) + ["bounds"] * bool(bounded)
    defect = draw(st.sampled_from(defects))
    if defect == "extra":
        key = draw(st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True).filter(lambda k: k not in fields))
        table[key] = draw(st.integers() | st.text())
        return data, join_path(path, key)
    if defect == "missing":
        name = draw(st.sampled_from(required))
        del table[name]
        return data, join_path(path, name)
    if defect == "type":
        name = draw(st.sampled_from(sorted(table)))
        table[name] = draw(st.sampled_from(wrong_values(hints[name])))
        return data, join_path(path, name)
    name = draw(st.sampled_from(bounded))
    hint = hints[name]
    if hint in (int, float):
        table[name] = draw(out_of_bounds(fields[name].metadata, hint is int))
        return data, join_path(path, name)
    items = draw(st.lists(st.just(0.5), max_size=3))
    index = draw(st.integers(0, len(items)))
    items.insert(index, draw(out_of_bounds(fields[name].metadata, False)))
    table[name] = items
    return data, f"{join_path(path, name)}[{index}]"


@settings(max_examples=300)
@given(broken_configs())
def test_broken_configs_raise_one_line_error_naming_file_and_key(case):
    data, key_path = case
    err = error_of(data)
    message = str(err)
    assert "\n" not in message
    assert SOURCE in message
    assert key_path in message
    assert err.where == key_path


def test_misspelt_key_suggests_the_close_one():
    err = error_of({"name": "x", "workloads": [{"name": "a", "strems": []}]})
    assert err.where == "workloads[0].strems"
    assert err.expected == "unknown key; did you mean 'streams'?"


def test_unknown_key_with_nothing_close_lists_the_keys():
    err = error_of({"zzz": 1}, Host)
    assert str(err) == f"{SOURCE}: zzz: unknown key; expected one of: cores, scheduler, smt"


@dataclass(frozen=True)
class Guest:
    """A guest table beside ``Host``."""

    vcpus: int = 1
    smt: bool = False


@dataclass(frozen=True)
class Machine:
    """Two sibling tables: a key of one written in the other is pointed home."""

    host: Host = field(default_factory=Host)
    guest: Optional[Guest] = None


def test_a_key_of_a_sibling_table_names_the_table_it_belongs_in():
    err = error_of({"guest": {"cores": 8}}, Machine)
    assert str(err) == f"{SOURCE}: guest.cores: unknown key here; it belongs in [host]"
    err = error_of({"host": {"vcpus": 2}}, Machine)
    assert err.where == "host.vcpus" and err.expected.endswith("it belongs in [guest]")
    # a key both tables know is no mistake, and an unknown one keeps the generic message
    assert from_dict(Machine, {"host": {"smt": True}, "guest": {"smt": True}}, source=SOURCE).guest.smt
    assert error_of({"guest": {"zzz": 1}}, Machine).expected.startswith("unknown key; expected one of")


def test_missing_required_key_describes_the_expected_type():
    err = error_of({"name": "x", "workloads": [{"name": "a"}]})
    assert str(err) == f"{SOURCE}: workloads[0].streams: missing required key (expected a list of tables)"


def test_bool_is_not_a_number():
    err = error_of({"name": "x", "duration": True})
    assert str(err) == f"{SOURCE}: duration: expected a number > 0 (s), got bool True"


def test_int_is_accepted_as_float():
    scenario = load({"name": "x", "duration": 3})
    assert scenario.duration == 3.0 and type(scenario.duration) is float


def test_integer_too_large_for_a_number_is_an_input_error():
    err = error_of({"rate": 10**400}, Stream)
    assert str(err) == f"{SOURCE}: rate: expected a number > 0 (bit/s), got an integer too large for a number"


def test_float_is_not_an_int():
    err = error_of({"cores": 2.0}, Host)
    assert err.expected == "expected an integer >= 1 and <= 256, got float 2.0"


def test_bound_violation_message():
    err = error_of({"rate": -3}, Stream)
    assert str(err) == f"{SOURCE}: rate: expected a number > 0 (bit/s), got -3"


def test_exclusive_bound_rejects_the_bound_itself():
    assert error_of({"rate": 0}, Stream).where == "rate"


def test_nan_violates_bounds():
    assert error_of({"rate": float("nan")}, Stream).where == "rate"


def test_bounds_apply_to_list_elements():
    err = error_of({"name": "w", "streams": [], "weights": [0.5, 1.5]}, Workload)
    assert err.where == "weights[1]"
    assert err.expected == "expected a number >= 0 and <= 1, got 1.5"


def test_literal_is_checked():
    err = error_of({"name": "x", "host": {"scheduler": "cfs"}})
    assert str(err) == f"{SOURCE}: host.scheduler: expected one of 'fifo', 'netioc', got str 'cfs'"


def test_list_element_type_error_path():
    workloads = [{"name": "a", "streams": []}, {"name": "b", "streams": [{"rate": "fast"}]}]
    err = error_of({"name": "x", "workloads": workloads})
    assert str(err) == f"{SOURCE}: workloads[1].streams[0].rate: expected a number > 0 (bit/s), got str 'fast'"


def test_table_expected():
    err = error_of({"name": "x", "host": 4})
    assert err.where == "host" and err.expected == "expected a table, got int 4"


def test_document_must_be_a_table():
    err = error_of([1, 2])
    assert str(err) == f"{SOURCE}: expected a table, got list [1, 2]"


def test_dict_values_are_checked_and_odd_keys_are_quoted():
    err = error_of({"name": "x", "labels": {"ok": "y", "a.b": 3}})
    assert str(err) == f'{SOURCE}: labels."a.b": expected a string, got int 3'


def test_long_values_are_truncated():
    err = error_of({"name": "x" * 100, "host": {"cores": "y" * 100}})
    assert err.expected == "expected an integer >= 1 and <= 256, got str '" + "y" * 36 + "..."


def test_optional_is_none_when_absent_and_checked_when_present():
    assert load({"name": "x"}).seed is None
    assert load({"name": "x", "seed": 5}).seed == 5
    assert error_of({"name": "x", "seed": "5"}).expected == "expected an integer, got str '5'"


def test_lists_are_stored_as_tuples():
    workload = load({"name": "w", "streams": [{"rate": 1}], "weights": [1]}, Workload)
    assert workload.streams == (Stream(rate=1.0),)
    assert workload.weights == (1.0,)


def test_result_is_frozen():
    scenario = load({"name": "x"})
    with pytest.raises(dataclasses.FrozenInstanceError):
        scenario.name = "y"


def test_validate_runs_after_construction_with_the_table_path():
    data = {"name": "x", "workloads": [{"name": "a", "streams": []}, {"name": "a", "streams": []}]}
    err = error_of(data)
    assert str(err) == f"{SOURCE}: workloads[1].name: a unique name, 'a' is used twice"


def test_validate_receives_nested_path():
    with pytest.raises(InputError) as info:
        from_dict(Pool, {"leaves": [{"x": 1}, {"x": -1}]}, source="f.toml", path="top")
    assert str(info.value) == "f.toml: top.leaves[1].x: a non-negative x, got -1"


def test_fail_raises_input_error():
    with pytest.raises(InputError) as info:
        fail("f.toml", "a.b", "a positive rate")
    assert str(info.value) == "f.toml: a.b: a positive rate"


def test_unsupported_annotation_is_a_programming_error():
    @dataclass
    class Bad:
        x: int | list[int] = 0

    with pytest.raises(TypeError):
        from_dict(Bad, {"x": 1}, source=SOURCE)


def test_not_a_dataclass_is_a_programming_error():
    with pytest.raises(TypeError):
        from_dict(dict, {}, source=SOURCE)


def test_describe_lists_every_key():
    rows = {row[0]: row[1:] for row in describe(Scenario)}
    assert rows["name"] == ("a string", "required", "")
    assert rows["host"] == ("a table", repr(Host()), "")
    assert rows["host.cores"] == ("an integer >= 1 and <= 256", "4", "physical cores")
    assert rows["host.scheduler"] == ("one of 'fifo', 'netioc'", "'fifo'", "")
    assert rows["workloads"] == ("a list of tables", "()", "")
    assert rows["workloads[].streams"] == ("a list of tables", "required", "")
    assert rows["workloads[].streams[].rate"] == ("a number > 0 (bit/s)", "required", "payload rate")
    assert rows["workloads[].weights"] == ("a list of numbers >= 0 and <= 1", "()", "")
    assert rows["labels"] == ("a table of strings", "{}", "")
    assert rows["duration"] == ("a number > 0 (s)", "10.0", "")
    assert rows["seed"] == ("an integer", "None", "")
    assert list(rows)[:3] == ["name", "host", "host.cores"]
