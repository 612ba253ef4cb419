"""The receiver's sockets, run inside the receiver's namespace: ``python -m vsim.probe.sink``.

It binds every port the senders aim at and discards what arrives, so the
receiver answers no datagram with an ICMP port-unreachable (which would
travel back through the sender's veth). Arrival times come from the
capture, not from here. It stops after ``--duration`` seconds.
"""

import argparse
import selectors
import socket
import time


def open_sockets(ports):
    """Non-blocking UDP sockets bound to every one of ``ports``."""
    sockets = []
    for port in ports:
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.bind(("", port))
        sock.setblocking(False)
        sockets.append(sock)
    return sockets


def drain(sockets, duration_s):
    """Receive and discard datagrams on ``sockets`` for ``duration_s``; the number received."""
    selector = selectors.DefaultSelector()
    for sock in sockets:
        selector.register(sock, selectors.EVENT_READ)
    received = 0
    end = time.monotonic() + duration_s
    while (left := end - time.monotonic()) > 0:
        for key, _ in selector.select(min(left, 0.5)):
            try:
                while True:
                    key.fileobj.recv(65536)
                    received += 1
            except BlockingIOError:
                pass
    return received


def main(argv=None):
    """Command line of the receiving process a probe starts."""
    parser = argparse.ArgumentParser(prog="python -m vsim.probe.sink")
    parser.add_argument("--ports", required=True, help="comma-separated UDP ports")
    parser.add_argument("--duration", type=float, required=True)
    args = parser.parse_args(argv)
    print(drain(open_sockets(int(port) for port in args.ports.split(",")), args.duration), flush=True)


if __name__ == "__main__":
    main()
