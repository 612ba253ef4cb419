"""The hypervisor's transmit path: per-packet work, the packet-rate ceiling it
sets, and interrupt coalescing (``cost``, ``coalescing``)."""
