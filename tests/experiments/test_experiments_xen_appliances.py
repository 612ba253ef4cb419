"""xen-appliances' readings on synthetic sweeps: the maximum where successful calls stop
following the offered rate, values at that maximum, the claims built from them."""

from types import SimpleNamespace as NS

import pytest
from hypothesis import given, strategies as st

from vsim.experiments import xen_appliances as xen


def sweep(points, servers=1, debian=None):
    """Points of (offered per server, successful per server, server CPU %)."""
    rows = []
    for offered, done, cpu in points:
        sip = {f"asterisk[{i}]": NS(group="asterisk", calls_attempted_per_s=offered,
                                    calls_successful_per_s=done, cpu_util_pct=cpu)
               for i in range(servers)}
        sip["dom0-like"] = NS(group="other", calls_attempted_per_s=1e6, calls_successful_per_s=0.0,
                              cpu_util_pct=0.0)
        bound = None if debian is None else {"debian[0]": NS(work_pct=debian(offered), cpu=NS(used_pct=100.0))}
        rows.append(NS(x=offered, runs=(NS(sip=sip, cpu_bound_vms=bound),)))
    return NS(points=tuple(rows), name="s", stamp=lambda: "")


def test_maximum_is_linear_between_the_points_around_the_drop():
    s = sweep([(100, 100, 10), (600, 600, 60), (700, 693, 70), (800, 720, 100)])
    # 0.99 at 700, 0.9 at 800: the crossing is at 700 exactly
    assert xen.max_calls(s) == pytest.approx(700.0)
    s = sweep([(100, 100, 10), (600, 600, 60), (800, 720, 100)])
    # 1.0 at 600, 0.9 at 800: 0.99 a tenth of the way
    assert xen.max_calls(s) == pytest.approx(620.0)


def test_no_maximum_when_the_calls_always_follow_or_never_do():
    assert xen.max_calls(sweep([(100, 100, 1), (200, 200, 2)])) is None
    assert xen.max_calls(sweep([(100, 50, 1), (200, 60, 2)])) is None


def test_servers_are_summed_and_other_groups_ignored():
    one = sweep([(100, 100, 10), (600, 600, 60), (800, 720, 100)])
    two = sweep([(100, 100, 10), (600, 600, 60), (800, 720, 100)], servers=2)
    assert xen.max_calls(two) == pytest.approx(2 * xen.max_calls(one))


@given(knee=st.floats(200, 2000), slope=st.floats(0.1, 0.9))
def test_a_server_that_follows_to_its_knee_then_saturates_reads_near_its_knee(knee, slope):
    """Successful = offered to the knee, then the knee plus slope x the excess: the reading
    lies between the knee and the next swept rate."""
    rates = [knee * f for f in (0.25, 0.5, 0.75, 1.0, 1.25, 1.5)]
    s = sweep([(r, r if r <= knee else knee + slope * (r - knee), 50) for r in rates])
    assert knee <= xen.max_calls(s) <= 1.25 * knee


def test_claims_from_the_readings():
    cfg1 = sweep([(100, 100, 10), (600, 600, 60), (800, 720, 100)])
    cfg3 = sweep([(100, 100, 10), (400, 400, 40), (600, 540, 90)], debian=lambda r: 100 - r / 20)
    nttcp = NS(points=(NS(x=1, runs=(receiving(89.0), receiving(91.0))),), name="nttcp", stamp=lambda: "")
    values = xen.claim_values({"cfg1": cfg1, "cfg2": cfg1, "cfg3": cfg3, "cfg4": cfg3, "cfg5": cfg1,
                               "cfg6": cfg3, "cfg7": cfg1, "nttcp": nttcp})
    assert values["xen.cfg1.max_cps"].value == pytest.approx(620.0)
    assert values["xen.cfg1.vm_cpu_pct_at_max"].value == pytest.approx(60 + 40 * 20 / 200)
    cfg3_max = 400 + 0.01 * 200 / 0.1
    assert values["xen.cfg3.below_cfg1"].value == pytest.approx(cfg3_max / 620.0)
    assert values["xen.cfg3.superpi_slowdown"].value == pytest.approx(100 / (100 - cfg3_max / 20) - 1)
    assert values["xen.cfg5.max_cps"].value == pytest.approx(620.0)
    assert values["xen.cfg6.max_cps"].value == pytest.approx(cfg3_max)
    assert values["xen.cfg5.nttcp_overhead"].value == pytest.approx(1 - 90.0 / 94.0)
    assert set(values) == {"xen.cfg1.max_cps", "xen.cfg2.max_cps", "xen.cfg4.max_cps",
                           "xen.cfg5.max_cps", "xen.cfg6.max_cps", "xen.cfg7.max_cps_total", "xen.cfg1.vm_cpu_pct_at_max",
                           "xen.cfg3.below_cfg1", "xen.cfg3.superpi_slowdown",
                           "xen.cfg5.nttcp_overhead"}


