"""Simulation core: the SimPy environment, units, errors, random streams, atomic output."""
