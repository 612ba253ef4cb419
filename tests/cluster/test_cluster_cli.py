"""``vsim cluster``: its report, JSON and figures, the same output for the same seed, and bad
input as one line naming the file and key, exit 2."""

import json
from pathlib import Path

import pytest

from cli_run import one_line_error, vsim

ROOT = Path(__file__).resolve().parents[2]
FIG2 = ROOT / "configs" / "netioc-vsphere6" / "fig2.toml"
TEMPLATE = ROOT / "configs" / "whatif" / "cluster_host_failure.toml"

BASE = """
name = "bad"
[[host]]
name = "host1"
[[host]]
name = "host2"
[[switch.traffic_class]]
name = "vm"
reservation_mbps = 7500.0
[[switch.traffic_class]]
name = "vmotion"
[[vm]]
name = "vm1"
host = "host1"
"""


def test_the_report_says_what_happened_and_the_json_is_the_same_for_the_same_seed(capsys):
    code, out, err = vsim(capsys, "cluster", FIG2)
    assert code == 0, err
    assert out.startswith("netioc-vsphere6 Fig 2") and "DRS every 300 s from" in out
    assert "fault: host1 cannot meet vm2's 4.5 Gb/s" in out and "vm2 runs on host2" in out
    assert "while its copy left host1: vm1 8.133 -> 7.920 Gb/s, vm3 0.641 -> 0.427 Gb/s" in out
    code, first, report = vsim(capsys, "cluster", FIG2, "--json", "-", "--seed", "2")
    assert code == 0 and "what happened" in report
    again = vsim(capsys, "cluster", FIG2, "--json", "-", "--seed", "2")[1]
    assert first == again
    doc = json.loads(first)
    assert doc["seed"] == 2 and doc["vms"] == ["vm1", "vm2", "vm3"]
    assert doc["segments"][-1]["host"] == {"vm1": "host1", "vm2": "host2", "vm3": "host2"}
    assert doc["models"]["model"].startswith("clusters/vsphere6 sha256:")
    assert [m["vm"] for m in doc["migrations"]] == ["vm2", "vm3"]


def test_out_writes_the_figure_report_and_json(capsys, tmp_path):
    code, out, err = vsim(capsys, "cluster", TEMPLATE, "--out", tmp_path / "c", "--duration", "700")
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "c").iterdir()) == [
        "cluster_host_failure.png", "cluster_host_failure.svg", "report.txt", "results.json"]
    assert (tmp_path / "c" / "report.txt").read_text() == out
    doc = json.loads((tmp_path / "c" / "results.json").read_text())
    assert doc["duration_s"] == 700.0
    assert any(m["kind"] == "host_failure" for m in doc["marks"])


def _bad(capsys, tmp_path, text, *args):
    path = tmp_path / "cluster.toml"
    path.write_text(text)
    code, out, err = vsim(capsys, "cluster", path, *args)
    assert code == 2 and out == ""
    line = one_line_error(err)
    assert line.startswith(f"vsim: error: {path}: ")
    return line.removeprefix(f"vsim: error: {path}: ")


