"""Tests of the senders on the loopback interface: what they log is what a receiver gets."""

import socket

import numpy as np
import pytest

from vsim.probe import rtp
from vsim.probe.clock import now_ns
from vsim.probe.send import send_flood, send_voice, voice_offsets_ns


@pytest.fixture
def receiver():
    """A UDP socket on 127.0.0.1 with a large buffer; its port."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    sock.bind(("127.0.0.1", 0))
    sock.settimeout(2)
    yield sock
    sock.close()


def received(sock, count):
    return [sock.recv(2048) for _ in range(count)]


def test_tick_offsets_are_zero_and_spread_ones_even():
    assert voice_offsets_ns(4, 20_000_000, "tick") == [0, 0, 0, 0]
    assert voice_offsets_ns(4, 20_000_000, "spread") == [0, 5_000_000, 10_000_000, 15_000_000]


def test_the_flood_logs_every_datagram_it_sends(receiver):
    port = receiver.getsockname()[1]
    log = send_flood("127.0.0.1", port, 100, 1000.0, now_ns(), 0.05)
    assert len(log) == 50
    np.testing.assert_array_equal(log[:, 1], np.arange(50))
    assert np.all(np.diff(log[:, 3]) >= 0)
    payloads = received(receiver, 50)
    assert all(len(p) == 100 for p in payloads)
    assert [rtp.parse_flood(p) for p in payloads] == [(int(s), int(t)) for s, t in log[:, [1, 3]]]


def test_a_flood_on_a_wakeup_timer_writes_its_due_datagrams_in_batches(receiver):
    """5000 datagrams/s on 4 ms wake-ups: about 20 datagrams back to back per wake-up, and the mean
    rate held up to the last wake-up before the schedule's end (what falls due after it is not sent)."""
    port = receiver.getsockname()[1]
    log = send_flood("127.0.0.1", port, 100, 5000.0, now_ns(), 0.2, wakeup_s=0.004)
    assert 1000 - 0.004 * 5000 - 1 <= len(log) <= 1000
    gaps = np.diff(log[:, 3])
    assert np.sum(gaps > 1_000_000) <= 1000 / 10  # most datagrams follow the last within 1 ms
    assert np.sum(gaps > 2_000_000) >= 0.2 / 0.004 * 0.5  # and there are gaps between wake-ups
    assert len(received(receiver, len(log))) == len(log)


def test_voice_streams_send_one_rtp_packet_per_period(receiver):
    port = receiver.getsockname()[1]
    log = send_voice("127.0.0.1", port, 1, 0.01, "tick", now_ns(), 0.05)
    assert log[:, 1].tolist() == [0, 1, 2, 3, 4]
    assert log[:, 2].tolist() == [0, 80, 160, 240, 320]  # 8 kHz clock, 10 ms
    parsed = [rtp.parse_voice(p) for p in received(receiver, 5)]
    assert [(seq, ts, sent) for _, seq, ts, sent in parsed] == [tuple(row) for row in log[:, 1:].tolist()]
    assert {ssrc for ssrc, _, _, _ in parsed} == {rtp.SSRC_BASE}


def test_senders_stop_at_the_end_of_their_schedule(receiver):
    """A sender too far behind (here: its whole 0.5 s schedule ended before it began) sends nothing more,
    rather than catching up past the end and outlasting the probe."""
    port = receiver.getsockname()[1]
    start = now_ns() - 1_000_000_000
    assert len(send_flood("127.0.0.1", port, 100, 1000.0, start, 0.5)) == 0
    assert len(send_voice("127.0.0.1", port, 1, 0.01, "tick", start, 0.5)) == 0
