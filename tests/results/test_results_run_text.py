"""Tests of the text ``vsim run`` prints, from summaries built by hand (whole runs are in tests/test_cli.py)."""

import re

from hypothesis import given, strategies as st

from summaries import typed_summary
from vsim.results.run_text import run_text


def _entry(packets=50, r_factor=80.0):
    return {"packets": packets, "r_factor": r_factor, "mos": 4.0 if r_factor is not None else None,
            "network_loss_fraction": 0.01, "late_fraction": 0.002, "one_way_delay_mean_ms": 1.5,
            "buffer_delay_mean_ms": None, "mouth_to_ear_ms": None}


def _summary(offered_pps=0.0, packets_emitted=0, **extra):
    """A summary with one VM and what ``run_text`` always reads, ``extra`` sections added."""
    summary = {
        "host": {"cpu_util_pct": 12.34, "core_util_pct": 24.68, "lcpu_util_pct": [12.34] * 16},
        "voice": {"offered_pps": offered_pps, "packets_emitted": packets_emitted, "packet_rate_pps": 90.0,
                  "bandwidth_mbps": 0.0562, "loss_fraction": 0.0125},
        "jitter": {"measuring_conference": True, "mean_ms": 0.25, "p99_ms": None, "samples": 7},
        "instances_jitter": {"mean_ms": 0.5, "p99_ms": 1.0, "worst_p99_ms": 2.0, "vms": 1,
                             "vms_with_samples": 1},
        "vms": {"vm0": {"used_pct": 50.0, "ready_pct": 1.25, "costop_pct": 0.0, "limited_pct": 0.0,
                        "jitter_mean_ms": None, "jitter_p99_ms": 0.75}},
        "voice_quality": {"jitter_buffer": {"kind": "fixed", "nominal_ms": 40.0},
                          "measuring_conference": None, "groups": {}},
    }
    summary.update(extra)
    return summary


def _lines(summary, duration=10.0, warmup=2.0, params=None):
    return run_text("fig", "fig.toml", 3, duration, warmup, "events", typed_summary(summary),
                    params).splitlines()


def test_header_names_the_run_and_its_warm_up():
    assert _lines(_summary(), 10.0, 2.5)[0] == "fig  (fig.toml, seed 3, 10 s, warm-up 2.5 s, events engine)"


def test_the_host_models_follow_the_header_and_others_are_left_out():
    models = {"host": "hosts/h", "scheduler": "schedulers/s", "nic": "nics/n", "vnic": "vnics/v"}
    lines = run_text("fig", "fig.toml", 3, 10.0, 2.0, "events", typed_summary(_summary()), None,
                     models).splitlines()
    assert lines[1] == ("models     host hosts/h  scheduler schedulers/s  nic nics/n  "
                        "(vsim describe REF: its parameters and sources)")
    assert not any(line.startswith("models") for line in _lines(_summary()))


def test_without_offered_voice_there_are_no_voice_lines():
    lines = _lines(_summary())
    assert not any(line.startswith(("jitter ", "all VMs ", "voice ")) for line in lines)
    assert lines[1] == "host CPU   12.3% of 16 logical CPUs (esxtop PCPU UTIL)  core 24.7%"


def test_voice_lines_follow_the_header_and_print_a_missing_metric_as_n_a():
    lines = _lines(_summary(offered_pps=100.0, packets_emitted=800))
    assert lines[1] == "jitter     mean 0.250 ms  p99 n/a  (7 samples, measuring conference)"
    assert lines[2].startswith("all VMs    mean 0.500 ms  p99 1.000 ms  worst p99 2.000 ms")
    assert lines[3] == ("voice      sent 100 of 100 packets/s offered  delivered 90 packets/s, 0.06 Mb/s  "
                        "loss 1.250%")
    assert "jitter n/a  p99 0.750 ms" in next(line for line in lines if line.startswith("vm0 "))


@given(packets=st.integers(0, 10**7), duration=st.floats(0.01, 1e4), share=st.floats(0.0, 1.0))
def test_packets_sent_per_second_are_those_of_the_measuring_window(packets, duration, share):
    warmup = duration * share
    line = next(line for line in _lines(_summary(1.0, packets), duration, warmup)
                if line.startswith("voice "))
    window = duration - warmup
    assert re.search(r"sent (\S+) of", line).group(1) == f"{packets / window if window > 0 else 0.0:.0f}"


def test_params_and_measured_vm_settings_come_after_the_header():
    measured = {"shares": {"measured": 8000, "others": 4000}, "limit": {"measured": 2.0, "others": None}}
    lines = _lines(_summary(measured_vm=measured), params={"host": {"ht_rate": 0.8}, "vm": {"name": "a"}})
    assert lines[1] == ('params     host.ht_rate = 0.8  vm.name = "a"  (set by the scenario or --set, not the '
                        'model files)')
    assert lines[2] == "measured   shares 8000 (others 4000)  limit 2 CPUs (others none)  (vm0's own settings)"
    one = _lines(_summary(measured_vm={"reservation": {"measured": 1.0, "others": 0.0}}))
    assert one[1] == "measured   reservation 1 CPU (others 0 CPUs)  (vm0's own settings)"


