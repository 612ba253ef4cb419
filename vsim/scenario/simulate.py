"""Deprecated: ``vsim.engines.simulation``."""

from vsim.config.run_length import default_warmup
from vsim.engines.simulation import EngineError, Simulation, simulate
from vsim.scenario import moved

__all__ = ["EngineError", "Simulation", "default_warmup", "simulate"]
moved(__name__, "vsim.engines.simulation")
