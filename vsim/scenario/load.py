"""Deprecated: ``vsim.build.load`` (``load_scenario``) and ``vsim.config.load`` (``Loaded``)."""

from vsim.build.load import load_scenario
from vsim.config.load import Loaded, group_role
from vsim.scenario import moved

__all__ = ["Loaded", "group_role", "load_scenario"]
moved(__name__, "vsim.build.load")
