"""hClock-style bandwidth allocation (NetIOC in vSphere 6): a tree of traffic
classes, resource pools and ports with reservations, limits and shares,
allocated as a fluid by ``vsim.net.hclock.allocator``."""
