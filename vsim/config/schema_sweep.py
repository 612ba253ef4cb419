"""Typed schema of a scenario's ``[sweep]`` table and the keys a sweep may vary.

A sweep varies one key: a number, true/false or choice key of ``[host]``,
``[vm]``, ``[measured_vm]`` or ``[client]``, one naming a component model
(``host.scheduler``, ``host.model``, ...), a number key of one named table of
an array (``group.NAME.count``, ``netioc.node.NAME.shares``), a [[group]]'s key
naming one of its models (``group.NAME.gc``), a number parameter
of a [[group]]'s traffic source (``group.NAME.traffic.params.KEY``) or a model
parameter (``params.ROLE.NAME``). Each value is checked as the key itself is (a
traffic parameter: a number here, then by its source at every point of the sweep).

A sweep of several keys lists them as ``[[sweep.axis]]`` tables, each with values or a
range (``low``, ``high``), combined by ``design``: a grid, a zip, or ``points`` sampled
from ``design_seed`` (``vsim.config.sweep_design``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from vsim.config.named_tables import split_named_key
from vsim.config.schema_models import MODEL_ROLES
from vsim.config.schema_sections import (ClientSection, GroupSection, HostSection, HtbNodeSection,
                                           MeasuredVmSection, NetiocNodeSection, VmSection)
from vsim.core.errors import did_you_mean
from vsim.config.sweep_design import SAMPLED, Axis, design_points
from vsim.config.typed import (accepts_only_integers, check_field, fail,
                                 is_number_field, scalar_fields)


# The class of the tables of each array whose tables a key reaches by name (``named_tables``).
NAMED_TABLE_CLASSES = {"group": GroupSection, "netioc.node": NetiocNodeSection,
                       "htb.node": HtbNodeSection}
# The ``[[group]]`` keys below which a sweep reaches a traffic source's parameter by its name.
TRAFFIC_PARAMS = ("traffic", "params")


@dataclass(frozen=True)
class TrafficParamValue:
    """A swept traffic-source parameter: a number, whose range the source checks at every point."""

    value: int | float = field(metadata={"doc": "a number parameter of the group's traffic source"})


SWEPT_SECTIONS = {"host": HostSection, "vm": VmSection, "measured_vm": MeasuredVmSection,
                  "client": ClientSection}

# The keys naming a component model a sweep may vary, whose values are model refs
# (``schedulers/linux_cfs``): each point runs with the models loaded again.
MODEL_REF_KEYS = {"host.model": (HostSection, "model"), "host.scheduler": (HostSection, "scheduler"),
                  "host.nic": (HostSection, "nic"), "vm.vnic": (VmSection, "vnic"),
                  "vm.workload": (VmSection, "workload"), "client.model": (ClientSection, "model")}


# The [[group]] keys naming a model of the group's own (``group.proxy.gc``, ``group.proxy.model``):
# a sweep may vary them as the keys of MODEL_REF_KEYS, each point loading its models again.
GROUP_MODEL_FIELDS = ("model", "gc", "vnic")


def names_a_model(key):
    """Whether the sweep ``key`` names a component model (``host.scheduler``, ``group.proxy.gc``):
    each of its points runs with the scenario's models loaded again."""
    if key in MODEL_REF_KEYS:
        return True
    named = split_named_key(key)
    return (named is not None and named.array == "group" and len(named.rest) == 1
            and named.rest[0] in GROUP_MODEL_FIELDS)


def sweepable_keys():
    """Dotted keys a ``[sweep]`` may vary: every number, true/false or choice key of [host],
    [vm], [measured_vm], [client], the keys naming their models (``MODEL_REF_KEYS``), and every
    number or true/false model parameter as ``params.ROLE.NAME``."""
    keys = {f"{section}.{name}": (cls, name) for section, cls in SWEPT_SECTIONS.items()
            for name in scalar_fields(cls, choices=True)}
    keys.update(MODEL_REF_KEYS)
    keys.update({f"params.{role}.{name}": (cls, name) for role, cls in MODEL_ROLES.items()
                 for name in scalar_fields(cls)})
    return keys


