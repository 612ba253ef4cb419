"""The points of a sweep's design: a grid or zip of listed values, or a sample over ranges.

A design takes axes (a key each, with listed values or a low-high range) and returns its
points in a fixed order, each a tuple of one value per axis:

* ``grid``: every combination of the axes' values, the first axis outermost (its size is the
  product of the axes' lengths);
* ``zip``: the axes' values taken side by side (the axes list as many values each);
* ``random``, ``lhs``, ``sobol``: ``points`` samples of the unit cube, uniform
  (``numpy.random.default_rng``), a Latin hypercube (``scipy.stats.qmc.LatinHypercube``: each
  axis cut into ``points`` equal strata, one point in each) or a scrambled Sobol sequence
  (``scipy.stats.qmc.Sobol``), drawn from ``seed``; each axis maps its coordinate onto its range
  (an integer key onto the whole numbers from low to high, each as likely) or onto its listed
  values (each as likely). Points that fall on one another (an integer or listed axis) are kept
  once, the first time they occur.

The same axes, design, points and seed give the same points on every machine that has the same
numpy and scipy: nothing but the seed is random.
"""

from __future__ import annotations

import itertools
import warnings
from dataclasses import dataclass

import numpy as np

DESIGNS = ("grid", "zip", "random", "lhs", "sobol")
SAMPLED = ("random", "lhs", "sobol")
"""The designs that sample ranges, which take a number of points."""


@dataclass(frozen=True)
class Axis:
    """One key of a design: its listed ``values``, or the range ``low``-``high`` (whole numbers
    only when ``integer``)."""

    key: str
    values: tuple | None = None
    low: float | None = None
    high: float | None = None
    integer: bool = False

    def at(self, u):
        """The value at ``u`` in [0, 1) of this axis: a listed value, or a point of its range."""
        if self.values is not None:
            return self.values[min(int(u * len(self.values)), len(self.values) - 1)]
        assert self.low is not None and self.high is not None
        if self.integer:
            span = int(self.high) - int(self.low)
            return int(self.low) + min(int(u * (span + 1)), span)
        return float(self.low + u * (self.high - self.low))


def unit_samples(design, points, dimensions, seed):
    """``points`` x ``dimensions`` samples of [0, 1) for a sampled ``design``, from ``seed``."""
    if design == "random":
        return np.random.default_rng(seed).random((points, dimensions))
    from scipy.stats import qmc  # imported only for the designs that need it

    if design == "lhs":
        return qmc.LatinHypercube(d=dimensions, rng=np.random.default_rng(seed)).random(points)
    sobol = qmc.Sobol(d=dimensions, scramble=True, rng=np.random.default_rng(seed))
    with warnings.catch_warnings():  # a count that is not a power of two is allowed, if less balanced
        warnings.simplefilter("ignore", UserWarning)
        return sobol.random(points)


def design_points(axes, design="grid", points=None, seed=0):
    """The points of ``design`` over ``axes``, in order, each a tuple of one value per axis
    (distinct points only). The axes are taken as checked (``SweepSection.validate``): listed
    values for ``grid`` and ``zip`` (as many each for ``zip``), and ``points`` for the others."""
    if design == "grid":
        return list(itertools.product(*(axis.values for axis in axes)))
    if design == "zip":
        return list(zip(*(axis.values for axis in axes)))
    samples = unit_samples(design, points, len(axes), seed)
    drawn = [tuple(axis.at(float(u)) for axis, u in zip(axes, row)) for row in samples]
    return list(dict.fromkeys(drawn))