def receiving(mbps, line=94.0):
    """A run of the nttcp receiver alone reading ``mbps`` over a wire of ``line`` Mb/s goodput."""
    return NS(tcp_receivers={"debian[0]": NS(throughput_mbps=mbps, line_mbps=line)})


def test_serial_and_parallel_runs_give_the_same_claims():
    """The recipe's claims from short runs, one worker and two, byte for byte."""
    from vsim.config.claims import load_claims
    from vsim.config.run_length import RunPlan
    from vsim.experiments.reproduce import claim_rows, claims_json, run_studies

    plan = RunPlan(duration=4.0, warmup=1.0, replications=1)
    claims = load_claims()
    serial, parallel = (claims_json(claim_rows(claims, run_studies(["xen-appliances"], plan, jobs=jobs)))
                        for jobs in (1, 2))
    assert serial == parallel


def paneled(rates):
    """A two-point cfg 5-like sweep: one Asterisk VM, Dom0, a Debian TCP receiver, two PCPUs."""
    def run(rate):
        vm = NS(group="asterisk", calls_attempted_per_s=rate, calls_successful_per_s=0.9 * rate,
                calls_failed_per_s=0.1 * rate, calls_unfinished_per_s=0.0, cpu_util_pct=rate / 20, cpu=NS(used_pct=rate / 10),
                retransmissions=int(rate))
        return NS(sip={"asterisk[0]": vm}, cpu_bound_vms=None, disk_benchmarks=None,
                  tcp_receivers={"debian[0]": NS(cpu=NS(used_pct=5.0))},
                  dom0={"dom0[0]": NS(cpu=NS(used_pct=rate / 20), messages=int(40 * rate))},
                  host=NS(lcpu_util_pct=[rate / 10, 50.0]))
    return NS(points=tuple(NS(x=r, runs=(run(r),)) for r in rates), duration=40.0, warmup=10.0,
              name="cfg5", stamp=lambda: "")


def test_the_panels_read_each_quantity_per_offered_rate():
    quantities = {q.title: q for q in xen.panel_quantities(paneled([200.0, 600.0]))}
    assert list(quantities) == ["(a) CPU of the VMs", "(b) CPU of Domain-0", "(c) network, as Dom0 carries it",
                                "(d) physical CPU", "(e) calls", "SIPp retransmissions"]
    vms = quantities["(a) CPU of the VMs"].curves
    assert [c.label for c in vms] == ["asterisk[0] (Asterisk)", "debian[0] (competitor)"]
    assert vms[0].xs == [200.0, 600.0] and [s for s, _ in vms[0].stats] == [20.0, 60.0]
    assert [s for s, _ in vms[1].stats] == [5.0, 5.0]
    assert [s for s, _ in quantities["(b) CPU of Domain-0"].curves[0].stats] == [10.0, 30.0]
    assert [s for s, _ in quantities["(c) network, as Dom0 carries it"].curves[0].stats] == [200.0, 600.0]
    assert [c.label for c in quantities["(d) physical CPU"].curves] == ["PCPU 0", "PCPU 1"]
    successful, failed, unfinished = quantities["(e) calls"].curves
    assert [s for s, _ in successful.stats] == [180.0, 540.0] and [s for s, _ in failed.stats] == [20.0, 60.0]
    assert unfinished.label == "unfinished at the run's end" and [s for s, _ in unfinished.stats] == [0.0, 0.0]
    # retransmissions over the measured window (40 - 10 s)
    assert [s for s, _ in quantities["SIPp retransmissions"].curves[0].stats] == [200 / 30, 600 / 30]