def test_quality_lines_label_the_first_and_rate_what_has_a_rating():
    quality = {"jitter_buffer": {"kind": "adaptive"}, "note": "lengthen the run",
               "measuring_conference": _entry(), "groups": {"vm": _entry(r_factor=None), "idle": _entry(0)}}
    lines = _lines(_summary(voice_quality=quality))
    start = next(i for i, line in enumerate(lines) if line.startswith("quality "))
    assert lines[start:] == [
        "quality    R 80.0  MOS 4.00  loss 1.000% + late 0.200%  one-way 1.500 ms  "
        "played: buffer n/a mouth-to-ear n/a  (measuring conference, adaptive jitter buffer)",
        "           R n/a  MOS n/a (the codec model gives no equipment_impairment for the E-model)  "
        "loss 1.000% + late 0.200%  one-way 1.500 ms  played: buffer n/a mouth-to-ear n/a  "
        "(group vm, adaptive jitter buffer)",
        "           note: lengthen the run",
    ]


def test_the_quality_note_is_left_out_when_no_receiver_played_packets():
    quality = {"jitter_buffer": {"kind": "fixed", "nominal_ms": 60.0}, "note": "lengthen the run",
               "measuring_conference": _entry(0), "groups": {}}
    assert not any("quality" in line or "note" in line for line in _lines(_summary(voice_quality=quality)))


def test_uplink_lines_name_each_group_and_the_voice_under_bulk_traffic():
    uplink = {"scheduler": "htb", "capacity_bps": 1e9,
              "groups": {"flood": {"min_second_mbps": None, "throughput_mbps": 400.04, "delivered_pps": 1000.4,
                                   "offered_pps": 2000.0, "interrupts_per_s": 10.0}},
              "request_response": {"rr": {"transactions_per_s": 5000.0, "one_way_latency_mean_us": 25.5,
                                          "one_way_latency_p99_us": 30.0}},
              "during_traffic": {"voice_loss_pps": 12.0, "voice_loss_fraction": 0.125}}
    lines = _lines(_summary(uplink=uplink))
    assert lines[1].endswith("core 24.7%  (request/response traffic's CPU is not modelled)")
    assert lines[-4:] == [
        "uplink     htb, 1000 Mb/s",
        "           group flood: 400.0 Mb/s (lowest VM second n/a)  1000 of 2000 packets/s offered  "
        "10 interrupts/s",
        "           group rr: 5000 transactions/s  one-way 25.50 µs  p99 30.00 µs",
        "           voice while the bulk traffic runs: loss 12/s (12.50%)",
    ]


def test_a_flood_whose_senders_handed_over_less_than_configured_says_so():
    flood = {"min_second_mbps": None, "throughput_mbps": 400.0, "delivered_pps": 1000.0,
             "offered_pps": 2000.0, "configured_pps": 3000.0, "interrupts_per_s": 10.0}
    uplink = {"scheduler": "fifo", "capacity_bps": 1e9, "groups": {"flood": flood}}
    assert "1000 of 2000 packets/s offered (3000 configured: the senders handed over less)  10 " \
        "interrupts/s" in _lines(_summary(uplink=uplink))[-1]
    flood["configured_pps"] = 2010.0  # within a percent: the boundary ticks, not the senders
    assert "configured" not in _lines(_summary(uplink=uplink))[-1]


def test_a_tcp_groups_line_calls_its_rate_a_demand_not_an_offer():
    uplink = {"scheduler": "netioc", "capacity_bps": 1e10,
              "groups": {"bulk": {"min_second_mbps": 3000.0, "throughput_mbps": 3100.0,
                                  "delivered_pps": 804600.0, "demand_pps": 2438231.0,
                                  "loss_fraction": None, "interrupts_per_s": 10.0}}}
    line = _lines(_summary(uplink=uplink))[-1]
    assert "804600 of 2438231 packets/s demand" in line and "offered" not in line


def test_background_and_steal_lines_appear_only_with_their_sections():
    assert not any(line.startswith(("background", "steal")) for line in _lines(_summary()))
    lines = _lines(_summary(guest_background={"bursts_per_vm_per_s": 2.0, "burst_ms": 5.0, "cpu_pct_of_vm": 1.0},
                            host_steal={"stolen_pct": 3.5}))
    assert lines[2] == "background 2.00 bursts/s per VM of 5 ms  (1.00% of each VM's vCPUs)"
    assert lines[-1].startswith("steal      3.500% of the logical CPUs' time")


