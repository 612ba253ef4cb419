"""Measured traces: readers for the formats real hosts produce, and comparison with simulation."""
