"""Network path: frames on the wire, the virtual NIC's transmit path, uplink queues
and schedulers (fifo, multi-queue, NetIOC/hClock) carrying fluid bulk flows and
discrete packets, traffic sources, and the transmit path's costs. See README.md."""