def test_a_client_stalls_line_follows_the_voice_lines_only_with_its_section():
    assert not any(line.startswith("client") for line in _lines(_summary(offered_pps=100.0)))
    stalls = {"count": 23, "length_ms": 26.0, "stalled_pct": 0.1993, "rate_per_s": 0.075}
    lines = _lines(_summary(offered_pps=100.0, client_stalls=stalls))
    at = next(i for i, line in enumerate(lines) if line.startswith("client"))
    assert lines[at].startswith("client     23 stalls of 26 ms (0.199% of the time)")
    assert lines[at - 1].startswith("voice") and lines[at + 1].startswith("host CPU")


def test_traffic_vms_get_cpu_lines_after_the_media_servers():
    lines = _lines(_summary(traffic_vms={"flood[0]": {"used_pct": 50.0, "ready_pct": 2.5, "costop_pct": 0.0,
                                                          "limited_pct": 0.0}}))
    vm0 = next(i for i, line in enumerate(lines) if line.startswith("vm0 "))
    assert lines[vm0 + 1] == "flood[0]   used 50.0%  ready 2.5%  costop 0.0%  (traffic VM)"
    assert not any("traffic VM" in line for line in _lines(_summary()))


def test_a_vms_ready_time_names_the_part_its_limit_caused_only_when_there_is_one():
    limited = {"used_pct": 60.0, "ready_pct": 339.8, "costop_pct": 0.2, "limited_pct": 338.04,
               "jitter_mean_ms": None, "jitter_p99_ms": None}
    lines = _lines(_summary(vms={"vm0": limited, "vm1": {**limited, "limited_pct": 0.0}}))
    assert next(line for line in lines if line.startswith("vm0")).startswith(
        "vm0        used 60.0%  ready 339.8% (338.0% by its limit)  costop 0.2%")
    assert next(line for line in lines if line.startswith("vm1")).startswith(
        "vm1        used 60.0%  ready 339.8%  costop 0.2%")


def test_a_request_response_line_counts_the_requests_sent_again():
    uplink = {"scheduler": "fifo", "capacity_bps": 1e9, "groups": {},
              "request_response": {"rr": {"transactions_per_s": 600.0, "one_way_latency_mean_us": 6500.0,
                                          "one_way_latency_p99_us": 101375.0, "retransmissions": 3}}}
    assert _lines(_summary(uplink=uplink))[-1] == (
        "           group rr: 600 transactions/s  one-way 6500.00 µs  p99 101375.00 µs  "
        "3 requests lost and sent again")


def test_without_a_measuring_conference_the_jitter_line_says_so_and_not_n_a():
    summary = _summary(offered_pps=100.0, packets_emitted=800)
    summary["jitter"] = {"measuring_conference": False, "mean_ms": None, "p99_ms": None, "samples": 0}
    assert _lines(summary)[1] == ("jitter     no measuring conference (client.measuring_conference = false): "
                                  "each VM's last conference below")


def test_the_host_tasks_cpu_follows_the_host_cpu():
    lines = _lines(_summary(host_background_tasks={"tasks": 3, "used_pct": 119.04, "ready_pct": 181.0}))
    host = next(i for i, line in enumerate(lines) if line.startswith("host CPU"))
    assert lines[host + 1].startswith("host tasks used 119.0%  ready 181.0%  (3 always-runnable tasks")


def test_a_measuring_conference_without_samples_says_why():
    """A VM capped far below its work (vm.limit = 0.01) printed "0 samples" with no reason."""
    summary = _summary(offered_pps=6200.0, packets_emitted=496)
    summary["jitter"] = {**summary["jitter"], "samples": 0, "mean_ms": None}
    line = _lines(summary)[1]
    assert line.endswith("(0 samples, measuring conference): none of its packets arrived after warm-up "
                         "(the guests fell behind their ticks: see voice below)")
    assert _lines(_summary(offered_pps=6200.0, packets_emitted=49600))[1].endswith("measuring conference)")
    # the guests kept up (sent a hair below offered, a window's edge) and the uplink dropped them
    summary = _summary(offered_pps=6200.0, packets_emitted=49590, measured_packets=2000,
                       measured_loss_fraction=1.0)
    summary["jitter"] = {**summary["jitter"], "samples": 0, "mean_ms": None}
    assert _lines(summary)[1].endswith("none of its packets arrived after warm-up (all were lost on the way: "
                                       "see the loss below)")


def test_the_all_vm_line_says_how_many_vms_it_counts_when_some_had_no_packets():
    summary = _summary(offered_pps=100.0, packets_emitted=800)
    summary["instances_jitter"].update(vms=14, vms_with_samples=13)
    assert _lines(summary)[2].endswith(
        "(each VM's last conference; 13 of 14 VMs had packets after warm-up)")
    assert _lines(_summary(offered_pps=100.0, packets_emitted=800))[2].endswith(
        "(each VM's last conference)")
