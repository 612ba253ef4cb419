"""Say why some points of a sweep came out identical, instead of leaving identical rows unexplained.

A swept CPU setting can leave the scheduler exactly where it was: a
reservation below a VM's share of the host, or shares raised for every VM
alike, change no entitlement (``vsim.cpu.policies.proportional_share``: a
reservation counts only above the share the VM's shares already give it), so
those points run the same events and the table shows the same row several
times. For each set of points whose rows are identical, the scheduler's inputs
are rebuilt at each point (every world's shares as the policy entitles them,
every group's limit); when those are equal too, the note says the swept value
changes no entitlement and, where the CPU policy shares the host out by shares
(``vsim.cpu.policies.protocol.host_shares``), what each VM's share of the host
is, so the reader sees why. Only a VM's CPU settings (``CPU_SETTINGS``) get that note: any other
key (the uplink's scheduler, a model parameter) acts elsewhere than on the
entitlements, so equal entitlements would explain nothing. Identical rows
whose entitlements differ, or of any other key, get a plainer note.

A CPU setting swept while another of the same VM's stays set (shares swept
beside a reservation that holds the VM anyway) gets a note too, whether or not
the rows came out identical: the sweep then answers another question than its
key says.
"""

import json
import math

from vsim.config.schema_sweep import sweep_field
from vsim.cpu.policies.protocol import host_shares
from vsim.cpu.world import VM
from vsim.engines.simulation import Simulation

CPU_SETTINGS = {
    "reservation": "a reservation counts only above that share",
    "shares": "shares count only relative to the other VMs'",
    "limit": "a limit above what a VM uses holds nothing back",
}
"""A VM's CPU settings, each with what makes a value of it inert."""

CPU_SECTIONS = ("vm", "measured_vm", "group")
"""The sections whose CPU settings are a VM's: ``vm.shares``, ``group.NAME.limit``."""


def is_cpu_setting(key):
    """Whether the sweep ``key`` is a VM's CPU setting (``measured_vm.reservation``)."""
    parts = key.split(".")
    return parts[0] in CPU_SECTIONS and parts[-1] in CPU_SETTINGS


def scheduler_inputs(loaded):
    """(what the scheduler is given, each VM's share of the host in CPUs) for a scenario.

    The first is every group's limit and its worlds' shares after the
    policy's entitlement (the machine has the policy entitle them as each
    group with a reservation joins, ``Machine.add_group``); the second maps
    each VM (each group of the ``VM`` role) to the CPUs the policy says its
    shares give it (``host_shares``): under proportional share, the host
    shared out by shares among VMs that use all their vCPUs and their
    transmit worlds (reservations left aside), as a transmit world holds a
    vCPU's part of its VM's shares, and on a host loaded enough for a
    reservation to matter its frames keep it asking for CPU. It is None for a
    policy whose shares name no share of the host (Linux's fair class).
    """
    machine = Simulation(loaded, seed=0).machine
    inputs = tuple((group.name, group.limit, tuple(world.share for world in group.worlds))
                   for group in machine.groups)
    vms = [group for group in machine.groups if group.role == VM]
    return inputs, host_shares(machine.policy, machine, vms)


def no_effect_notes(key, reports, loaded):
    """One line per set of two or more points whose rows are identical, saying why.

    ``reports`` are the sweep's ``PointReport``s (its rows) and ``loaded`` the
    scenario swept over ``key``.
    """
    groups = {}
    for index, report in enumerate(reports):
        groups.setdefault(json.dumps(report.stats, sort_keys=True), []).append(index)
    notes = []
    for indices in groups.values():
        if len(indices) < 2:
            continue
        xs = [reports[index].x for index in indices]
        values = _values(key, xs, contiguous=indices[-1] - indices[0] == len(indices) - 1)
        inputs = ([scheduler_inputs(loaded.with_value(key, x)) for x in xs]
                  if is_cpu_setting(key) else None)
        if inputs is None or any(entry[0] != inputs[0][0] for entry in inputs):
            notes.append(f"note: {key} {values} gave identical results{_known_reason(key, loaded)}")
            continue
        shares, reason = inputs[0][1], CPU_SETTINGS[key.split('.')[-1]]
        because = reason if shares is None else f"{_shares_text(shares)}; {reason}"
        notes.append(f"note: {key} {values} changes no CPU entitlement ({because}), "
                     f"so these points ran the same")
    return notes


def _known_reason(key, loaded):
    """Why a key other than a CPU setting can leave a run unchanged, where the scenario shows
    it: hyper-threading on a host model of one thread per core."""
    if key == "host.hyperthreading" and loaded.models["host"].values.threads_per_core == 1:
        return f" (the host model {loaded.scenario.host.model} has one thread per core)"
    return ""


def held_settings_notes(key, loaded):
    """A line per CPU setting that holds the swept VM at every point: sweeping a VM's shares
    while its reservation or limit stays set (``measured_vm.shares`` beside
    ``measured_vm.reservation = 1.5``) asks a different question than the sweep's key says,
    so the note names the setting and the ``--set`` that takes it out."""
    if not is_cpu_setting(key):
        return []
    section, setting = key.rsplit(".", 1)
    vm = _cpu_section(loaded.scenario, section)
    if vm is None:
        return []
    neutral = {"reservation": (vm.reservation, 0), "limit": (vm.limit, vm.vcpus)}
    return [f"note: {section}.{other} = {value:g} CPU{'s' * (value != 1)} holds at every point "
            f"(--set {section}.{other}={free} to sweep {key} alone)"
            for other, (value, free) in neutral.items()
            if other != setting and value and value != free]


def _cpu_section(scenario, section):
    """The VM settings a sweep key's section (``vm``, ``measured_vm``, ``group.NAME``) sets."""
    if section == "vm":
        return scenario.vm
    if section == "measured_vm":
        return scenario.vm_settings(0)
    name = section.split(".", 1)[1] if section.startswith("group.") else None
    return next((group for group in scenario.group if group.name == name), None)


def _values(key, xs, contiguous):
    """``0 .. 0.5 CPUs`` for a run of neighbouring numbers, else ``0, 1 CPUs`` or ``true, false``:
    the swept values of a note, with their unit."""
    cls, name = sweep_field(key)
    unit = {f.name: f.metadata for f in cls.__dataclass_fields__.values()}[name].get("unit")
    numeric = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in xs)
    if numeric and contiguous:
        text = f"{json.dumps(min(xs))} .. {json.dumps(max(xs))}"
    else:
        text = ", ".join(json.dumps(x) for x in xs)
    return f"{text} {unit}" if unit else text


def _shares_text(shares):
    """``each VM's share of the host is 1.07 CPUs`` or the measured VM's and the others'."""
    def cpus(value):
        return "all its vCPUs" if math.isinf(value) else f"{value:.3g} CPUs"

    values = list(shares.values())
    if all(math.isclose(value, values[0]) for value in values):
        return f"each VM's share of the host is {cpus(values[0])}"
    first, others = next(iter(shares)), values[1:]
    text = f"{first}'s share of the host is {cpus(values[0])}"
    if all(math.isclose(value, others[0]) for value in others):
        return text + f", the other VMs' {cpus(others[0])}"
    return text + f", the other VMs' {cpus(min(others))} to {cpus(max(others))}"
