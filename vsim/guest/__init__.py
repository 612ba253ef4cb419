"""Guest workloads: what runs inside the VMs."""
