"""Typed schema of a scenario's ``[sweep]`` table and the keys a sweep may vary.

A sweep varies one key: a number, true/false or choice key of ``[host]``,
``[vm]``, ``[measured_vm]`` or ``[client]``, one naming a component model
(``host.scheduler``, ``host.model``, ...), a number key of one named table of
an array (``group.NAME.count``, ``netioc.node.NAME.shares``), a [[group]]'s key
naming one of its models (``group.NAME.gc``), a number parameter
of a [[group]]'s traffic source (``group.NAME.traffic.params.KEY``) or a model
parameter (``params.ROLE.NAME``). Each value is checked as the key itself is (a
traffic parameter: a number here, then by its source at every point of the sweep).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from vsim.config.named_tables import split_named_key
from vsim.config.schema_models import MODEL_ROLES
from vsim.config.schema_sections import (ClientSection, GroupSection, HostSection, HtbNodeSection,
                                           MeasuredVmSection, NetiocNodeSection, VmSection)
from vsim.core.errors import did_you_mean
from vsim.config.typed import check_field, fail, scalar_fields


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


@dataclass(frozen=True)
class SweepSection:
    """[sweep]: the independent variable of a figure, one key and its values."""

    key: str = field(metadata={"doc": "the independent variable: a number, true/false or choice "
                                      "key of [host], [vm], [measured_vm] or [client] (vm.instances, "
                                      "host.hyperthreading, host.uplink, measured_vm.shares, "
                                      "...), a model of theirs (host.scheduler, host.model, ...), "
                                      "a number key of a [[group]] (group.NAME.count, ...) or "
                                      "one naming a model of its own (group.NAME.gc, group.NAME.model, "
                                      "group.NAME.vnic), a number key of a tree node "
                                      "(netioc.node.NAME.reservation_mbps, ...), "
                                      "a number parameter of a [[group]]'s traffic source "
                                      "(group.NAME.traffic.params.pps, ...) or a model "
                                      "parameter (params.host.ht_rate, ...)"})
    values: list[bool | int | float | str] = field(metadata={
        "doc": "values of the independent variable, each checked as the key itself is"})

    def validate(self, source, path):
        """A key a sweep may vary, and distinct values, each valid for that key."""
        swept = sweep_field(self.key)
        if swept is None:
            hint = did_you_mean(self.key, list(sweepable_keys()))
            fail(source, f"{path}.key", "expected a number, true/false or choice key of [host], "
                 "[vm], [measured_vm] or [client] (vm.instances) or its model (host.scheduler), a "
                 "[[group]]'s number key or model (group.NAME.count, group.NAME.gc) or a tree node's "
                 "(netioc.node.NAME.KEY), a "
                 "group's traffic parameter (group.NAME.traffic.params.KEY) or a model parameter "
                 f"(params.ROLE.NAME; vsim describe lists them), got {self.key!r}"
                 + (f"; {hint}" if hint else ""))
        if not self.values:
            fail(source, f"{path}.values", "expected at least one value")
        cls, name = swept
        for index, value in enumerate(self.values):
            check_field(cls, name, value, source=source, path=f"{path}.values[{index}]")
        if len(set(self.values)) != len(self.values):
            fail(source, f"{path}.values", "expected distinct values")
