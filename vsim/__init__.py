"""vsim: a discrete-event simulator of virtualized hosts.

The package models hardware (cores, hyper-threads, NICs), the hypervisor
(vCPU schedulers, virtual NICs, vSwitch, uplinks) and guests (media servers
and other workloads) on SimPy, and measures what latency-sensitive traffic
sees: RFC 3550 jitter, loss, CPU utilisation and ready time.
"""

__version__ = "0.1.0"

from vsim.native import install_guard as _install_guard

SCHEDULER_BUILD = _install_guard()
