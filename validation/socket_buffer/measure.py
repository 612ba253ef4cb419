"""What a UDP sender's socket holds per queued datagram, and when its send blocks.

Run as root: python3 validation/socket_buffer/measure.py > validation/socket_buffer/measured.txt

A network namespace with a veth pair, one end's root qdisc a token bucket of 400 kbit/s
over a pfifo of 1000 packets, so that what is sent stays queued (a datagram leaves every 21 ms); a UDP socket there (its send
buffer as the machine gives it, net.core.wmem_default) sends datagrams of 1000 B one at a time,
non-blocking, and after each reads its unsent bytes (ioctl SIOCOUTQ: the socket's
sk_wmem_alloc, the truesize of every skb it has not freed). Printed: the send buffer, the bytes
held per datagram (the skb's truesize), and how many datagrams were queued when a send first
refused (EAGAIN, where a blocking send would have waited); then one blocking send, how long it
waited and how many datagrams were still queued when it went on (the kernel wakes a writer
once the bytes held fall below half the send buffer, sock_writeable in include/net/sock.h).
"""

import errno
import fcntl
import os
import socket
import struct
import subprocess
import sys
import time

SIOCOUTQ = 0x5411
NS = f"vsim-sockbuf-{os.getpid()}"


def sh(*args):
    subprocess.run(args, check=True)


def main():
    sh("ip", "netns", "add", NS)
    try:
        sh("ip", "-n", NS, "link", "add", "d0", "type", "veth", "peer", "name", "d1")
        sh("ip", "-n", NS, "addr", "add", "198.51.100.1/24", "dev", "d0")
        sh("ip", "-n", NS, "addr", "add", "198.51.100.2/24", "dev", "d1")
        sh("ip", "-n", NS, "link", "set", "d0", "up")
        sh("ip", "-n", NS, "link", "set", "d1", "up")
        sh("ip", "-n", NS, "neigh", "add", "198.51.100.3", "lladdr", "02:00:00:00:00:01", "dev", "d0")
        sh("ip", "netns", "exec", NS, "tc", "qdisc", "add", "dev", "d0", "root", "handle", "1:",
           "tbf", "rate", "400kbit", "burst", "1600", "limit", "10000000")
        sh("ip", "netns", "exec", NS, "tc", "qdisc", "add", "dev", "d0", "parent", "1:1",
           "handle", "10:", "pfifo", "limit", "1000")
        subprocess.run(["ip", "netns", "exec", NS, sys.executable, __file__, "--inside"], check=True)
    finally:
        subprocess.run(["ip", "netns", "del", NS], check=False)


def inside():
    """The socket's side, run in the namespace."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setblocking(False)
    sock.bind(("198.51.100.1", 0))
    sock.connect(("198.51.100.3", 9))  # on d0's subnet, no host: d0 queues what it sends
    sndbuf = sock.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
    held = []
    payload = bytes(1000)
    for _ in range(10000):
        try:
            sock.send(payload)
        except OSError as exc:
            if exc.errno != errno.EAGAIN:
                raise
            break
        held.append(struct.unpack("i", fcntl.ioctl(sock.fileno(), SIOCOUTQ, b"\0" * 4))[0])
    sock.setblocking(True)
    began = time.monotonic()
    sock.send(payload)
    waited = time.monotonic() - began
    after = struct.unpack("i", fcntl.ioctl(sock.fileno(), SIOCOUTQ, b"\0" * 4))[0]
    steps = sorted(set(b - a for a, b in zip([0] + held, held)))
    print(f"kernel: {os.uname().release}")
    print(f"send buffer (SO_SNDBUF): {sndbuf} B")
    print(f"bytes held per 1000 B datagram (truesize): {', '.join(map(str, steps))}")
    print(f"datagrams queued when a send first refused: {held[-1] // steps[-1]} ({held[-1]} B held; "
          f"{len(held)} sent, the first gone at once on the bucket's burst)")
    print(f"send buffer / truesize: {sndbuf / steps[-1]:.2f} datagrams")
    print(f"a blocking send then waited {waited:.3f} s and went on with {after // steps[-1] - 1} "
          f"datagrams queued before its own ({after} B held with it)")


if __name__ == "__main__":
    sys.exit(inside() if sys.argv[1:] == ["--inside"] else main())
