"""Loading scenarios: cross-checks against the models, model provenance, bad overrides."""

import shutil
import string
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from vsim.core.errors import InputError
from vsim.config.claims import study_names
from vsim.build.load import load_scenario
from vsim.config.models import DEFAULT_MODELS_DIR
from vsim.config.toml_io import parse_value

ROOT = Path(__file__).resolve().parents[2]
FIG3 = ROOT / "configs" / "voip-vsphere5" / "fig3.toml"


def load_error(overrides, models_dir=DEFAULT_MODELS_DIR):
    with pytest.raises(InputError) as info:
        load_scenario(FIG3, overrides, models_dir=models_dir)
    err = info.value
    assert "\n" not in str(err)
    return err


def test_fig3_loads():
    loaded = load_scenario(FIG3)
    assert loaded.scenario.vm.vcpus == 4
    assert loaded.models["host"].values.threads_per_core == 2
    assert loaded.models["codec"].values.packet_interval == 0.02


# ------------------------------------------------------------ cross-checks
@pytest.mark.parametrize("overrides, key, words", [
    (["vm.vcpus=17"], "vm.vcpus", "at most 16"),
    (["host.hyperthreading=false", "vm.vcpus=9"], "vm.vcpus", "at most 8"),
    (["vm.vcpus=2", "vm.affinity=[0, 16]"], "vm.affinity", "got 16"),
    (["host.hyperthreading=false", "vm.affinity=[0, 1, 2, 8]"], "vm.affinity", "got 8"),
    (["vm.affinity=[0, 1]"], "vm.affinity", "at least as many"),
    (["vm.instances=9", "vm.reservation=2"], "vm.reservation", "within capacity"),
    (["vm.reservation=5"], "vm.reservation", "at most 4"),
    (["vm.reservation=1.5"], "sweep.values[6]", "at vm.instances = 12, vm.reservation: expected reservations"),
    (["run.warmup=10", "run.duration=5"], "run.warmup", "shorter than the duration"),
    (["run.warmup=5", "run.duration=5"], "run.warmup", "shorter than the duration"),
    (["vm.limit=0.5", "vm.reservation=1"], "vm.limit", "reservation"),
    (["host.numa_home_nodes=true", "vm.vcpus=9"], "vm.vcpus", "at most 8 vCPUs with NUMA"),
    (["host.numa_home_nodes=true", "host.hyperthreading=false", "vm.vcpus=5"], "vm.vcpus",
     "at most 4 vCPUs with NUMA"),
    (["host.numa_home_nodes=true", "vm.affinity=[0, 1, 2, 3]"], "host.numa_home_nodes",
     "no vm.affinity"),
    (["host.numa_home_nodes=true", "host.hyperthreading=false", "vm.instances=3",
      "vm.reservation=2.5", "sweep.values=[3]"], "vm.reservation", "one NUMA home node's 2 VMs"),
    (["host.numa_home_nodes=true", "host.hyperthreading=false", "vm.reservation=1.5",
      "sweep.values=[1, 2, 3, 4, 5]"], "sweep.values[4]", "at vm.instances = 5, vm.reservation"),
    # the measured VM's own settings
    (["measured_vm.reservation=5"], "measured_vm.reservation", "at most 4 CPUs"),
    (["vm.reservation=1.2", "measured_vm.reservation=3", "vm.instances=12", "sweep.values=[12]"],
     "measured_vm.reservation", "3.0 CPUs for the measured VM and 11 x 1.2 for the others exceed"),
    (["measured_vm.limit=0.5", "vm.reservation=1"], "measured_vm.limit",
     "limit (0.5) >= its reservation (1.0)"),
    (["measured_vm.reservation=2", "vm.limit=1"], "measured_vm.reservation",
     "limit (1.0) >= its reservation (2.0)"),
    (["host.numa_home_nodes=true", "host.hyperthreading=false", "vm.instances=3",
      "vm.reservation=1.5", "measured_vm.reservation=3", "sweep.values=[3]"],
     "measured_vm.reservation", "1.5 CPUs each and 3.0 for the measured VM"),
    (["measured_vm.share=2"], "measured_vm.share", "did you mean 'shares'?"),
    (["vm.instances=0", "measured_vm.shares=2000", "sweep.values=[0]"], "measured_vm.shares",
     "[vm] instances > 0"),
    (["measured_vm.shares=0"], "measured_vm.shares", "expected a number >= 1"),
    (['sweep.key="measured_vm.reservation"', "sweep.values=[0, 5]"], "sweep.values[1]",
     "at measured_vm.reservation = 5, measured_vm.reservation: expected at most 4"),
    # sweeps
    (['sweep.key="vm.instance"'], "sweep.key", "did you mean 'vm.instances'?"),
    (['sweep.key="vm.affinity"'], "sweep.key", "a number, true/false or choice key"),
    (['sweep.key="run.duration"'], "sweep.key", "a number, true/false or choice key"),
    (["sweep.values=[1, 2.5]"], "sweep.values[1]", "expected an integer >= 0"),
    (["sweep.values=[1, true]"], "sweep.values[1]", "expected an integer >= 0"),
    (["sweep.values=[]"], "sweep.values", "at least one value"),
    (["sweep.values=[2, 4, 2]"], "sweep.values", "distinct"),
    (['sweep.key="host.hyperthreading"', "sweep.values=[true, 1]"], "sweep.values[1]",
     "expected a boolean"),
    (['sweep.key="vm.background_burst"', "sweep.values=[0, -0.001]"], "sweep.values[1]",
     "expected a number >= 0"),
    (['sweep.key="vm.vcpus"', "sweep.values=[4, 8, 17]"], "sweep.values[2]",
     "at vm.vcpus = 17, vm.vcpus: expected at most 16"),
    (['sweep.key="host.hyperthreading"', "sweep.values=[true, false]", "vm.vcpus=9"],
     "sweep.values[1]", "at host.hyperthreading = false, vm.vcpus: expected at most 8 vCPUs"),
    # model parameters set by the scenario
    (["params.hots.ht_rate=0.5"], "params.hots", "'hots' is not a model role; did you mean 'host'?"),
    (["params.host.ht_rat=0.5"], "params.host.ht_rat", "did you mean 'ht_rate'?"),
    (["params.host.ht_rate=1.5"], "params.host.ht_rate", "expected a number > 0 and <= 1"),
    (["params.host.ht_rate=true"], "params.host.ht_rate", "expected a number"),
    (["params.vnic.tx_ring=1.5"], "params.vnic.tx_ring", "expected an integer >= 1"),
    (["params.workload.codec=1"], "params.workload.codec", "expected one of: participants"),
    (["params.host=1"], "params.host", "expected a table"),
    (["vm.instances=0"], "vm.instances", "expected at least one VM to simulate"),
])
def test_bad_scenario_names_the_key(overrides, key, words):
    err = load_error(overrides)
    assert err.where == key
    assert words in err.expected
    assert str(err).startswith(f"{blamed(overrides, key)}: {key}: ")


