"""Sweeps: replications of scenario points, run serially or in worker processes; their tables
as pandas DataFrames (``run_sweep``, ``open_store``)."""

from vsim.sweep.executor import Point, Sweep, Task, run_tasks, sweep_tasks
from vsim.sweep.tidy import open_store, run_sweep

__all__ = ["Point", "Sweep", "Task", "open_store", "run_sweep", "run_tasks", "sweep_tasks"]
