"""Traffic sources: framing arithmetic against the studies' numbers, rates, closed loops, errors."""

import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

from vsim.core.errors import InputError
from vsim.net.fluid.flows import Flows
from vsim.net.sources import SOURCES, make_source
from vsim.net.sources.udp_flood import pps_for_bitrate
from vsim.net.uplink import make_uplink_scheduler


def test_registry():
    assert sorted(SOURCES) == ["nfs_read", "packets_replay", "sipp_uac", "tcp_rr", "tcp_stream",
                               "udp_flood", "web_users"]
    with pytest.raises(InputError, match=r"s.toml: vm.traffic.kind: one of .*got 'sctp'"):
        make_source("sctp", {}, source="s.toml", where="vm.traffic")
    with pytest.raises(InputError, match=r"vm.traffic.ppps: a parameter of udp_flood: one of .*; did you mean 'pps'\?"):
        make_source("udp_flood", {"ppps": 1}, source="s.toml", where="vm.traffic")
    with pytest.raises(InputError, match=r"vm.traffic.rate: a parameter of udp_flood: one of pps, ip_bytes"):
        make_source("udp_flood", {"rate": 1}, source="s.toml", where="vm.traffic")
    with pytest.raises(InputError, match=r"vm.traffic.kind: did you mean 'tcp_rr'\?"):
        make_source("tcp_r", {}, source="s.toml", where="vm.traffic")


def line_goodput_bps(stream, rate_bps):
    """Goodput of ``stream`` alone on a ``rate_bps`` link: all it offers gets through."""
    return stream.goodput_bps(stream.demand_pps(rate_bps))


def test_tcp_goodput_at_line_rate_is_941_mbps_and_9_41_gbps():
    stream = make_source("tcp_stream", {})
    assert stream.payload == 1448
    assert line_goodput_bps(stream, 1e9) / 1e6 == pytest.approx(941.5, abs=0.1)
    assert line_goodput_bps(stream, 10e9) / 1e9 == pytest.approx(9.415, abs=0.001)
    assert line_goodput_bps(make_source("tcp_stream", {"timestamps": False}), 1e9) / 1e6 == \
        pytest.approx(949.3, abs=0.1)


def test_tcp_window_limits_the_rate():
    stream = make_source("tcp_stream", {"window_bytes": 65536, "rtt": 1e-3})
    assert stream.goodput_bps(stream.demand_pps(10e9)) == pytest.approx(65536 * 8 / 1e-3)
    assert stream.demand_pps(1e8) == pytest.approx(stream.line_pps(1e8))


def test_nfs_reads_offer_their_workers_blocks_per_round_trip_up_to_the_line():
    reads = make_source("nfs_read", {"rtt": 1e-3})
    assert reads.window_bytes == 4 * (32768 + 128)  # four 32 KB replies, each behind 128 bytes
    blocks_per_s = 4 / 1e-3
    assert reads.goodput_bps(reads.demand_pps(10e9)) == pytest.approx(blocks_per_s * 32768 * 8)
    fast = make_source("nfs_read", {"rtt": 20e-6})  # a RAMDisk next door: the line is the limit
    assert fast.goodput_bps(fast.demand_pps(10e9)) == pytest.approx(
        9.415e9 * 32768 / (32768 + 128), rel=1e-3)
    assert fast.in_flight_packets() == pytest.approx(4 * (32768 + 128) / 1448)


@pytest.mark.parametrize("params, key", [({}, "rtt"), ({"rtt": 1e-4, "workers": 0}, "workers"),
                                         ({"rtt": -1.0}, "rtt"),
                                         ({"rtt": 1e-4, "block_bytes": 0.5}, "block_bytes")])
def test_bad_nfs_read_parameters_name_their_key(params, key):
    with pytest.raises(InputError, match=rf"s.toml: group.nfs.traffic.params.{key}: "):
        make_source("nfs_read", params, "s.toml", "group.nfs.traffic.params")