def blamed(overrides, key):
    """The source an error at ``key`` names: the last ``--set`` of that key or of a table holding it
    (``sweep.values`` for ``sweep.values[1]``), else the file, with the last ``--set`` of a key
    inside ``key`` if any (a misspelt table it made)."""
    for assignment in reversed(overrides):
        set_key = assignment.partition("=")[0]
        if key == set_key or key.startswith((f"{set_key}.", f"{set_key}[")):
            return f"--set {assignment}"
    for assignment in reversed(overrides):
        if assignment.partition("=")[0].startswith((f"{key}.", f"{key}[")):
            return f"{FIG3} with --set {assignment}"
    return FIG3


def test_limits_at_the_edge_load():
    loaded = load_scenario(FIG3, ["vm.vcpus=16", "vm.affinity=[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]",
                                  "vm.reservation=1", "vm.instances=16", "sweep.values=[16]",
                                  "run.warmup=4.9", "run.duration=5"])
    assert loaded.scenario.vm.vcpus == 16


# --------------------------------------------------------------- sweeps
@pytest.mark.parametrize("overrides, values", [
    (['sweep.key="host.hyperthreading"', "sweep.values=[true, false]"], (True, False)),
    (['sweep.key="vm.background_burst"', "sweep.values=[0, 0.002, 0.005]"], (0, 0.002, 0.005)),
    (['sweep.key="vm.reservation"', "sweep.values=[0, 1, 2.5]", "vm.instances=4"], (0, 1, 2.5)),
    (['sweep.key="measured_vm.shares"', "sweep.values=[4000, 8000.5]"], (4000, 8000.5)),
])
def test_any_number_or_boolean_key_can_be_swept(overrides, values):
    sweep = load_scenario(FIG3, overrides).scenario.sweep
    assert sweep.values == values
    assert [type(v) for v in sweep.values] == [type(v) for v in values]


# ------------------------------------------------------ model parameters
def test_scenario_params_replace_model_values_and_their_provenance():
    base = load_scenario(FIG3)
    loaded = load_scenario(FIG3, ["params.host.ht_rate=0.8", "params.workload.timer_sigma=0.5"])
    assert loaded.scenario.params == {"host": {"ht_rate": 0.8}, "workload": {"timer_sigma": 0.5}}
    assert loaded.models["host"].values.ht_rate == 0.8
    assert loaded.models["workload"].values.timer_sigma == 0.5
    assert loaded.models["workload"].values.frame_cost == base.models["workload"].values.frame_cost
    assert "params.host.ht_rate" in loaded.models["host"].provenance["ht_rate"]
    # ht_rate was fitted to the Fig 4 linearity: set by a scenario, it no longer counts as fitted
    assert "voip5.fig4.cpu_linearity_r2" in base.fitted_claims()
    assert "voip5.fig4.cpu_linearity_r2" not in loaded.fitted_claims()
    assert "voip5.fig4.cpu_util_pct.inst12" in loaded.fitted_claims()


