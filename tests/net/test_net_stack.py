"""The stack cost model: throughput is the least of its bounds, CPU is packets x per-packet +
bytes x per-byte, TSO never changes the bytes delivered, request/response rate is 1/RTT."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vsim.net.frames import wire_bytes
from vsim.net.stack.layers import Layer, Work
from vsim.net.stack.paths import Endpoint, Framing, stream_works, wire_goodput
from vsim.net.stack.request_response import request_response, throttled_round_trip
from vsim.net.stack.throughput import cpu_rate, tcp_throughput

cost = st.floats(min_value=0.0, max_value=1e-5, allow_nan=False)
per_byte = st.floats(min_value=0.0, max_value=1e-8, allow_nan=False)
rate = st.floats(min_value=1e3, max_value=1e10, allow_nan=False)


@st.composite
def works(draw):
    cpus = draw(st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=1, max_size=8))
    return [Work(cpu, draw(per_byte), f"w{i}", draw(st.floats(0, 1e-3)), draw(cost),
                 draw(st.one_of(st.just(math.inf), st.floats(100, 1e6))))
            for i, cpu in enumerate(cpus)]


@settings(max_examples=200, deadline=None)
@given(works(), rate, rate)
def test_throughput_is_the_least_of_the_bounds(ws, wire, window):
    result = tcp_throughput(ws, wire=wire, window=window)
    cpus = {w.cpu for w in ws}
    bounds = [wire, window] + [cpu_rate([w for w in ws if w.cpu == c]) for c in cpus]
    assert result.rate == min(bounds)
    assert set(result.bounds) == {"wire", "window"} | {f"cpu {c}" for c in cpus}
    assert result.bounds[result.limit] == result.rate
    for cpu in cpus:  # no CPU is loaded beyond its capacity at the stream's rate
        assert result.utilisation[cpu] <= 1 + 1e-9


@settings(max_examples=200, deadline=None)
@given(works())
def test_a_cpu_bound_fills_that_cpu_exactly(ws):
    mine = [w for w in ws if w.cpu == ws[0].cpu]
    r = cpu_rate(mine)
    if math.isfinite(r) and r > 0:
        assert sum(w.load(r) for w in mine) == pytest.approx(1.0, rel=1e-9)


@given(st.lists(per_byte, min_size=1, max_size=6))
def test_without_interrupt_caps_a_cpu_bound_is_one_over_its_seconds_per_byte(costs):
    ws = [Work("cpu", c, "w") for c in costs]
    expected = math.inf if sum(costs) == 0 else 1 / sum(costs)
    assert cpu_rate(ws) == pytest.approx(expected)


@given(st.integers(0, 10 ** 6), st.integers(0, 10 ** 9), cost, per_byte)
def test_cpu_is_packets_times_per_packet_plus_bytes_times_per_byte(packets, nbytes, pp, pb):
    layer = Layer("x", tx_per_packet=pp, tx_per_byte=pb, rx_per_packet=2 * pp, rx_per_byte=3 * pb)
    assert layer.cpu_seconds(packets, nbytes) == pytest.approx(packets * pp + nbytes * pb)
    assert layer.cpu_seconds(packets, nbytes, "rx") == pytest.approx(packets * 2 * pp + nbytes * 3 * pb)


def _layers(draw, name, **extra):
    return Layer(name, tx_per_packet=draw(cost), tx_per_byte=draw(per_byte), rx_per_packet=draw(cost),
                 rx_per_byte=draw(per_byte), **extra)


@st.composite
def vm_to_native(draw):
    vm = Endpoint("vcpu", "esx", _layers(draw, "guest"), Layer("vnic_drv", tx_per_packet=draw(cost),
                  rx_per_packet=draw(cost), tso=True),
                  Layer("dev", tx_per_packet=draw(cost), rx_per_packet=draw(cost), tso=True),
                  Layer("vsw", tx_per_packet=draw(cost), rx_per_packet=draw(cost), copy_per_byte=draw(per_byte),
                        segment_per_frame=draw(cost)))
    client = Endpoint("client", "client", _layers(draw, "cguest"),
                      Layer("nic", tx_per_packet=draw(cost), rx_per_packet=draw(cost), tso=True))
    return vm, client


@settings(max_examples=100, deadline=None)
@given(vm_to_native(), st.sampled_from([1500, 9000]), st.sampled_from([1, 7, 45]), st.floats(0.1, 10))
def test_cpu_consumed_in_a_period_is_what_its_packets_and_bytes_cost(ends, mtu, k, period):
    """Count the packets each layer handles in ``period`` at the stream's rate and charge them and
    the bytes at the layers' costs: that is each CPU's busy time in the period."""
    vm, client = ends
    framing = Framing(mtu, k)
    result = tcp_throughput(stream_works(vm, client, framing), wire=wire_goodput(framing, 1e9))
    data = result.rate * period
    frames, segments = data / framing.payload, data / (k * framing.payload)
    acks = frames / client.guest.ack_every
    g, d, vs, nic, c, cnic = vm.guest, vm.device, vm.vswitch, vm.nic, client.guest, client.nic
    expected = {
        "vcpu": g.cpu_seconds(segments, data) + g.cpu_seconds(acks, 0, "rx") + d.cpu_seconds(segments, 0)
        + d.cpu_seconds(acks, 0, "rx"),
        "esx tx": vs.cpu_seconds(segments, 0) + nic.cpu_seconds(segments, 0),
        "esx rx": (nic.rx_per_packet + vs.rx_per_packet) * acks + vs.copy_per_byte * 66 * acks,
        "client": cnic.cpu_seconds(frames, 0, "rx") + cnic.cpu_seconds(acks, 0) + c.cpu_seconds(frames, data, "rx")
        + c.cpu_seconds(acks, 0),
    }
    for cpu, seconds in expected.items():
        assert result.utilisation[cpu] * period == pytest.approx(seconds, rel=1e-9, abs=1e-15)


@settings(max_examples=100, deadline=None)
@given(vm_to_native(), st.sampled_from([576, 1500, 9000]), st.integers(2, 45), rate)
def test_tso_never_changes_the_bytes_delivered(ends, mtu, k, line):
    """The same data crosses the wire in the same MTU frames whatever the guest's segments, so
    the wire's bound is the same; TSO only takes work off the CPUs, never adds."""
    vm, client = ends
    plain, tso = Framing(mtu, 1), Framing(mtu, k)
    assert wire_goodput(plain, line) == wire_goodput(tso, line)
    assert wire_goodput(tso, line) == pytest.approx(line / 8 * (mtu - 52) / wire_bytes(mtu))
    without = tcp_throughput(stream_works(vm, client, plain), wire=wire_goodput(plain, line))
    with_tso = tcp_throughput(stream_works(vm, client, tso), wire=wire_goodput(tso, line))
    assert with_tso.rate >= without.rate * (1 - 1e-12)


