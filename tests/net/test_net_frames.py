"""Ethernet framing arithmetic against hand-computed VoIP and TCP numbers."""

import numpy as np
import pytest

from vsim.net import frames


def test_g729_packet_sizes():
    ip = frames.ip_bytes_for_rtp(20)
    assert ip == 60
    assert frames.frame_bytes(ip) == 78
    assert frames.wire_bytes(ip) == 98


def test_g711_packet_sizes():
    ip = frames.ip_bytes_for_rtp(160)
    assert ip == 200
    assert frames.frame_bytes(ip) == 218
    assert frames.wire_bytes(ip) == 238


def test_g729_conference_load_in_frame_bits():
    streams, packets_per_second = 1440, 50
    bits_per_second = streams * packets_per_second * frames.frame_bytes(60) * 8
    assert bits_per_second == pytest.approx(44.928e6)


def test_tiny_payloads_are_padded_to_the_minimum_frame():
    assert frames.frame_bytes(0) == 64
    assert frames.frame_bytes(28) == 64
    assert frames.frame_bytes(46) == 64
    assert frames.frame_bytes(47) == 65
    assert frames.wire_bytes(28) == 84


def test_tcp_goodput_on_gigabit_ethernet():
    mtu = 1500
    tcp_with_timestamps = 20 + 12
    payload = mtu - frames.IPV4_HEADER - tcp_with_timestamps
    assert payload == 1448
    assert frames.wire_bytes(mtu) == 1538
    goodput = payload * 8 / frames.serialization_time(mtu, 1e9)
    assert goodput == pytest.approx(941.5e6, rel=1e-4)


def test_functions_work_elementwise_on_arrays():
    ip = np.array([10, 60, 1500])
    np.testing.assert_array_equal(frames.frame_bytes(ip), [64, 78, 1518])
    np.testing.assert_array_equal(frames.wire_bytes(ip), [84, 98, 1538])
    np.testing.assert_allclose(frames.serialization_time(ip, 1e9),
                               np.array([84, 98, 1538]) * 8e-9)