def test_an_integer_parameter_set_as_a_number_stays_typed():
    loaded = load_scenario(FIG3, ["params.workload.frame_cost=2e-4", "params.vnic.tx_ring=256"])
    assert loaded.models["workload"].values.frame_cost == 2e-4
    assert loaded.models["vnic"].values.tx_ring == 256 and type(loaded.models["vnic"].values.tx_ring) is int


def test_a_model_parameter_can_be_swept_and_each_point_gets_its_value():
    loaded = load_scenario(FIG3, ['sweep.key="params.host.ht_rate"', "sweep.values=[0.6, 0.9]"])
    assert loaded.scenario.sweep.values == (0.6, 0.9)
    point = loaded.with_value("params.host.ht_rate", 0.9)
    assert point.models["host"].values.ht_rate == 0.9
    assert loaded.models["host"].values.ht_rate == 0.75
    err = load_error(['sweep.key="params.host.ht_rate"', "sweep.values=[0.6, 1.9]"])
    assert err.where == "sweep.values[1]" and "<= 1" in err.expected


@pytest.mark.parametrize("key, ref", [
    ("host.model", "hosts/nope"),
    ("host.scheduler", "schedulers/cfs"),
    ("host.nic", "nics/missing"),
    ("vm.workload", "workloads/other"),
    ("vm.vnic", "vnics/e1000"),
    ("client.model", "clients/none"),
])
def test_unknown_model_ref_names_the_key_and_lists_the_models_of_its_kind(key, ref):
    err = load_error([f"{key}={ref}"])
    assert err.where == key
    assert ref in err.expected
    folder = ref.split("/")[0]
    listed = err.expected.split("one of: ")[1].split(", ")
    assert listed and all(name.startswith(folder + "/") for name in listed)
    assert listed == sorted(f"{folder}/{path.stem}" for path in (DEFAULT_MODELS_DIR / folder).glob("*.toml"))


@pytest.mark.parametrize("key, ref, kind", [
    ("host.scheduler", "hosts/dell_r710_x5690", "host"),
    ("host.model", "schedulers/esx5_proportional_share", "scheduler"),
    ("vm.vnic", "nics/broadcom_netxtreme2_1gbe", "nic"),
    ("vm.workload", "codecs/g729", "codec"),
])
def test_a_model_of_another_kind_is_refused_by_its_kind_not_its_parameters(key, ref, kind):
    err = load_error([f"{key}={ref}"])
    assert err.where == key and not err.source.endswith(".toml"), str(err)
    assert err.expected.endswith(f"got '{ref}', a {kind} model")


# ------------------------------------------------------------ model files
@pytest.fixture
def models_copy(tmp_path):
    target = tmp_path / "models"
    shutil.copytree(DEFAULT_MODELS_DIR, target)
    return target


def edit(path, old, new):
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def test_copied_models_load(models_copy):
    assert load_scenario(FIG3, models_dir=models_copy).models["host"].path.parent.parent == models_copy


def test_model_param_without_provenance_names_file_and_param(models_copy):
    path = models_copy / "workloads" / "vmcd_g729.toml"
    edit(path, "source = \"voip-vsphere5: 'Each conference call consisted of four participants'\"\n", "")
    err = load_error([], models_dir=models_copy)
    assert err.source == str(path)
    assert err.where == "params.participants"
    assert "source" in err.expected and "fitted_to" in err.expected


@pytest.mark.parametrize("model, old, new, where", [
    # both provenances on one parameter
    ("hosts/dell_r710_x5690", 'source = "voip-vsphere5, Table 1 (4 cores per socket)"',
     'source = "voip-vsphere5, Table 1"\nfitted_to = ["x"]', "params.cores_per_socket"),
    # a value of the wrong type
    ("vnics/vmxnet3", "value = 512", 'value = "512"', "params.tx_ring"),
    # a codec model that does not exist
    ("workloads/vmcd_g729", 'value = "codecs/g729"', 'value = "codecs/opus"', "params.codec"),
    # a value out of its bounds
    ("hosts/dell_r710_x5690", "value = 0.75", "value = 1.5", "params.ht_rate"),
])
def test_bad_model_parameter_names_file_and_param(models_copy, model, old, new, where):
    path = models_copy / f"{model}.toml"
    edit(path, old, new)
    err = load_error([], models_dir=models_copy)
    assert err.source == str(path)
    assert err.where == where


