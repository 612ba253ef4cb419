"""A VM's CPU settings as a Xen domain's under the credit scheduler (policy ``xen_credit``).

``vsim.cpu.policies.xen_credit`` reads each VM's settings as Xen's:

- ``vm.shares`` -> weight = ``default_weight * shares / (1000 * vcpus)`` (the scheduler
  model's ``default_weight``, Xen's 256, at the normal 1000 shares per vCPU), which Xen
  takes within 1..65535 (``xl sched-credit -w``);
- ``vm.limit`` (CPUs) -> cap = limit x 100 % of one CPU, at most the VM's vCPUs x 100
  (``vsim.config.cpu_settings.limit_beyond_vcpus`` already refuses more);
- ``vm.reservation`` has no Xen equivalent (the credit scheduler guarantees no CPU time),
  so a scenario that sets one under this policy is refused;
- a steal trace (``host.steal_trace``) is refused too: its worlds would enter the credit
  accounting as domains of their own.
"""

from vsim.build.cgroups import settings_to_check
from vsim.config.typed import fail
from vsim.cpu.policies.xen_credit import NORMAL_SHARES_PER_VCPU

POLICY = "xen_credit"
WEIGHT_RANGE = (1.0, 65535.0)


def xen_weight(shares, vcpus, default_weight):
    """The credit scheduler's weight of a VM with ``shares`` CPU shares and ``vcpus`` vCPUs."""
    return default_weight * shares / (NORMAL_SHARES_PER_VCPU * vcpus)


DOM0_IO_WORKLOADS = {"sip_server": "a SIP server's messages", "tcp_receiver": "a TCP stream's segments",
                     "disk_benchmark": "a disk benchmark's requests"}
"""Workloads whose I/O vsim sends through Xen's driver domain, and what crosses it."""


def check_driver_domain(scenario, source):
    """On a Xen host a guest whose I/O crosses Dom0 needs a Dom0: without one, its messages,
    segments or requests would cost the host nothing, a host no Xen install has."""
    if any(group.workload == "dom0" for group in scenario.group):
        return
    for index, group in enumerate(scenario.group):
        if group.workload in DOM0_IO_WORKLOADS:
            fail(source, f"group[{index}].workload", f"expected a [[group]] of workload = \"dom0\" beside "
                 f"group '{group.name}' ({group.workload}) under Xen's credit scheduler: "
                 f"{DOM0_IO_WORKLOADS[group.workload]} cross Xen's driver domain, and this host has none")


def check_xen_settings(scenario, scheduler, source):
    """Refuse what a Xen domain cannot express: reservations, and shares whose weight falls
    outside 1..65535; and a steal trace, not replayed on a Xen host."""
    if scheduler.policy != POLICY:
        return
    if scenario.host.steal_trace is not None:
        fail(source, "host.steal_trace", "expected no steal trace under Xen's credit scheduler "
             "(an outer hypervisor's steal is not replayed on a Xen host yet), got "
             f"{scenario.host.steal_trace!r}")
    check_driver_domain(scenario, source)
    settings = settings_to_check(scenario)
    low, high = WEIGHT_RANGE
    for section, values, check_reservation, check_shares in settings:
        if values.reservation > 0 and check_reservation:
            fail(source, f"{section}.reservation", f"expected no reservation under Xen's credit "
                 f"scheduler (a domain has a weight and a cap, no CPU reservation), got "
                 f"{values.reservation}")
        if values.shares is not None and check_shares:
            weight = xen_weight(values.shares, values.vcpus, scheduler.default_weight)
            if not low <= weight <= high:
                fail(source, f"{section}.shares", f"expected shares giving a Xen weight within "
                     f"{low:g}..{high:g} ({scheduler.default_weight:g} x shares / (1000 x "
                     f"{values.vcpus} vCPUs)), got {values.shares:g} (weight {weight:g})")