def test_tso_needs_a_stack_that_offloads_segments():
    guest = Layer("g")
    native = Endpoint("cpu", "box", guest, Layer("nic", tso=False))
    with pytest.raises(ValueError, match="TSO"):
        stream_works(native, native, Framing(1500, 45))


@settings(max_examples=100, deadline=None)
@given(vm_to_native(), st.booleans(), st.floats(0, 1e-4), st.integers(1, 1400))
def test_request_response_rate_is_one_over_the_round_trip(ends, local, wake, size):
    vm, client = ends
    device = Layer("dev", tx_per_packet=vm.device.tx_per_packet, rx_per_packet=1e-6, wake_latency=wake)
    vm = Endpoint(vm.name, vm.host, vm.guest, vm.nic, device, vm.vswitch)
    peer = Endpoint("peer", vm.host, vm.guest, vm.nic, device, vm.vswitch) if local else client
    rr = request_response(vm, peer, size, size, local=local, rate_bps=1e9, link_latency=1e-6)
    assert rr.rate == pytest.approx(1 / rr.rtt)
    assert rr.rtt >= sum(rr.cpu.values()) + wake  # every CPU's work lies on the round trip


def test_more_than_one_transaction_in_flight_is_refused():
    end = Endpoint("a", "h", Layer("g"), Layer("n"))
    with pytest.raises(ValueError, match="one transaction"):
        request_response(end, end, rate_bps=1e9, outstanding=2)


