"""Tests (as root) of the namespaces and veth pair: they connect, and nothing is left after."""

import os
import subprocess
import sys

from vsim.probe import netns
from vsim.probe.guard import Guard

from probe_helpers import made_by, needs_ip, needs_root

RECEIVE = ("import socket; s = socket.socket(2, 2); s.bind(('', 9999)); s.settimeout(10); "
           "print('ready', flush=True); print(s.recv(64))")
SEND = "import socket; socket.socket(2, 2).sendto(b'hello', ('%s', 9999))"


@needs_root
@needs_ip
def test_the_pair_connects_the_namespaces_and_goes_away():
    with Guard(60) as guard:
        pair = netns.create(guard, os.getpid())
        assert {pair.sender_ns, pair.receiver_ns} <= set(netns.list_netns())
        assert pair.sender_if not in netns.list_links()  # moved out of the root namespace
        shown = netns.run(["ip", "-o", "addr", "show", "dev", pair.receiver_if], pair.receiver_ns)
        assert netns.RECEIVER_IP in shown
        receiver = guard.start(netns.in_netns(pair.receiver_ns, [sys.executable, "-c", RECEIVE]),
                               stdout=subprocess.PIPE, text=True)
        assert receiver.stdout.readline().strip() == "ready"
        netns.run([sys.executable, "-c", SEND % netns.RECEIVER_IP], pair.sender_ns)
        assert receiver.communicate(timeout=10)[0].strip() == "b'hello'"
    assert made_by(os.getpid()) == []