def sweep_field(key):
    """(section class, field name) a sweep ``key`` varies, or None: a key of
    ``sweepable_keys``, or ``ARRAY.NAME.FIELD`` for a number key of one table of an array of
    tables, reached by its name (``group.netperf.count``, ``netioc.node.voip.reservation_mbps``;
    that the table exists is checked with the scenario)."""
    keys = sweepable_keys()
    if key in keys:
        return keys[key]
    named = split_named_key(key)
    if named is None or not named.name.isidentifier():
        return None
    if (named.array == "group" and len(named.rest) == 3 and named.rest[:2] == TRAFFIC_PARAMS
            and named.rest[2].isidentifier()):
        return TrafficParamValue, "value"
    if len(named.rest) != 1:
        return None
    if names_a_model(key):
        return GroupSection, named.rest[0]
    cls = NAMED_TABLE_CLASSES[named.array]
    return (cls, named.rest[0]) if named.rest[0] in scalar_fields(cls) else None


KEY_DOC = ("the independent variable: a number, true/false or choice "
           "key of [host], [vm], [measured_vm] or [client] (vm.instances, "
           "host.hyperthreading, host.uplink, measured_vm.shares, "
           "...), a model of theirs (host.scheduler, host.model, ...), "
           "a number key of a [[group]] (group.NAME.count, ...) or "
           "one naming a model of its own (group.NAME.gc, group.NAME.model, "
           "group.NAME.vnic), a number key of a tree node "
           "(netioc.node.NAME.reservation_mbps, ...), "
           "a number parameter of a [[group]]'s traffic source "
           "(group.NAME.traffic.params.pps, ...) or a model "
           "parameter (params.host.ht_rate, ...)")


def check_key(key, source, path):
    """(section class, field name) of a key a sweep may vary, else one line naming ``path``."""
    swept = sweep_field(key)
    if swept is None:
        hint = did_you_mean(key, list(sweepable_keys()))
        fail(source, path, "expected a number, true/false or choice key of [host], "
             "[vm], [measured_vm] or [client] (vm.instances) or its model (host.scheduler), a "
             "[[group]]'s number key or model (group.NAME.count, group.NAME.gc) or a tree node's "
             "(netioc.node.NAME.KEY), a "
             "group's traffic parameter (group.NAME.traffic.params.KEY) or a model parameter "
             f"(params.ROLE.NAME; vsim describe lists them), got {key!r}"
             + (f"; {hint}" if hint else ""))
    return swept


def check_values(key, values, source, path):
    """At least one value, distinct, each valid for ``key``."""
    cls, name = check_key(key, source, path.rpartition(".")[0] + ".key")
    if not values:
        fail(source, path, "expected at least one value")
    for index, value in enumerate(values):
        check_field(cls, name, value, source=source, path=f"{path}[{index}]")
    if len(set(values)) != len(values):
        fail(source, path, "expected distinct values")


@dataclass(frozen=True)
class AxisSection:
    """[[sweep.axis]]: one key of a design of several, with its values or a range of them."""

    key: str = field(metadata={"doc": "the key this axis varies, as [sweep]'s key"})
    values: list[bool | int | float | str] | None = field(default=None, metadata={
        "doc": "its values (a grid or zip design, or sampled from by the others)"})
    low: float | None = field(default=None, metadata={
        "doc": "the lowest value of its range (random, lhs and sobol designs; a number key)"})
    high: float | None = field(default=None, metadata={
        "doc": "the highest value of its range (an integer key takes the whole numbers in it)"})

    def validate(self, source, path):
        """Listed values or a range of a number key, not both; each bound valid for the key."""
        cls, name = check_key(self.key, source, f"{path}.key")
        ranged = self.low is not None or self.high is not None
        if self.values is not None and ranged:
            fail(source, f"{path}.values", "expected values or low and high, not both")
        if self.values is not None:
            check_values(self.key, self.values, source, f"{path}.values")
            return
        if self.low is None or self.high is None:
            fail(source, f"{path}.{'high' if self.high is None else 'low'}",
                 "expected values, or low and high of a range")
        if not is_number_field(cls, name):
            fail(source, f"{path}.low", f"expected values: {self.key} is not a number, so it has no range")
        for end in ("low", "high"):
            value = getattr(self, end)
            if accepts_only_integers(cls, name) and value != int(value):
                fail(source, f"{path}.{end}", f"expected a whole number for {self.key}, got {value}")
            check_field(cls, name, int(value) if accepts_only_integers(cls, name) else value,
                        source=source, path=f"{path}.{end}")
        assert self.low is not None and self.high is not None
        if not self.low < self.high:
            fail(source, f"{path}.high", f"expected more than low ({self.low}), got {self.high}")

    def design_axis(self):
        """The ``sweep_design.Axis`` of this table (a range of whole numbers for an integer key)."""
        if self.values is not None:
            return Axis(self.key, tuple(self.values))
        swept = sweep_field(self.key)
        assert swept is not None
        return Axis(self.key, None, self.low, self.high, accepts_only_integers(*swept))


