"""Each scenario table's ``validate`` rejects what it should, at the key that holds it."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vsim.core.errors import InputError
from vsim.config.schema_sections import (ClientSection, GroupSection, HtbSection, NetiocSection,
                                           RunSection, TrafficSection, ValidateSection, VmSection)
from vsim.config.typed import from_dict

TIMES = st.floats(0.001, 1e4)
CPUS = st.floats(0.0, 8.0)
FRACTIONS = st.floats(0.0, 1.0)
NAMES = st.sampled_from(["a", "b", "c", "d"])


def problem(cls, data, path):
    """The key ``from_dict`` blames for ``data``, or None when the table is accepted."""
    try:
        from_dict(cls, data, source="t.toml", path=path)
    except InputError as error:
        assert error.source == "t.toml" and error.expected
        return error.where
    return None


@given(TIMES, st.floats(0.0, 1e4))
def test_run_needs_a_warmup_shorter_than_the_duration(duration, warmup):
    where = problem(RunSection, {"duration": duration, "warmup": warmup}, "run")
    assert where == (None if warmup < duration else "run.warmup")


def test_a_run_shorter_than_the_default_warm_up_says_so_and_how_to_set_one():
    with pytest.raises(InputError) as caught:
        from_dict(RunSection, {"duration": 3.0}, source="t.toml", path="run")
    assert caught.value.where == "run.warmup"
    assert "got 5.0 (the default, used when run.warmup is not set), which is not shorter than the run (3.0 s)" \
        in caught.value.expected
    assert "set run.warmup" in caught.value.expected


def test_a_warm_up_the_file_sets_to_the_default_is_not_called_unset():
    with pytest.raises(InputError) as caught:
        from_dict(RunSection, {"duration": 3.0, "warmup": 5.0}, source="t.toml", path="run")
    assert "(set, not the default)" in caught.value.expected


def test_the_group_streams_doc_says_which_workload_needs_them():
    doc = GroupSection.__dataclass_fields__["streams"].metadata["doc"]
    assert "media_server" in doc and "> 0" in doc
    assert problem(GroupSection, {"name": "g", "workload": "media_server", "streams": 0}, "group[0]") \
        == "group[0].streams"


@given(CPUS, st.floats(0.01, 8.0))
def test_vm_limit_not_below_its_reservation(reservation, limit):
    where = problem(VmSection, {"reservation": reservation, "limit": limit}, "vm")
    assert where == (None if limit >= reservation else "vm.limit")


@given(st.lists(st.integers(0, 7), min_size=1, max_size=6))
def test_vm_affinity_cpus_are_distinct(cpus):
    where = problem(VmSection, {"affinity": cpus}, "vm")
    assert where == (None if len(set(cpus)) == len(cpus) else "vm.affinity")


@pytest.mark.parametrize("buffer", ["fixed", "adaptive"])
def test_a_nominal_delay_belongs_to_the_fixed_buffer_only(buffer):
    where = problem(ClientSection, {"jitter_buffer": buffer, "jitter_buffer_nominal": 0.04}, "client")
    assert where == (None if buffer == "fixed" else "client.jitter_buffer_nominal")


@given(FRACTIONS, st.floats(0.001, 1.0))
def test_traffic_stops_after_it_starts(start, stop):
    where = problem(TrafficSection, {"kind": "udp_flood", "active_from": start, "active_until": stop},
                    "group[0].traffic")
    assert where == (None if stop > start else "group[0].traffic.active_from")


@pytest.mark.parametrize("name", ["start", "stop"])
def test_traffic_times_are_fractions_not_absolute(name):
    assert problem(TrafficSection, {"kind": "udp_flood", "params": {name: 1.0}},
                   "group[0].traffic") == f"group[0].traffic.params.{name}"


@given(st.integers(1, 4), CPUS)
def test_group_reservation_within_its_vcpus(vcpus, reservation):
    data = {"name": "g", "workload": "media_server", "streams": 10, "vcpus": vcpus,
            "reservation": reservation}
    assert problem(GroupSection, data, "group[0]") == (None if reservation <= vcpus
                                                       else "group[0].reservation")


@pytest.mark.parametrize("data, where", [
    ({"name": "vm", "workload": "media_server", "streams": 1}, "group[0].name"),  # [vm]'s name
    ({"name": "two words", "workload": "media_server", "streams": 1}, "group[0].name"),
    ({"name": "g", "workload": "media_server"}, "group[0].streams"),  # a server with no streams
    ({"name": "g"}, "group[0].traffic"),  # idle and silent: changes nothing
    ({"name": "g", "workload": "media_server", "streams": 1}, None),
    ({"name": "g", "workload": "media_server", "streams": 1, "phases": [0.01]}, None),
    ({"name": "g", "workload": "cpu_bound", "phases": [0.01]}, "group[0].phases"),  # no ticks
    ({"name": "g", "workload": "media_server", "streams": 1, "phases": []}, "group[0].phases"),
])
def test_group_needs_a_name_of_its_own_and_something_to_run(data, where):
    assert problem(GroupSection, data, "group[0]") == where


@given(st.lists(st.tuples(NAMES, st.one_of(st.none(), NAMES)), max_size=5))
@pytest.mark.parametrize("cls, key", [(NetiocSection, "netioc"), (HtbSection, "htb")])
def test_tree_nodes_once_each_parents_first(cls, key, nodes):
    tables = [{"name": name} if parent is None else {"name": name, "parent": parent}
              for name, parent in nodes]
    names, expected = [], None
    for index, (name, parent) in enumerate(nodes):
        if name in names:
            expected = f"{key}.node[{index}].name"
            break
        if parent is not None and parent not in names:
            expected = f"{key}.node[{index}].parent"
            break
        names.append(name)
    assert problem(cls, {"node": tables}, key) == expected


@pytest.mark.parametrize("cls, key", [(NetiocSection, "netioc"), (HtbSection, "htb")])
def test_a_vm_group_on_one_tree_node_only(cls, key):
    tables = [{"name": "a", "members": ["vm"]}, {"name": "b", "members": ["vm"]}]
    assert problem(cls, {"node": tables}, key) == f"{key}.node[1].members"


@pytest.mark.parametrize("tolerances, where", [
    ({"jitter_ms.p99": 0.2}, None),
    ({"jitter_ms.p42": 0.2}, 'validate.tolerances."jitter_ms.p42"'),
    ({"no_such_metric.p99": 0.2}, 'validate.tolerances."no_such_metric.p99"'),
])
def test_validate_tolerances_name_known_metrics_and_statistics(tolerances, where):
    assert problem(ValidateSection, {"tolerances": tolerances}, "validate") == where


@pytest.mark.parametrize("key", ["quantum_bytes", "prio"])
def test_a_quantum_or_prio_on_an_inner_htb_class_is_taken_with_a_note(key):
    """tc takes both on an inner class, where the kernel ignores them: so does vsim, saying so."""
    from vsim.core.errors import InputNote
    tables = [{"name": "root", key: 3}, {"name": "leaf", "parent": "root", "members": ["vm"]}]
    with pytest.warns(InputNote, match=rf"htb\.node\.root\.{key}: the kernel ignores it on an inner class"):
        section = from_dict(HtbSection, {"node": tables}, source="tc.toml", path="htb")
    assert getattr(section.node[0], key) == 3


def test_a_warm_up_the_table_sets_is_not_called_the_default():
    """``--set run.duration=1e-320`` on a config with ``warmup = 5.0`` said it was the default."""
    with pytest.raises(InputError) as caught:
        from_dict(RunSection, {"duration": 3.0, "warmup": 5.0}, source="t.toml", path="run")
    assert caught.value.where == "run.warmup"
    assert "used when run.warmup is not set" not in caught.value.expected
    assert caught.value.expected.endswith("got 5.0 (set, not the default)")
    assert caught.value.depends_on == ("run.duration",)
