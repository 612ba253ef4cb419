"""The netioc-vsphere6 recipe: single-host claims from short runs (the cluster's in
test_experiments_netioc_vsphere6_fig2.py), Olio's Exp 2 among them."""

import json

import pytest

from vsim.experiments import netioc_vsphere6
from vsim.config.claims import in_band, load_claims
from vsim.experiments.reproduce import (claim_rows, claims_json, recipe, results_json, run_studies,
                                        write_study_outputs)
from vsim.config.run_length import RunPlan

TINY = RunPlan(duration=10.0, warmup=1.0, replications=1)
SINGLE_HOST = ("netioc6.reservation_cap_fraction", "netioc6.fig2.equal_shares.vm_gbps",
               "netioc6.fig2.a.vm1_gbps", "netioc6.fig2.a.vm2_gbps", "netioc6.exp1.min_vm_mbps",
               "netioc6.exp1.vm_throughput_cv", "netioc6.exp3.cpu_overhead.small",
               "netioc6.exp3.cpu_overhead.vm100", "netioc6.fig6.rr_latency_overhead_us",
               "netioc6.exp2.resp_increase_with_reservation", "netioc6.exp2.ordering")
CLUSTER = ("netioc6.fig2.b.after_migration_gbps", "netioc6.fig2.c.after_migration_gbps",
           "netioc6.fig2.migration_delay_s")


@pytest.fixture(scope="module")
def reproduced():
    results = run_studies([netioc_vsphere6.NAME], TINY, jobs=1)
    return results, claim_rows(load_claims(), results)


def test_the_study_is_registered():
    assert recipe("netioc-vsphere6") is netioc_vsphere6


def test_single_host_claims_have_values_and_the_cluster_s_wait_for_drs(reproduced):
    rows = {row.claim.id: row for row in reproduced[1] if row.claim.study == "netioc-vsphere6"}
    for claim_id, row in rows.items():
        if claim_id in SINGLE_HOST:
            assert row.value is not None and row.kind != "not modelled", claim_id
        elif claim_id in CLUSTER:  # a 10 s cluster run ends before DRS's first pass moves a VM
            assert row.value is None and row.kind == "predicted", claim_id
        else:
            assert row.value is None and row.kind == "not modelled", claim_id
    assert rows["netioc6.reservation_cap_fraction"].kind == "by construction"
    assert rows["netioc6.fig2.a.vm1_gbps"].kind == "predicted"
    assert rows["netioc6.fig6.rr_latency_overhead_us"].kind == "fitted"
    assert rows["netioc6.exp3.cpu_overhead.small"].kind == "fitted"
    assert rows["netioc6.exp3.cpu_overhead.vm100"].kind == "fitted"
    assert rows["netioc6.exp2.ordering"].kind == "predicted"
    assert rows["netioc6.exp2.resp_increase_with_reservation"].kind == "predicted"


def test_netioc_costs_host_cpu_through_more_interrupts(reproduced):
    sweeps = reproduced[0][0].sweeps
    overhead = netioc_vsphere6.cpu_overhead(sweeps["exp3_default"], sweeps["exp3_netioc"])
    assert abs(overhead[1]) < 1e-9  # one VM: nothing to interleave
    assert overhead[100] > overhead[12] > 0
    interrupts = [sweeps[name].at(100).runs[0].uplink.groups["netperf"].interrupts_per_s
                  for name in ("exp3_default", "exp3_netioc")]
    assert interrupts[1] > 2 * interrupts[0]


def test_the_values_follow_from_counted_bytes(reproduced):
    """Shares and reservations divide the bytes NetIOC counts: a TSO segment of 45 frames
    as the switch holds it, 45 x 1448 data bytes and one 66-byte header."""
    values = {row.claim.id: row.value for row in reproduced[1]}
    counted = 1448 + 66 / 45          # bytes counted per 1538-byte wire frame
    goodput = 1448 / counted          # data per counted byte
    capacity = 10 * counted / 1538    # Gb/s of counted bytes the link carries
    assert values["netioc6.reservation_cap_fraction"] == pytest.approx(0.75, abs=1e-8)
    assert values["netioc6.fig2.equal_shares.vm_gbps"] == pytest.approx(capacity / 3 * goodput)
    assert values["netioc6.fig2.a.vm1_gbps"] == pytest.approx((7.5 + (capacity - 7.5) / 3) * goodput)
    assert values["netioc6.fig2.a.vm2_gbps"] == pytest.approx((capacity - 7.5) / 3 * goodput)
    # Exp 1 after the vMotion starts: 4.8 Gb/s reserved plus half of what is left
    assert values["netioc6.exp1.min_vm_mbps"] == pytest.approx(
        (4800 + (1000 * capacity - 4800) / 2) / 12 * goodput)
    assert values["netioc6.exp1.vm_throughput_cv"] == pytest.approx(0.0, abs=1e-12)
    assert in_band(values["netioc6.fig2.equal_shares.vm_gbps"], [2.95, 3.25])


def test_outputs_written(tmp_path, reproduced):
    results, rows = reproduced
    written = write_study_outputs(tmp_path, results[0], rows)
    names = {path.name for path in written}
    assert {"fig2_host1.png", "exp1.svg", "exp2_response_time.png", "exp3_cpu.png", "comparison.md",
            "results.json"} <= names
    doc = json.loads(claims_json(rows))
    assert any(entry["id"] == "netioc6.exp1.min_vm_mbps" and entry["value"] for entry in doc["claims"])


def test_largest_reservable_fraction_finds_the_trees_rule():
    assert netioc_vsphere6.largest_reservable_fraction(1e10) == pytest.approx(0.75, abs=1e-8)


@pytest.mark.parametrize("values, cv", [([5.0, 5.0, 5.0], 0.0), ([1.0, 3.0], 0.5)])
def test_coefficient_of_variation(values, cv):
    assert netioc_vsphere6.coefficient_of_variation(values) == pytest.approx(cv)


def test_parallel_runs_give_the_serial_claims(reproduced):
    parallel = run_studies([netioc_vsphere6.NAME], TINY, jobs=2)
    assert claims_json(claim_rows(load_claims(), parallel)) == claims_json(reproduced[1])
    assert results_json(parallel[0]) == results_json(reproduced[0][0])
