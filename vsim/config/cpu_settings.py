"""A VM's CPU settings as the host applies them: shares, reservation and limit.

Read from a [vm] or [[group]] table (or [vm] as [measured_vm] changes it for
the measured VM); used both to build each VM's CPU group and to report the
measured VM's settings beside the other VMs' in the run's summary, so the two
always agree on the defaults.
"""


def cpu_settings(vm):
    """A VM's CPU shares, reservation and limit (CPUs; None: no limit), shares defaulting
    to the normal 1000 per vCPU."""
    return {"shares": vm.shares or 1000.0 * vm.vcpus, "reservation": vm.reservation, "limit": vm.limit}


def limit_beyond_vcpus(vcpus, limit):
    """The refusal of a CPU limit above a VM's vCPUs: it could never bind, and such a value is
    most likely a limit written in MHz, as vSphere shows it."""
    return (f"expected at most {vcpus} CPU{'s' * (vcpus != 1)} (one per vCPU; a limit is in CPUs, "
            f"e.g. 1.5, not MHz), got {limit}")