def one_in_flight_period(hops, transactions=400):
    """Reference: transactions one after another through ``hops``, each ("time", seconds) or
    ("nic", interval), a NIC signalling a packet at once unless its last interrupt was less
    than its interval ago, then when the interval ends; the period of the last transaction."""
    last = {}
    t = start = 0.0
    for _ in range(transactions):
        start = t
        for index, (kind, value) in enumerate(hops):
            if kind == "time":
                t += value
            else:
                t = max(t, last.get(index, -math.inf) + value)
                last[index] = t
    return t - start


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["time", "nic"]), st.floats(1e-6, 1e-3)), min_size=1, max_size=6))
def test_a_throttled_round_trip_is_the_period_of_one_transaction_in_flight(hops):
    base = sum(v for kind, v in hops if kind == "time")
    intervals = [v for kind, v in hops if kind == "nic"]
    rtt = throttled_round_trip(base, intervals)
    assert one_in_flight_period(hops) == pytest.approx(rtt, rel=1e-9)
    assert rtt >= base


def test_a_throttled_nic_stretches_a_short_round_trip_to_its_interval():
    assert throttled_round_trip(40e-6, [125e-6]) == pytest.approx(125e-6)
    assert throttled_round_trip(40e-6, [125e-6, 125e-6]) == pytest.approx(125e-6)
    assert throttled_round_trip(200e-6, [125e-6]) == pytest.approx(200e-6)


@settings(max_examples=100, deadline=None)
@given(vm_to_native(), st.sampled_from([1500, 9000]), st.sampled_from([1, 45]))
def test_native_is_the_vm_path_with_the_hypervisor_costs_removed(ends, mtu, k):
    """A VM whose device, virtual switch and hypervisor driver cost nothing streams exactly as
    the same stack run natively over a driver that costs nothing."""
    vm, client = ends
    free = Layer("free", tso=True)
    ghost = Endpoint("cpu", "esx", vm.guest, free, free, free)
    native = Endpoint("cpu", "native", vm.guest, free)
    framing = Framing(mtu, k)
    wire = wire_goodput(framing, 1e9)
    for sender, receiver in ((ghost, client), (client, ghost)):
        as_native = native if sender is ghost else client, native if receiver is ghost else client
        got = tcp_throughput(stream_works(sender, receiver, framing if sender is ghost else Framing(mtu, 1)),
                             wire=wire)
        want = tcp_throughput(stream_works(*as_native, framing if sender is ghost else Framing(mtu, 1)),
                              wire=wire)
        assert got.rate == pytest.approx(want.rate, rel=1e-12)


def test_two_vms_on_one_vswitch_have_no_wire_bound():
    guest = Layer("g", tx_per_packet=1e-6, rx_per_packet=1e-6, rx_per_byte=1e-10)
    vswitch = Layer("vsw", tx_per_packet=1e-6, copy_per_byte=1e-10, segment_per_frame=1e-7)
    a = Endpoint("a", "esx", guest, Layer("nic"), Layer("dev", tso=True), vswitch)
    b = Endpoint("b", "esx", guest, Layer("nic"), Layer("dev", tso=True), vswitch)
    result = tcp_throughput(stream_works(a, b, Framing(1500, 45), local=True))
    assert result.bounds["wire"] == math.inf and result.limit == "cpu b"
    # the receiver's per-frame and per-byte work, one ACK per two frames at its send cost
    per_byte = 1e-6 / 1448 + 1e-10 + 1e-6 / (2 * 1448)
    assert result.rate == pytest.approx(1 / per_byte)