def test_tcp_follows_its_allocation_beside_a_flood():
    stream = make_source("tcp_stream", {})
    uplink = make_uplink_scheduler("fifo", 1e9, 1000, rng=np.random.default_rng(1))
    flood_pps = pps_for_bitrate(400e6, 1000, level="wire")
    uplink.set_flows(0.0, Flows.of([stream.demand_pps(1e9), flood_pps], [1500, 1000], 0, [1, 2],
                                   elastic=[True, False]))
    assert stream.goodput_bps(uplink.flow_rates[0]) == pytest.approx(0.6 * 941.5e6, rel=1e-3)


def test_flood_bitrate_of_the_study():
    # 880 Mb/s of frames at 390 K packets/s: 282-byte frames, 264-byte IP packets
    assert pps_for_bitrate(880e6, 264) == pytest.approx(390_071, rel=1e-5)
    assert pps_for_bitrate(1e9, 1500, level="wire") == pytest.approx(1e9 / (1538 * 8))


@given(st.floats(0.001, 1.0), st.floats(0.001, 1.0), st.floats(0.0, 2.0), st.floats(1.0, 20.0))
def test_on_off_flood_sends_its_mean_rate(on, off, start, length):
    flood = make_source("udp_flood", {"pps": 1000.0, "ip_bytes": 100, "on": on, "off": off,
                                      "start": start})
    times, rates = flood.rate_changes(start + length)
    assert np.all(np.diff(times) >= 0) and rates[-1] == 0
    sent = float(np.sum(np.diff(times) * rates[:-1]))
    cycles = length / (on + off)
    full = math.floor(cycles)
    partial = min(on, (cycles - full) * (on + off))
    assert sent == pytest.approx(1000.0 * (full * on + partial), rel=1e-9, abs=1e-6)
    assert flood.mean_pps() == pytest.approx(1000.0 * on / (on + off))


def test_random_on_off_periods_average_out_and_repeat_with_the_seed():
    def changes(seed):
        return make_source("udp_flood", {"pps": 1.0, "ip_bytes": 100, "on": 0.01, "off": 0.03,
                                         "random_periods": True},
                           rng=np.random.default_rng(seed)).rate_changes(200.0)
    times, rates = changes(1)
    assert float(np.sum(np.diff(times) * rates[:-1])) / 200.0 == pytest.approx(0.25, rel=0.05)
    assert all(np.array_equal(a, b) for a, b in zip(changes(1), changes(1)))


def test_constant_flood_with_a_start():
    times, rates = make_source("udp_flood", {"pps": 5.0, "ip_bytes": 64, "start": 300.0,
                                             "stop": 600.0}).rate_changes(1000.0)
    assert times.tolist() == [0.0, 300.0, 600.0] and rates.tolist() == [0.0, 5.0, 0.0]


@pytest.mark.parametrize("params, where", [
    ({"pps": -1, "ip_bytes": 100}, "pps"),
    ({"pps": 1, "ip_bytes": 0}, "ip_bytes"),
    ({"pps": 1, "ip_bytes": 100, "on": 1.0}, "off"),
    ({"pps": 1, "ip_bytes": 100, "start": 5, "stop": 2}, "stop"),
    ({"pps": math.inf, "ip_bytes": 100}, "pps"),
    ({"pps": 1e12, "ip_bytes": 100}, "pps"),        # beyond any Ethernet link's packet rate
    ({"pps": 1, "ip_bytes": 10}, "ip_bytes"),       # below IPv4 and UDP's 28 bytes of headers
    ({"pps": 1, "ip_bytes": 100000}, "ip_bytes"),   # above the 65535-byte IPv4 maximum
    ({"ip_bytes": 100}, "pps"),                     # a required parameter missing
])
def test_bad_flood_parameters(params, where):
    """Each refused with the parameter named; the largest packet rate a link carries passes."""
    make_source("udp_flood", {"pps": 1e9, "ip_bytes": 100}, source="f.toml", where="flood")
    with pytest.raises(InputError, match=rf"f.toml: flood.{where}"):
        make_source("udp_flood", params, source="f.toml", where="flood")