# ------------------------------------------------- overrides of wrong type
FLOAT, INT, BOOL, STR, INTS, SWEEP_KEY, TABLE = "float", "int", "bool", "str", "ints", "sweep", "table"
KEYS = {
    "run.duration": FLOAT, "run.warmup": FLOAT, "vm.reservation": FLOAT, "vm.shares": FLOAT,
    "vm.limit": FLOAT,
    "run.seed": INT, "run.replications": INT, "vm.instances": INT, "vm.vcpus": INT,
    "vm.streams_per_instance": INT, "client.jitter_buffer_nominal": FLOAT,
    "host.hyperthreading": BOOL, "host.numa_home_nodes": BOOL, "client.measuring_conference": BOOL,
    "name": STR, "study": STR, "host.model": STR, "host.scheduler": STR, "host.nic": STR,
    "vm.workload": STR, "vm.vnic": STR, "client.model": STR, "client.jitter_buffer": STR,
    "vm.affinity": INTS, "sweep.values": INTS,
    "sweep.key": SWEEP_KEY,
    "run": TABLE, "host": TABLE, "vm": TABLE, "client": TABLE, "sweep": TABLE,
}
WRONG_TEXTS = [
    '"x"', '"1"', "true", "false", "[1]", "[1.5]", '["a"]', "[[1]]", "{a = 1}", "abc", "1.5", "2.0",
    "1", "0", "-3", "inf", "nan", "1979-05-27", "07:32:00", "1979-05-27T07:32:00Z", "[]", '"vm.x"',
    "[true]", "[1, 2.5]", "0x10",
]


def right_type(kind, value):
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    return {
        FLOAT: number,
        INT: isinstance(value, int) and not isinstance(value, bool),
        BOOL: isinstance(value, bool),
        STR: isinstance(value, str),
        INTS: isinstance(value, list) and all(
            isinstance(v, int) and not isinstance(v, bool) for v in value),
        SWEEP_KEY: isinstance(value, str),
        TABLE: isinstance(value, dict),
    }[kind]


