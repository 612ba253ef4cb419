"""A VM's CPU settings as the cgroup settings of a Linux/KVM host (policy ``linux_fair``).

On a KVM host each VM is a cgroup (libvirt's machine scope) holding its vCPU
threads, so the scenario's VM settings map to cgroup v2 controls:

- ``vm.shares`` -> ``cpu.weight = 100 * shares / (1000 * vcpus)``, rounded to
  an integer as the kernel stores it: a VM at the normal 1000 shares per vCPU
  (the default) gets the cgroup default of 100, whatever its vCPU count, as
  every VM's cgroup does on a stock host, and VMs keep the ratio of their
  shares (a measured VM with twice its neighbours' shares gets weight 200);
- ``vm.limit`` (CPUs) -> ``cpu.max`` of ``limit * period`` per ``period``
  (the scheduler model's period, 100 ms as cpu.max's default): the machine's
  limit per period is exactly CFS bandwidth control's quota per period;
- ``vm.reservation`` has no Linux equivalent (cgroups guarantee no CPU time),
  so a scenario that sets one under this policy is refused.

Each VM's transmit world (vhost) is a cgroup of its own at the default weight.
"""

import math

from vsim.cpu.policies.fair_queue import CGROUP_WEIGHT_DEFAULT, CGROUP_WEIGHT_RANGE
from vsim.config.typed import fail

NORMAL_SHARES_PER_VCPU = 1000.0
POLICY = "linux_fair"


def cgroup_weight(shares, vcpus):
    """The cpu.weight of a VM with ``shares`` CPU shares and ``vcpus`` vCPUs."""
    return float(math.floor(CGROUP_WEIGHT_DEFAULT * shares / (NORMAL_SHARES_PER_VCPU * vcpus) + 0.5))


def settings_to_check(scenario):
    """(key, settings, check its reservation, check its shares) of every VM's CPU settings a
    host's policy may refuse: [vm]'s, [measured_vm]'s own where it sets them, each group's."""
    own = scenario.measured_vm.overrides()
    settings = [("vm", scenario.vm, True, True)]
    if own:
        settings.append(("measured_vm", scenario.vm_settings(0), "reservation" in own, "shares" in own))
    return settings + [(f"group[{index}]", group, True, True) for index, group in enumerate(scenario.group)]


def check_cgroup_settings(scenario, scheduler, source):
    """Refuse what a Linux host cannot express: reservations, and shares whose weight
    falls outside 1..10000."""
    if scheduler.policy != POLICY:
        return
    settings = settings_to_check(scenario)
    low, high = CGROUP_WEIGHT_RANGE
    for section, values, check_reservation, check_shares in settings:
        if values.reservation > 0 and check_reservation:
            fail(source, f"{section}.reservation", f"expected no reservation under the Linux fair "
                 f"policy (a cgroup has no CPU reservation), got {values.reservation}")
        if values.shares is not None and check_shares:
            weight = cgroup_weight(values.shares, values.vcpus)
            if not low <= weight <= high:
                fail(source, f"{section}.shares", f"expected shares giving a cpu.weight within "
                     f"{low:g}..{high:g} (100 x shares / (1000 x {values.vcpus} vCPUs)), got "
                     f"{values.shares:g} (weight {weight:g})")