@pytest.mark.parametrize("kind, params, where", [
    ("udp_flood", {}, "pps"),
    ("tcp_stream", {"mtu": 65536}, "mtu"),
    ("tcp_rr", {"request_bytes": 65535}, "request_bytes"),
    ("tcp_rr", {"response_bytes": 70000}, "response_bytes"),
])
def test_every_source_names_a_missing_or_oversized_parameter(kind, params, where):
    with pytest.raises(InputError, match=rf"f.toml: g.{where}: expected"):
        make_source(kind, params, source="f.toml", where="g")


def test_a_missing_parameter_error_names_all_that_are_missing():
    with pytest.raises(InputError, match=r"expected pps and ip_bytes, which udp_flood requires"):
        make_source("udp_flood", {}, source="f.toml", where="g")


@given(st.integers(28, 65535))
def test_every_ip_packet_size_a_udp_datagram_can_have_is_accepted(ip_bytes):
    assert make_source("udp_flood", {"pps": 1.0, "ip_bytes": ip_bytes}).ip_bytes == ip_bytes


def test_a_request_is_one_116_byte_packet_and_chains_are_whole():
    rr = make_source("tcp_rr", {"outstanding": 2})
    assert rr.ip_bytes == 116
    with pytest.raises(InputError, match="rr.outstanding: a whole number"):
        make_source("tcp_rr", {"outstanding": 1.5}, where="rr")


def test_a_flood_declares_its_packets_paced_unless_it_says_poisson():
    assert make_source("udp_flood", {"pps": 10.0, "ip_bytes": 100}).arrivals == "paced"
    assert make_source("udp_flood", {"pps": 10.0, "ip_bytes": 100,
                                     "arrivals": "poisson"}).arrivals == "poisson"
    with pytest.raises(InputError, match=r"s.toml: g.traffic.arrivals: one of \['paced', 'poisson', 'batched'\]"):
        make_source("udp_flood", {"pps": 10.0, "ip_bytes": 100, "arrivals": "bursty"},
                    source="s.toml", where="g.traffic")


def test_a_flood_on_wake_ups_declares_its_write_pattern_and_only_it_takes_one():
    flood = make_source("udp_flood", {"pps": 10.0, "ip_bytes": 100, "arrivals": "batched", "wakeup": 1e-3,
                                      "wakeup_median": 9e-5, "wakeup_sigma": 0.3, "write_spacing": 7e-6,
                                      "stall_share": 0.01, "stall_mean": 9e-3, "send_buffer": 92.44})
    assert (flood.batches.period, flood.batches.stall_mean, flood.batches.send_buffer) == (1e-3, 9e-3, 92.44)
    assert make_source("udp_flood", {"pps": 10.0, "ip_bytes": 100}).batches is None
    with pytest.raises(InputError, match=r"s.toml: g.traffic.wakeup: .* arrivals = \"batched\" needs"):
        make_source("udp_flood", {"pps": 10.0, "ip_bytes": 100, "arrivals": "batched"},
                    source="s.toml", where="g.traffic")
    with pytest.raises(InputError, match=r"s.toml: g.traffic.stall_mean: only with arrivals = \"batched\""):
        make_source("udp_flood", {"pps": 10.0, "ip_bytes": 100, "stall_mean": 1e-3},
                    source="s.toml", where="g.traffic")
    with pytest.raises(InputError, match=r"s.toml: g.traffic.send_buffer: only with arrivals = \"batched\""):
        make_source("udp_flood", {"pps": 10.0, "ip_bytes": 100, "send_buffer": 92.0},
                    source="s.toml", where="g.traffic")
    with pytest.raises(InputError, match=r"s.toml: g.traffic.send_buffer: "):
        make_source("udp_flood", {"pps": 10.0, "ip_bytes": 100, "arrivals": "batched", "wakeup": 1e-3,
                                  "send_buffer": -1.0}, source="s.toml", where="g.traffic")
    with pytest.raises(InputError, match=r"g.traffic.stall_share: a share of the wake-ups within \[0, 1\]"):
        make_source("udp_flood", {"pps": 10.0, "ip_bytes": 100, "arrivals": "batched", "wakeup": 1e-3,
                                  "stall_share": 2.0}, source="s.toml", where="g.traffic")


