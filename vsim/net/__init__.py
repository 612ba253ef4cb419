"""Network path: frames on the wire, virtual NIC coalescing, vSwitch port and uplink queues."""