value_texts = st.one_of(
    st.sampled_from(WRONG_TEXTS),
    st.text(string.ascii_letters + string.digits + " ,.-_", min_size=1, max_size=12),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.integers(-10**6, 10**6).map(str),
    st.lists(st.integers(0, 20), max_size=4).map(lambda xs: "[" + ", ".join(map(str, xs)) + "]"),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(st.sampled_from(sorted(KEYS)), value_texts)
def test_override_of_the_wrong_type_is_a_one_line_input_error_naming_the_key(key, text):
    kind = KEYS[key]
    value = parse_value(text.strip())
    assume(not right_type(kind, value))
    with pytest.raises(InputError) as info:
        load_scenario(FIG3, [f"{key}={text}"])
    err = info.value
    message = str(err)
    assert len(message.splitlines()) == 1 and "\n" not in message
    assert err.where is not None and str(err.where).startswith(key), (key, text, message)
    assert message.startswith(f"--set {key}={text}: {key}")
    assert "expected" in message


# ------------------------------------------------- VM groups and the uplink
FIG6 = ROOT / "configs" / "voip-vsphere5" / "fig6.toml"


def fig6_text(old="", new=""):
    """The Fig 6 scenario's text with ``old`` replaced by ``new``."""
    text = FIG6.read_text()
    assert old in text
    return text.replace(old, new, 1)


def load_text(tmp_path, text, overrides=()):
    path = tmp_path / "scenario.toml"
    path.write_text(text)
    return load_scenario(path, list(overrides))


def group_error(tmp_path, text, overrides=()):
    with pytest.raises(InputError) as info:
        load_text(tmp_path, text, overrides)
    assert "\n" not in str(info.value)
    return info.value


def test_fig6_loads_its_flood_group_and_netioc_tree():
    loaded = load_scenario(FIG6)
    (flood,) = loaded.scenario.group
    assert (flood.name, flood.count, flood.workload, flood.traffic.kind) == ("flood", 4, "idle", "udp_flood")
    assert flood.traffic.params == {"pps": 97500.0, "ip_bytes": 264, "arrivals": "poisson"}
    assert [node.members for node in loaded.scenario.netioc.node] == [("vm",), ("flood",)]
    assert loaded.scenario.sweep.values == ("fifo", "netioc")
    assert "voip5.fig6.loss_pps.without_netioc" in loaded.fitted_claims()


def test_the_uplink_is_a_choice_that_can_be_swept_and_set():
    loaded = load_scenario(FIG6, ["host.uplink=\"multiqueue\""])
    assert loaded.scenario.host.uplink == "multiqueue"
    assert loaded.with_value("host.uplink", "netioc").scenario.host.uplink == "netioc"


@pytest.mark.parametrize("old, new, key, words", [
    ('name = "flood"\ncount', 'name = "vm"\ncount', "group[0].name", "other than 'vm'"),
    ("vcpus = 1\nworkload", "vcpus = 17\nworkload", "group.flood.vcpus", "at most 16"),
    ('workload = "idle"', 'workload = "media_server"', "group.flood.streams", "streams per VM"),
    ('workload = "idle"', 'workload = "spinner"', "group.flood.workload", "one of 'media_server', 'idle'"),
    ("active_from = 0.5", "active_from = 1.0", "group.flood.traffic.active_from",
     "active_from 1.0 must be before active_until 1.0"),
    ('arrivals = "poisson" }', 'arrivals = "poisson", start = 3.0 }', "group.flood.traffic.params.start",
     "active_from and active_until"),
    ('members = ["flood"]', 'members = ["floods"]', "netioc.node.flood.members", "got 'floods'"),
    ('members = ["flood"]', 'members = ["vm"]', "netioc.node.flood.members",
     "one node only; 'vm' is also a member of 'voip'"),
    ('name = "voip"\nkind = "class"', 'name = "voip"\nkind = "class"\nreservation_mbps = 800.0',
     "netioc.node.reservation_mbps", "75%"),
    ("vcpus = 1\nworkload", "vcpus = 1\nreservation = 2.0\nworkload", "group.flood.reservation",
     "one per vCPU"),
    ("vcpus = 1\nworkload", "vcpus = 1\nlimit = 3000.0\nworkload", "group.flood.limit", "not MHz"),
])
def test_bad_group_or_tree_names_the_key(tmp_path, old, new, key, words):
    err = group_error(tmp_path, fig6_text(old, new), ["host.uplink=\"netioc\""])
    assert err.where == key and words in err.expected, str(err)


FLOOD_NODE = '''[[netioc.node]]
name = "flood"
kind = "class"
shares = 50.0
members = ["flood"]
'''


def test_netioc_needs_every_group_on_a_leaf(tmp_path):
    text = fig6_text(FLOOD_NODE, "")
    load_text(tmp_path, text, ["sweep.values=[\"fifo\"]"])  # the FIFO uplink does not use the tree
    err = group_error(tmp_path, text, ["host.uplink=\"netioc\"", "sweep.values=[\"fifo\"]"])
    assert err.where == "netioc.node" and "'flood'" in err.expected


def test_a_sweep_to_netioc_is_checked_at_every_point(tmp_path):
    text = fig6_text(FLOOD_NODE, "")
    err = group_error(tmp_path, text, ["sweep.values=[\"fifo\", \"netioc\"]"])
    assert err.where == "sweep.values[1]" and "'flood'" in err.expected


def test_members_belong_on_leaves(tmp_path):
    text = fig6_text('members = ["flood"]', 'members = ["flood"]\n\n[[netioc.node]]\nname = "p"\n'
                                            'kind = "port"\nparent = "flood"')
    err = group_error(tmp_path, text)
    assert err.where == "netioc.node.flood.members" and "leaf only" in err.expected


@pytest.mark.parametrize("old, new, key, words", [
    ('kind = "udp_flood"', 'kind = "udp_flod"', "group.flood.traffic.kind", "'udp_flood'"),
    ('kind = "udp_flood"', 'kind = "tcp_rr"', "group.flood.traffic.params.arrivals", "a parameter of tcp_rr"),
    ("pps = 97500.0", "pps = -1.0", "group.flood.traffic.params.pps", ""),
    ("pps = 97500.0", "ppps = 97500.0", "group.flood.traffic.params.ppps", "a parameter of udp_flood"),
    ('workload = "idle"', 'workload = "media_server"\nstreams = 4', "group.flood.traffic", "idle VM"),
])
def test_bad_traffic_names_its_key(tmp_path, old, new, key, words):
    err = group_error(tmp_path, fig6_text(old, new))
    assert err.where == key and words in err.expected, str(err)


EXP3 = ROOT / "configs" / "netioc-vsphere6" / "exp3_netioc.toml"


def test_a_groups_number_key_can_be_swept_and_each_point_gets_its_value():
    loaded = load_scenario(EXP3, ["sweep.values=[1, 3]"])
    assert loaded.scenario.sweep.key == "group.netperf.count"
    point = loaded.with_value("group.netperf.count", 3)
    assert [group.count for group in point.scenario.group] == [3]
    assert [group.count for group in loaded.scenario.group] == [1]


@pytest.mark.parametrize("overrides, key, words", [
    (['sweep.key="group.netperfs.count"'], "sweep.key", "one of the scenario's [[group]] tables (netperf)"),
    (['sweep.key="group.netperf.traffic"'], "sweep.key", "group.NAME.traffic.params.KEY"),
    (["sweep.values=[1, 0]"], "sweep.values[1]", "expected an integer >= 1"),
])
def test_bad_group_sweep_names_the_key(tmp_path, overrides, key, words):
    error = group_error(tmp_path, EXP3.read_text(), overrides)
    assert error.where == key and words in error.expected


def test_a_tree_leaf_that_no_traffic_uses_is_refused(tmp_path):
    text = fig6_text() + '\n[[netioc.node]]\nname = "nfs"\nkind = "class"\nshares = 50.0\n'
    error = group_error(tmp_path, text)
    assert error.where == "netioc.node.nfs.members" and "no traffic uses it" in error.expected


VOICE_BESIDE_FLOOD = ROOT / "configs" / "whatif" / "voice_beside_flood.toml"


def test_set_reaches_a_group_and_a_tree_node_by_name():
    loaded = load_scenario(VOICE_BESIDE_FLOOD, ["group.flood.count=2", "group.flood.traffic.params.pps=900.0",
                                                "netioc.node.voip.reservation_mbps=100"])
    (flood,) = loaded.scenario.group
    assert (flood.count, flood.traffic.params["pps"]) == (2, 900.0)
    assert [node.reservation_mbps for node in loaded.scenario.netioc.node] == [100.0, 0.0]


def test_a_tree_nodes_number_key_can_be_swept_and_each_point_gets_its_value():
    loaded = load_scenario(VOICE_BESIDE_FLOOD, ['sweep.key="netioc.node.voip.reservation_mbps"',
                                                "sweep.values=[0, 200]", 'host.uplink="netioc"'])
    point = loaded.with_value("netioc.node.voip.reservation_mbps", 200.0)
    assert [node.reservation_mbps for node in point.scenario.netioc.node] == [200.0, 0.0]


@pytest.mark.parametrize("overrides, words", [
    (['sweep.key="netioc.node.voice.shares"', "sweep.values=[10.0]"],
     "one of the scenario's [[netioc.node]] tables (voip, flood), got 'netioc.node.voice.shares'"),
    (['sweep.key="netioc.node.voip.members"', "sweep.values=[1]"], "netioc.node.NAME.KEY"),
    (['sweep.key="netioc.node.voip.shares"', "sweep.values=[0.0]"], "expected a number > 0"),
])
def test_bad_tree_node_sweep_names_the_key(overrides, words):
    with pytest.raises(InputError) as info:
        load_scenario(VOICE_BESIDE_FLOOD, overrides)
    assert words in info.value.expected and "\n" not in str(info.value)


# ------------------------------------------------- the study a scenario names
@settings(max_examples=50, deadline=None)
@given(st.one_of(st.sampled_from(study_names()),
                 st.text(string.ascii_lowercase + string.digits + "-", min_size=1, max_size=16)))
def test_a_named_study_is_one_of_the_claims_files(tmp_path_factory, study):
    path = tmp_path_factory.mktemp("study") / "scenario.toml"
    path.write_text(FIG3.read_text().replace('study = "voip-vsphere5"', f'study = "{study}"', 1))
    if study in study_names():
        assert load_scenario(path).scenario.study == study
        return
    with pytest.raises(InputError) as info:
        load_scenario(path)
    err = info.value
    assert (err.source, err.where) == (str(path), "study")
    assert "\n" not in str(err) and repr(study) in err.expected
    assert all(name in err.expected for name in study_names())


def test_a_scenario_may_name_no_study(tmp_path):
    path = tmp_path / "scenario.toml"
    path.write_text(FIG3.read_text().replace('study = "voip-vsphere5"\n', "", 1))
    assert load_scenario(path).scenario.study is None


def test_an_unknown_study_set_on_the_command_line_names_the_set():
    with pytest.raises(InputError, match=r"^--set study=voip: study: expected a study of the claims"):
        load_scenario(FIG3, ["study=voip"])


SERVER_GROUPS = '''name = "media servers in groups"
[run]
duration = 5.0
warmup = 1.0
[host]
model = "hosts/dell_r710_x5690"
scheduler = "schedulers/esx5_proportional_share"
nic = "nics/broadcom_netxtreme2_1gbe"
[vm]
instances = 0
vcpus = 4
streams_per_instance = 120
workload = "workloads/vmcd_g729"
vnic = "vnics/vmxnet3"
[[group]]
name = "a"
count = 1
vcpus = 2
workload = "media_server"
model = "workloads/probe_net_voice"
streams = 10
[[group]]
name = "b"
count = 1
vcpus = 2
workload = "media_server"
model = "workloads/probe_net_voice"
streams = 10
[client]
model = "clients/measuring_client"
'''


def test_without_vm_instances_the_first_media_server_group_gives_the_codec(tmp_path):
    loaded = load_text(tmp_path, SERVER_GROUPS)
    assert loaded.models["codec"].path.name == "probe_g729_like.toml"


@pytest.mark.parametrize("overrides, key, first", [
    (["vm.instances=1"], "group.a.model", "vm.workload"),
    (['group.b.model="workloads/vmcd_g729"'], "group.b.model", "group.a.model"),
])
def test_every_media_server_shares_the_first_ones_codec(tmp_path, overrides, key, first):
    err = group_error(tmp_path, SERVER_GROUPS, overrides)
    assert err.where == key and f"the codec of {first}" in err.expected, str(err)


@pytest.mark.parametrize("override", ["vm.shares=inf", "vm.limit=inf", "measured_vm.shares=-inf"])
def test_an_infinite_number_is_refused_where_the_key_does_not_mean_none(override):
    err = load_error([override])
    assert err.where == override.split("=")[0] and ("finite" in err.expected or ">=" in err.expected), str(err)


@pytest.mark.parametrize("key", ["vm.limit", "measured_vm.limit"])
def test_a_vm_limit_above_its_vcpus_is_refused_as_a_likely_mhz_value(key):
    with pytest.raises(InputError) as caught:
        load_scenario(FIG3, [f"{key}=3000"])
    assert caught.value.where == key and "at most 4 CPUs" in caught.value.expected
    assert load_scenario(FIG3, [f"{key}=4.0"])  # a limit of every vCPU is allowed


def test_a_model_file_of_ones_own_is_found_beside_the_scenario(tmp_path):
    """A user's host model next to their scenario: a ref ending in .toml is a path relative to
    the scenario's folder (it was looked up inside vsim's own models/ only)."""
    (tmp_path / "hosts").mkdir()
    own = (ROOT / "models" / "hosts" / "dell_r710_x5690.toml").read_text().replace(
        "[params.ht_rate]\nvalue = 0.75", "[params.ht_rate]\nvalue = 0.7")
    assert "value = 0.7\n" in own
    (tmp_path / "hosts" / "my_host.toml").write_text(own)
    scenario = tmp_path / "mine.toml"
    scenario.write_text(FIG3.read_text().replace('model = "hosts/dell_r710_x5690"',
                                                 'model = "hosts/my_host.toml"'))
    loaded = load_scenario(scenario)
    assert loaded.models["host"].values.ht_rate == 0.7
    assert loaded.models["host"].path == tmp_path / "hosts" / "my_host.toml"
    with pytest.raises(InputError) as caught:
        load_scenario(scenario, ['host.model="hosts/missing.toml"'])
    assert caught.value.where == "host.model" and str(tmp_path / "hosts" / "missing.toml") in caught.value.expected


LINUX_HOST = ROOT / "configs" / "whatif" / "linux_host.toml"


def test_a_sweep_may_vary_the_scheduler_each_point_running_with_its_own_model():
    loaded = load_scenario(LINUX_HOST, ['sweep.key="host.scheduler"',
                                        'sweep.values=["schedulers/linux_cfs", "schedulers/esx5_proportional_share"]'])
    cfs = loaded.with_value("host.scheduler", "schedulers/linux_cfs")
    esx = loaded.with_value("host.scheduler", "schedulers/esx5_proportional_share")
    assert cfs.models["scheduler"].ref == "schedulers/linux_cfs"
    assert esx.models["scheduler"].ref == "schedulers/esx5_proportional_share"
    assert esx.models["scheduler"].values.policy != cfs.models["scheduler"].values.policy
    assert esx.models["host"].values == cfs.models["host"].values  # the other models are the same


def test_a_swept_model_that_does_not_fit_the_scenario_is_refused_at_its_point():
    with pytest.raises(InputError) as caught:
        load_scenario(FIG3, ['sweep.key="host.scheduler"', 'vm.reservation=0.5',
                             'sweep.values=["schedulers/esx5_proportional_share", "schedulers/linux_eevdf"]'])
    assert caught.value.where == "sweep.values[1]"
    assert caught.value.expected.startswith("at host.scheduler = schedulers/linux_eevdf, vm.reservation: ")
    with pytest.raises(InputError) as caught:
        load_scenario(FIG3, ['sweep.key="host.nic"', 'sweep.values=["nics/none"]'])
    assert caught.value.where == "sweep.values[0]" and "no model 'nics/none'" in caught.value.expected


def own_host_scenario(tmp_path, host_text):
    """Fig 3's scenario in ``tmp_path`` on a host model file of one's own holding ``host_text``."""
    (tmp_path / "my_host.toml").write_text(host_text)
    scenario = tmp_path / "mine.toml"
    scenario.write_text(FIG3.read_text().replace('model = "hosts/dell_r710_x5690"', 'model = "my_host.toml"'))
    return scenario


@pytest.mark.parametrize("fitted_to, refused", [('["nope.claim"]', "'nope.claim'"),
                                                ('["voip5.fig4.cpu_linearity_r2"]', None),
                                                ('["measured.timer_idle.python"]', None)])
def test_a_fitted_parameter_names_a_claim_or_a_measured_trace(tmp_path, fitted_to, refused):
    scenario = own_host_scenario(tmp_path, (ROOT / "models" / "hosts" / "dell_r710_x5690.toml").read_text().replace(
        'fitted_to = ["voip5.fig4.cpu_linearity_r2"]', f"fitted_to = {fitted_to}"))
    if refused is None:
        assert load_scenario(scenario).models["host"].values.ht_rate == 0.75
        return
    with pytest.raises(InputError) as caught:
        load_scenario(scenario)
    assert caught.value.where == "params.ht_rate.fitted_to" and refused in caught.value.expected


def test_an_own_model_file_of_another_kind_is_refused_by_its_kind(tmp_path):
    (tmp_path / "my_sched.toml").write_text((ROOT / "models" / "schedulers" / "linux_cfs.toml").read_text())
    scenario = tmp_path / "mine.toml"
    scenario.write_text(FIG3.read_text().replace('model = "hosts/dell_r710_x5690"', 'model = "my_sched.toml"'))
    with pytest.raises(InputError) as caught:
        load_scenario(scenario)
    assert caught.value.where == "host.model"
    assert caught.value.expected.endswith("whose parameters are those of a scheduler model")


@pytest.mark.parametrize("meta, where", [('[meta]\ndesription = "my host"', "meta.desription"),
                                         ('[meta]\ndescription = 2', "meta.description"),
                                         ('meta = "my host"', "meta"),
                                         ('[meta]\ndescription = "my host"', None)])
def test_an_own_model_files_meta_holds_only_a_description(tmp_path, meta, where):
    text = (ROOT / "models" / "hosts" / "dell_r710_x5690.toml").read_text()
    scenario = own_host_scenario(tmp_path, meta + "\n" + text[text.index("[params."):])
    if where is None:
        assert load_scenario(scenario).models["host"].values.ht_rate == 0.75
        return
    with pytest.raises(InputError) as caught:
        load_scenario(scenario)
    assert caught.value.source == str(tmp_path / "my_host.toml") and caught.value.where == where


def test_a_run_shorter_than_the_configs_warm_up_names_the_set_and_the_configs_value():
    err = load_error(["run.duration=1e-320"])
    assert str(err).startswith(f"{FIG3} with --set run.duration=1e-320: run.warmup: ")
    assert str(err).endswith("got 5.0 (set, not the default)")


@pytest.mark.parametrize("phases, key, words", [
    ("[0.0, 0.02]", "vm.phases", "below the codec's packet interval (0.02 s), got 0.02"),
    ("[0.005, -0.001]", "vm.phases[1]", ">= 0"),
    ("[]", "vm.phases", "at least one phase"),
])
def test_phases_outside_one_tick_name_the_key(phases, key, words):
    err = load_error([f"vm.phases={phases}"])
    assert err.where == key and words in err.expected, str(err)


def test_phases_within_one_tick_are_taken_as_given():
    loaded = load_scenario(FIG3, ["vm.phases=[0.0, 0.0199]"])
    assert loaded.scenario.vm.phases == (0.0, 0.0199)
    assert loaded.scenario.vm.vm_phases(1) == (0.0, 0.0199, 0.0, 0.0199)


def test_the_files_read_are_the_config_its_models_each_points_and_its_steal_trace():
    overrides = ["sweep.key=host.scheduler", 'sweep.values=["schedulers/linux_cfs", "schedulers/linux_eevdf"]']
    loaded = load_scenario(ROOT / "configs" / "validation" / "cpu_cgroups.toml", overrides)
    own = {Path(path).resolve() for _, path in loaded.files_read(sweep_points=False)}
    read = {Path(path).resolve() for _, path in loaded.files_read()}
    models = ROOT / "models"
    assert (ROOT / "configs" / "validation" / "cpu_cgroups.toml") in own
    assert (ROOT / "validation" / "steal" / "steal.csv") in own
    assert {models / "hosts" / "probe_machine_2vcpu.toml", models / "schedulers" / "linux_eevdf_hz250.toml"} <= own
    assert read - own == {models / "schedulers" / "linux_cfs.toml", models / "schedulers" / "linux_eevdf.toml"}


def test_the_files_read_include_the_trace_a_replay_group_replays():
    loaded = load_scenario(ROOT / "configs" / "whatif" / "replayed_flood.toml")
    read = {Path(path).resolve() for _, path in loaded.files_read()}
    assert (ROOT / "validation" / "net_pfifo" / "packets.csv") in read


SIP_GC = ROOT / "configs" / "whatif" / "sip_gc_call_rate.toml"


def test_a_sweep_may_vary_a_sip_groups_collector_and_server_model_each_point_loading_its_own():
    loaded = load_scenario(SIP_GC)
    profiles = [loaded.with_value("group.proxy.gc", value).models["group.proxy.gc"]
                for value in loaded.scenario.sweep.values]
    assert [model.ref for model in profiles] == list(loaded.scenario.sweep.values)
    assert len({model.values.young_bytes for model in profiles}) == 3  # three collectors, not one
    read = {Path(path).resolve() for _, path in loaded.files_read()}
    assert {model.path.resolve() for model in profiles} <= read
    server = loaded.with_value("group.proxy.model", "sip_servers/sipp_uas_3_6_1")
    assert server.models["group.proxy.workload"].ref == "sip_servers/sipp_uas_3_6_1"
    assert server.scenario.group[0].model == "sip_servers/sipp_uas_3_6_1"


def test_a_swept_collector_that_is_not_one_is_refused_at_its_point():
    with pytest.raises(InputError) as caught:
        load_scenario(SIP_GC, ['sweep.values=["jvm_gc/default_jdk142", "jvm_gc/serial_parallel"]'])
    assert caught.value.where == "sweep.values[1]" and "jvm_gc/serial_parallel" in caught.value.expected
