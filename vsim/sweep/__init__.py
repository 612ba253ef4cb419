"""Sweeps: replications of scenario points, run serially or in worker processes."""

from vsim.sweep.executor import Point, Sweep, Task, run_tasks, sweep_tasks

__all__ = ["Point", "Sweep", "Task", "run_tasks", "sweep_tasks"]