@dataclass(frozen=True)
class SweepSection:
    """[sweep]: the independent variables of a what-if: one key and its values, or several
    keys as [[sweep.axis]] tables combined by a design."""

    key: str | None = field(default=None, metadata={"doc": KEY_DOC + "; or [[sweep.axis]] tables"})
    values: list[bool | int | float | str] | None = field(default=None, metadata={
        "doc": "values of the independent variable, each checked as the key itself is"})
    axis: tuple[AxisSection, ...] = field(default_factory=tuple, metadata={
        "doc": "the keys of a design of several, each with values or a range"})
    design: Literal["grid", "zip", "random", "lhs", "sobol"] = field(default="grid", metadata={
        "doc": "how the axes combine: every combination (grid), side by side (zip), or points "
               "sampled over them: uniform (random), a Latin hypercube (lhs), a Sobol sequence (sobol)"})
    points: int | None = field(default=None, metadata={
        "min": 1, "doc": "how many points a random, lhs or sobol design samples"})
    design_seed: int = field(default=0, metadata={
        "min": 0, "doc": "the seed a random, lhs or sobol design samples with (the runs' own "
                         "seeds are run.seed's)"})

    def validate(self, source, path):
        """One key and its values, or [[sweep.axis]] tables of distinct keys fitting the design."""
        if self.axis and (self.key is not None or self.values is not None):
            fail(source, f"{path}.{'key' if self.key is not None else 'values'}",
                 "expected key and values or [[sweep.axis]] tables, not both")
        if not self.axis:
            if self.key is None:
                fail(source, f"{path}.key", "missing required key (expected a string, or [[sweep.axis]] tables)")
            if self.values is None:
                fail(source, f"{path}.values", "missing required key (expected a list of the key's values)")
            check_values(self.key, self.values, source, f"{path}.values")
            if self.design not in ("grid", "zip") or self.points is not None:
                fail(source, f"{path}.{'design' if self.points is None else 'points'}",
                     "expected [[sweep.axis]] tables for a random, lhs or sobol design")
            return
        seen: dict[str, int] = {}
        for index, axis in enumerate(self.axis):
            if axis.key in seen:
                fail(source, f"{path}.axis[{index}].key", f"expected each key once, got {axis.key!r} "
                     f"again (axis[{seen[axis.key]}])")
            seen[axis.key] = index
        if self.design in SAMPLED:
            if self.points is None:
                fail(source, f"{path}.points", f"expected how many points the {self.design} design samples")
            return
        if self.points is not None:
            fail(source, f"{path}.points", f"expected no points for a {self.design} design: its "
                 "axes' values give them")
        for index, axis in enumerate(self.axis):
            if axis.values is None:
                fail(source, f"{path}.axis[{index}].values", f"expected values for a {self.design} "
                     "design (low and high are for random, lhs and sobol)")
        if self.design == "zip":
            first = len(self.axis[0].values or ())
            for index, axis in enumerate(self.axis[1:], start=1):
                if len(axis.values or ()) != first:
                    fail(source, f"{path}.axis[{index}].values", f"expected {first} value{'s' * (first != 1)}, as many "
                         f"as axis[0] ({self.axis[0].key}) for a zip design, got {len(axis.values or ())}")

    def keys(self):
        """The keys the sweep varies, in order: the first is a figure's x axis."""
        return (self.key,) if not self.axis else tuple(axis.key for axis in self.axis)

    def settings(self):
        """Every point of the sweep, in order: a tuple of (key, value) per point."""
        if not self.axis:
            return [((self.key, value),) for value in self.values or ()]
        axes = [axis.design_axis() for axis in self.axis]
        keys = self.keys()
        return [tuple(zip(keys, point))
                for point in design_points(axes, self.design, self.points, self.design_seed)]
