"""Fluid bulk traffic and discrete packets in one drop-tail queue."""
