"""Tests of the receiver's sink on the loopback interface."""

import socket
import threading

from vsim.probe.sink import drain, open_sockets


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind(("", 0))
        return sock.getsockname()[1]


def test_the_sink_takes_what_arrives_on_its_ports_and_stops():
    port = free_port()
    sockets = open_sockets([port])
    counted = []
    worker = threading.Thread(target=lambda: counted.append(drain(sockets, 1.0)))
    worker.start()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sender:
        for _ in range(20):
            sender.sendto(b"x", ("127.0.0.1", port))
    worker.join(10)
    assert not worker.is_alive()
    assert counted == [20]
    for sock in sockets:
        sock.close()
