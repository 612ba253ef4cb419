"""The receiver's record: ticks as evenly spaced rows and ticks with each frame's departure."""

import numpy as np

from vsim.guest.measuring_client import MeasuringClient


def test_frame_departures_are_kept_as_they_are_and_drops_are_nan():
    client = MeasuringClient(latency=0.5)
    client.sent(0, 0.0, 3)
    client.departed_frames(0, [1.0, np.nan, 1.2])
    client.sent(1, 0.02, 3)
    client.departed_frames(1, [2.0, 2.1, 2.2])
    streams, send, recv = client.arrays()
    assert streams.tolist() == [0, 0, 1, 1, 2, 2]
    assert send.tolist() == [0.0, 0.02, 0.0, 0.02, 0.0, 0.02]
    assert np.isnan(recv[2]) and np.delete(recv, 2).tolist() == [1.5, 2.5, 2.6, 1.7, 2.7]


def test_rows_and_frames_mix_in_stream_then_send_order():
    client = MeasuringClient(latency=0.0)
    client.sent(0, 0.0, 2)
    client.departed(0, 1.0, 0.1, 2, 2)       # an evenly spaced tick
    client.sent(1, 0.02, 2)
    client.lost(1, 1, 2)                     # stream 1 lost at the ring
    client.departed_frames(1, [1.5])         # stream 0 left the uplink
    streams, send, recv = client.arrays()
    assert streams.tolist() == [0, 0, 1, 1]
    assert send.tolist() == [0.0, 0.02, 0.0, 0.02]
    assert recv[:3].tolist() == [1.0, 1.5, 1.1] and np.isnan(recv[3])


def test_rows_alone_are_expanded_as_before():
    client = MeasuringClient(latency=0.01)
    client.sent(7, 0.14, 4)
    client.departed(7, 2.0, 0.5, 3, 4)
    streams, send, recv = client.arrays()
    assert streams.tolist() == [0, 1, 2, 3]
    assert recv[:3].tolist() == [2.01, 2.51, 3.01] and np.isnan(recv[3])
