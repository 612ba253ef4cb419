"""Two network namespaces joined by a veth pair: the sender's side and the receiver's side.

Everything the network probe sends stays inside these namespaces: the
sender's and the receiver's veth ends are the only interfaces in them
besides loopback, with addresses from TEST-NET-1 (RFC 5737).
"""

import subprocess
from dataclasses import dataclass

from vsim.probe.names import netns_names, veth_names

SENDER_IP = "192.0.2.1"
RECEIVER_IP = "192.0.2.2"
PREFIX_LEN = 30


@dataclass(frozen=True)
class VethPair:
    """The names of the two namespaces and of the veth end in each."""

    sender_ns: str
    receiver_ns: str
    sender_if: str
    receiver_if: str


def run(argv, netns=None):
    """Run ``argv`` (inside ``netns`` when given); its stdout; ``RuntimeError`` with stderr on failure."""
    full = (["ip", "netns", "exec", netns] if netns else []) + list(argv)
    done = subprocess.run(full, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(full)}: {done.stderr.strip() or 'exit ' + str(done.returncode)}")
    return done.stdout


def in_netns(netns, argv):
    """``argv`` prefixed so that it runs inside ``netns``."""
    return ["ip", "netns", "exec", netns, *argv]


def create(guard, pid):
    """Create the namespaces and the veth pair for probe ``pid``, registering their removal with ``guard``."""
    sender_ns, receiver_ns = netns_names(pid)
    sender_if, receiver_if = veth_names(pid)
    for netns in (sender_ns, receiver_ns):
        run(["ip", "netns", "add", netns])
        guard.on_exit(f"delete network namespace {netns}", delete_netns, netns)
    run(["ip", "link", "add", sender_if, "type", "veth", "peer", "name", receiver_if])
    guard.on_exit(f"delete veth {sender_if}", delete_link, sender_if)
    ends = ((sender_ns, sender_if, SENDER_IP), (receiver_ns, receiver_if, RECEIVER_IP))
    for netns, device, address in ends:
        run(["ip", "link", "set", device, "netns", netns])
        run(["ip", "addr", "add", f"{address}/{PREFIX_LEN}", "dev", device], netns)
        run(["ip", "link", "set", device, "up"], netns)
        run(["ip", "link", "set", "lo", "up"], netns)
    return VethPair(sender_ns, receiver_ns, sender_if, receiver_if)


def list_netns():
    """Names of the network namespaces ``ip netns`` knows."""
    return [line.split()[0] for line in run(["ip", "netns", "list"]).splitlines() if line.strip()]


def list_links():
    """Names of the links in this (the root) network namespace."""
    names = []
    for line in run(["ip", "-o", "link", "show"]).splitlines():
        fields = line.split(":")
        if len(fields) > 1:
            names.append(fields[1].strip().split("@")[0])
    return names


def _delete(name, listed, argv):
    """Run ``argv`` to delete ``name`` if ``listed()`` names it; an error only if it is still there
    (the kernel may have removed it meanwhile: a namespace's veth goes, a little later, with it)."""
    if name in listed():
        try:
            run(argv)
        except RuntimeError:
            if name in listed():
                raise


def delete_netns(name):
    """Delete a namespace (and with it the veth end inside it); nothing if it is already gone."""
    _delete(name, list_netns, ["ip", "netns", "del", name])


def delete_link(name):
    """Delete a link of the root namespace (its veth peer goes with it); nothing if it is already gone."""
    _delete(name, list_links, ["ip", "link", "del", name])