@pytest.mark.parametrize("kind, params, key", [
    ("tcp_rr", {"request_bytes": 64.5}, "request_bytes"),
    ("tcp_rr", {"response_bytes": 0}, "response_bytes"),
    ("tcp_rr", {"outstanding": 1e6}, "outstanding"),
    ("tcp_rr", {"timestamps": "false"}, "timestamps"),
    ("tcp_rr", {"timestamps": 3}, "timestamps"),
    ("tcp_stream", {"timestamps": "no"}, "timestamps"),
])
def test_whole_numbers_and_flags_are_checked(kind, params, key):
    with pytest.raises(InputError) as error:
        make_source(kind, params, source="s.toml", where="traffic")
    assert error.value.where == f"traffic.{key}"


# ------------------------------------------------------------- packets_replay
REPLAY_COLUMNS = dict(send_s=[0.5, 0.3, 0.3, 0.9, 0.7], size_bytes=[78, 1042, 78, 1042, 78],
                      streams=["a", "flood", "b", "flood", "a"],
                      classes=["voice", "flood", "voice", "flood", "voice"], path="t.csv")


def replay(**params):
    return make_source("packets_replay", {"trace": "t.csv", **params}, source="s.toml",
                       where="group.r.traffic.params")


@pytest.mark.parametrize("params, key", [
    ({"trace": ""}, "trace"), ({"trace": 3}, "trace"), ({"offset": -1.0}, "offset"),
    ({"offset": math.inf}, "offset"), ({"stream": 7}, "stream"), ({"traffic_class": ""}, "traffic_class"),
])
def test_replay_parameters_are_checked_by_name(params, key):
    with pytest.raises(InputError) as info:
        replay(**params)
    assert info.value.where == f"group.r.traffic.params.{key}"


def test_replay_sends_the_kept_packets_in_time_order_from_the_offset_with_their_ip_sizes():
    every = replay(offset=0.25).recorded(**REPLAY_COLUMNS)
    times, ip_bytes = every.send_times(2.0)
    assert times.tolist() == pytest.approx([2.25, 2.25, 2.45, 2.65, 2.85], abs=1e-12)
    assert ip_bytes.tolist() == [1024, 60, 60, 60, 1024]  # ties keep the trace's order
    assert every.packets == 5 and every.ip_bytes == pytest.approx(2228 / 5)
    flood = replay(traffic_class="flood").recorded(**REPLAY_COLUMNS)
    assert flood.send_times(0.0)[0].tolist() == pytest.approx([0.0, 0.6])
    stream = replay(stream="a").recorded(**REPLAY_COLUMNS)
    assert stream.send_times(1.0)[0].tolist() == pytest.approx([1.0, 1.2])


@pytest.mark.parametrize("params, columns, key, words", [
    ({"stream": "c"}, {}, "stream", "got 'c'"),
    ({"traffic_class": "video"}, {}, "traffic_class", "flood, voice"),
    ({}, {"size_bytes": [78, 40, 78, 1042, 78]}, "trace", "got 40"),
    ({}, {"send_s": [], "size_bytes": [], "streams": [], "classes": []}, "trace", "has none"),
])
def test_a_replay_that_keeps_nothing_or_an_impossible_frame_names_its_key(params, columns, key, words):
    with pytest.raises(InputError) as info:
        replay(**params).recorded(**{**REPLAY_COLUMNS, **columns})
    assert info.value.where == f"group.r.traffic.params.{key}" and words in info.value.expected
