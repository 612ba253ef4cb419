"""Build: a scenario and its models checked and built into a host (machine, VMs, vNICs, uplink)."""