@pytest.mark.parametrize("extra, where, expected", [
    ('[vm.traffic]\nkind = "tcp_stream"\n[[vm]]\nname = "vm1"\nhost = "host2"\n', "vm[1].host",
     "expected VM 'vm1' on one host; it is on 'host1' (vm[0]) and on 'host2'"),
    ('[[event]]\nat = 10.0\nkind = "migrate"\nvm = "vm1"\nhost = "host9"\n', "event[0].host",
     "expected the destination of a migration: a host of the cluster (host1, host2), got 'host9'"),
    ('[[vm]]\nname = "a"\nsame_host_as = "b"\n[[vm]]\nname = "b"\nsame_host_as = "c"\n'
     '[[vm]]\nname = "c"\nsame_host_as = "a"\n', "vm[1].same_host_as",
     "expected placement rules without a cycle (a VM placed before the one it follows), got a -> b -> c -> a"),
    ('reservation_mbps = 9000.0\n', "vm[0].reservation_mbps",
     "expected at most 7500 Mb/s, what the vm class reserves on an uplink for VM ports (no host could "
     "ever admit it), got 9000"),
    ('[[event]]\nat = 10.0\nkind = "reservation"\nvm = "vm1"\nreservation_mbps = 8000.0\n',
     "event[0].reservation_mbps", "expected at most 7500 Mb/s"),
    ('vcpus = 16\n[[event]]\nat = 1.0\nkind = "reservation"\nvm = "vm1"\ncpu_reservation = 13.0\n',
     "event[0].cpu_reservation", "expected at most 12 CPUs, the most cores of a host of the cluster"),
    ('[[event]]\nat = 1.0\nkind = "reservation"\nvm = "vm1"\ncpu_reservation = 2.0\n',
     "event[0].cpu_reservation", "expected at most 1 CPU, one per vCPU of 'vm1', got 2"),
    ('reservation_mbps = 5000.0\n[[vm]]\nname = "vm2"\nhost = "host1"\nreservation_mbps = 5000.0\n', "vm",
     "expected VMs running from the start that the hosts can admit together; no placement of the 2 VMs"),
    ('pool = "p"\n[[switch.pool]]\nname = "p"\nreservation_mbps = 16000.0\n', "switch.pool[0].reservation_mbps",
     "expected at most 15000 Mb/s (75% of the cluster's 20 Gb/s of uplinks), got 16000"),
    ('[[vm]]\nname = "vm2"\napart_from = ["vm3"]\n[[vm]]\nname = "vm3"\nsame_host_as = "vm2"\n',
     "vm[1].apart_from", "expected VMs it may run apart from; 'vm3' runs on its host by same_host_as rules"),
    ('[[event]]\nat = 1.0\nkind = "vm_added"\nvm = "vm1"\n', "event[0].vm",
     "expected a VM with powered_on = false; 'vm1' already runs from the start (it would run twice)"),
    ('[[event]]\nat = 1.0\nkind = "host_failure"\nhost = "host1"\nvm = "vm1"\n', "event[0].vm",
     "expected no vm in a host_failure event"),
])
def test_bad_input_is_one_line_naming_the_key(capsys, tmp_path, extra, where, expected):
    line = _bad(capsys, tmp_path, BASE + extra)
    assert line.startswith(f"{where}: {expected}"), line


def test_a_class_reservation_over_an_uplinks_75_percent_is_refused(capsys, tmp_path):
    text = BASE.replace('name = "host2"', 'name = "host2"\nnic = "nics/intel_82545_1gbe"')
    line = _bad(capsys, tmp_path, text)
    assert line.startswith("switch.traffic_class: reservations totalling at most 750 Mb/s (75% of the "
                           "1000 Mb/s uplink), got 7500 Mb/s, on each uplink of host[1] (host2: 1 Gb/s)")


def test_drs_off_needs_every_vm_placed(capsys, tmp_path):
    line = _bad(capsys, tmp_path, BASE + '[[vm]]\nname = "vm2"\n[drs]\nautomation = "off"\n')
    assert line.startswith('vm[1].host: expected the host it powers on at: with drs.automation = "off"')


def test_a_scenario_is_not_a_cluster_file_nor_a_cluster_file_a_scenario(capsys):
    code, _, err = vsim(capsys, "cluster", ROOT / "configs" / "netioc-vsphere6" / "fig2_reservation.toml")
    assert code == 2 and "host: expected [[host]] tables (a cluster file)" in one_line_error(err)
    code, _, err = vsim(capsys, "run", FIG2)
    assert code == 2 and "run by vsim cluster" in one_line_error(err)


def test_outputs_that_are_inputs_are_refused(capsys):
    code, _, err = vsim(capsys, "cluster", FIG2, "--json", FIG2)
    assert code == 2 and "--json" in one_line_error(err)


def test_describe_gives_a_cluster_files_keys_with_its_values(capsys):
    code, out, err = vsim(capsys, "describe", FIG2)
    assert code == 0, err
    assert out.startswith(f"{FIG2}: netioc-vsphere6 Fig 2")
    assert "[[vm]]" in out and 'kind = "reservation"' in out and "reservation_mbps = 4500.0" in out
