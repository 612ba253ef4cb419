"""Typed schema of a scenario file: the ``Scenario`` holding every table.

A scenario TOML file has the tables ``[run]``, ``[host]``, ``[vm]``,
``[client]`` and optionally ``[measured_vm]`` (the measured VM's own CPU
settings), ``[[group]]`` (further groups of VMs, each with its own CPU
settings, workload and traffic), ``[netioc]`` and ``[htb]`` (the uplink's
trees), ``[params.ROLE]`` (model parameters), ``[sweep]`` (the independent
variable of a figure) and ``[validate]`` (how close ``vsim validate`` requires
the simulation to come to measured traces). The tables' classes are in
``vsim.config.schema_sections`` and ``vsim.config.schema_sweep``, the
component models' in ``vsim.config.schema_models``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from vsim.config.schema_models import MODEL_ROLES
from vsim.config.schema_sections import (ClientSection, GroupSection, HostSection, HtbNodeSection,
                                           HtbSection, MeasuredVmSection, NetiocNodeSection,
                                           NetiocSection, RunSection,
                                           ValidateSection, VmSection)
from vsim.config.schema_sweep import SweepSection
from vsim.config.typed import fail


@dataclass(frozen=True)
class Scenario:
    """A whole scenario file: its name, study and every table, typed and checked."""

    name: str = field(metadata={"doc": "what this scenario reproduces"})
    study: str | None = field(default=None, metadata={
        "doc": "the study of the claims file (paper_claims.toml) whose claims this scenario "
               "reproduces; a study's recipe runs only scenarios that name it"})
    run: RunSection = field(default_factory=RunSection)
    host: HostSection = field(default_factory=HostSection)
    vm: VmSection = field(default_factory=VmSection)
    measured_vm: MeasuredVmSection = field(default_factory=MeasuredVmSection)
    client: ClientSection = field(default_factory=ClientSection)
    params: dict[str, dict[str, bool | int | float]] = field(default_factory=dict, metadata={
        "doc": "model parameters set by this scenario instead of the model files, by role: "
               "[params.host] ht_rate = 0.8 (roles: " + ", ".join(MODEL_ROLES) + ")"})
    group: tuple[GroupSection, ...] = field(default_factory=tuple, metadata={
        "doc": "further groups of VMs ([[group]] tables), after [vm]'s"})
    netioc: NetiocSection = field(default_factory=NetiocSection)
    htb: HtbSection = field(default_factory=HtbSection)
    sweep: SweepSection | None = None
    validate: ValidateSection = field(default_factory=ValidateSection)

    def vm_settings(self, index):
        """[vm] as it applies to VM ``index``: the measured VM (index 0) takes the
        values set in [measured_vm]."""
        overrides = self.measured_vm.overrides() if index == 0 else {}
        return replace(self.vm, **overrides) if overrides else self.vm

    def group_names(self):
        """Names of the VM groups: 'vm' for [vm]'s VMs, then each [[group]]'s."""
        return ["vm"] + [group.name for group in self.group]

    def check_uplink(self, source):
        """The NetIOC and htb trees name only known VM groups and, when the uplink uses one,
        it places every VM group that sends on one leaf (a CPU-bound group has no vNIC)."""
        names = self.group_names()
        silent = {group.name for group in self.group if group.workload == "cpu_bound"}
        placed_groups = [name for name in (names if self.vm.instances else names[1:]) if name not in silent]
        trees: tuple[tuple[str, tuple[NetiocNodeSection | HtbNodeSection, ...], str], ...] = (
            ("netioc", self.netioc.node, "NetIOC"), ("htb", self.htb.node, "htb"))
        for key, nodes, label in trees:
            for index, node in enumerate(nodes):
                for member in node.members:
                    if member not in names:
                        fail(source, f"{key}.node[{index}].members",
                             f"expected VM groups ({', '.join(names)}), got {member!r}")
            if self.host.uplink != key:
                continue
            if not nodes:
                fail(source, f"{key}.node", f'expected the {label} tree ([[{key}.node]] tables) '
                     f'with host.uplink = "{key}"')
            placed = {m for node in nodes for m in node.members}
            for name in placed_groups:
                if name not in placed:
                    fail(source, f"{key}.node", f"expected VM group '{name}' among the members "
                         "of a leaf")
