"""CPU: host topology with hyper-threads and the hypervisor's vCPU schedulers."""
