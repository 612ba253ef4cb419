"""Deprecated: ``vsim.engines.simulation``."""

from vsim.engines.simulation import EngineError, Simulation, default_warmup, simulate
from vsim.scenario import moved

__all__ = ["EngineError", "Simulation", "default_warmup", "simulate"]
moved(__name__, "vsim.engines.simulation")
