"""Simulation core: units, errors, random streams, atomic output."""
