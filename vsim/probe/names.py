"""Names of what probes create, and how to tell which probe owns a leftover.

Every namespace, veth, cgroup and temporary directory a probe makes carries
a fixed prefix and the probe's process id, so that ``vsim probe cleanup`` can
find leftovers of probes that died without cleaning up, and leave alone those
of probes still running. Interface names are at most 15 characters
(IFNAMSIZ - 1).
"""

import os
import re

NETNS_PREFIX = "vsim-probe-"
VETH_PREFIX = "vsp"
CGROUP_PREFIX = "vsim-probe-"
TMP_PREFIX = "vsim-probe-"

_OWNER = re.compile(r"^(?:vsim-probe-|vsp)(\d+)")


def netns_names(pid):
    """The sender's and the receiver's namespace names for probe ``pid``."""
    return f"{NETNS_PREFIX}{pid}-snd", f"{NETNS_PREFIX}{pid}-rcv"


def veth_names(pid):
    """The sender's and the receiver's ends of the veth pair for probe ``pid``."""
    return f"{VETH_PREFIX}{pid}s", f"{VETH_PREFIX}{pid}r"


def cgroup_name(pid):
    """The parent cgroup of probe ``pid``'s VMs."""
    return f"{CGROUP_PREFIX}{pid}"


def tmp_prefix(pid, probe):
    """The name prefix of a temporary directory of probe ``pid`` (``probe``: its kind, as 'net')."""
    return f"{TMP_PREFIX}{pid}-{probe}-"


def owner(name):
    """The probe pid encoded in a name made by ``names``, or None for any other name."""
    match = _OWNER.match(name)
    return int(match.group(1)) if match else None


def owner_alive(pid):
    """Whether a process ``pid`` exists."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
