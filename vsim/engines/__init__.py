"""Engines: run a built host, by events (SimPy) or in closed form where no world ever waits."""
