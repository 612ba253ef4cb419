"""Network path: frames on the wire, the virtual NIC's transmit path, uplink queues."""
