"""A scenario checked against its component models, before anything is built.

Cross-checks that need both the scenario and its models: vCPUs against the
host's logical CPUs, reservations against capacity, affinity and NUMA home
nodes against the topology, cgroup and Xen domain settings against the scheduler, a NIC
without a rate of its own only under htb, the NetIOC tree against the link,
each traffic group's source against the registry, and every point of a
``[sweep]``. Each refusal names the key at fault (and the ``--set`` it rests
on), so no run fails halfway through.
"""

import math
from dataclasses import replace

import numpy as np

from vsim.build.cgroups import check_cgroup_settings
from vsim.build.netioc import netioc_tree
from vsim.build.host_uplink import check_uplink_nic
from vsim.build.replayed_trace import with_recorded_packets
from vsim.build.xen_domains import check_xen_settings
from vsim.config.cpu_settings import limit_beyond_vcpus
from vsim.config.load import logical_cpus, with_point
from vsim.config.models import DEFAULT_MODELS_DIR
from vsim.config.named_tables import named_where, scenario_table_names
from vsim.config.override_source import depending_on
from vsim.config.schema_sweep import names_a_model
from vsim.config.typed import fail
from vsim.core.errors import InputError, did_you_mean
from vsim.net.sources import SOURCES, make_source
from vsim.net.sources.protocol import Replay


def check_against_models(scenario, models, source, models_dir=DEFAULT_MODELS_DIR):
    """Cross-checks that need both the scenario and its host: a refusal names a ``--set`` of
    the host's model, hyper-threading, scheduler or NIC it rests on."""
    with depending_on("host.model", "host.hyperthreading"):
        _check_against_host(scenario, models, source)
    if not scenario.vm.instances and not scenario.group:
        fail(source, "vm.instances", "expected at least one VM to simulate: vm.instances >= 1 or a "
             "[[group]] of VMs, and this scenario has neither")
    with depending_on("host.scheduler"):
        check_cgroup_settings(scenario, models["scheduler"].values, source)
        check_xen_settings(scenario, models["scheduler"].values, source)
    with depending_on("host.model", "host.hyperthreading"):
        check_groups(scenario, logical_cpus(scenario, models["host"].values), source)
    check_one_discrete_kind(scenario, source)
    scenario.check_uplink(source)
    check_phases(scenario, models["codec"].values.packet_interval, source)
    with depending_on("host.nic"):
        check_unshaped_nic(scenario, models["nic"].values, source)
        check_uplink_nic(scenario, models["nic"].values, source)
        if scenario.netioc.node:
            netioc_tree(scenario, models["nic"].values.rate_bps, source)
    if scenario.host.numa_home_nodes:
        with depending_on("host.model", "host.hyperthreading"):
            check_home_nodes(scenario, models["host"].values, logical_cpus(scenario, models["host"].values),
                             source)
    if scenario.sweep is not None:
        check_sweep_points(scenario, models, source, models_dir)


def _check_against_host(scenario, models, source):
    """The VMs' vCPUs, affinities and CPU settings fit the host's logical CPUs."""
    lcpus = logical_cpus(scenario, models["host"].values)
    vm = scenario.vm
    if vm.vcpus > lcpus:
        fail(source, "vm.vcpus", f"expected at most {lcpus} vCPUs (the host's logical CPUs), got {vm.vcpus}")
    if vm.affinity is not None:
        bad = [c for c in vm.affinity if c >= lcpus]
        if bad:
            fail(source, "vm.affinity", f"expected logical CPUs 0..{lcpus - 1}, got {bad[0]}")
        if vm.vcpus > len(vm.affinity):
            fail(source, "vm.affinity", f"expected at least as many logical CPUs as vCPUs ({vm.vcpus}), "
                 f"got {len(vm.affinity)}")
    check_cpu_settings(scenario, lcpus, source)


def check_unshaped_nic(scenario, nic, source):
    """A NIC model with no rate of its own (a veth) carries traffic only under htb, whose
    classes set the rates; any other uplink would serve at an infinite rate."""
    if math.isinf(nic.rate_bps) and scenario.host.uplink != "htb":
        fail(source, "host.uplink", f'expected "htb" on the NIC model {scenario.host.nic} (it has no '
             f'rate of its own: rate_bps = inf), got {scenario.host.uplink!r}')


def check_cpu_settings(scenario, lcpus, source):
    """Reservations within one VM's vCPUs and the host's capacity, and no limit
    below a reservation, the measured VM's own settings ([measured_vm]) included;
    [measured_vm] only where [vm] has a VM for it to set."""
    vm = scenario.vm
    own = scenario.measured_vm.overrides()
    if own and not vm.instances:
        fail(source, f"measured_vm.{next(iter(own))}",
             "expected [vm] instances > 0: [measured_vm] sets [vm]'s first VM, and [vm] has none")
    measured = scenario.vm_settings(0)
    for key, reservation in (("vm.reservation", vm.reservation),
                             ("measured_vm.reservation", measured.reservation)):
        if reservation > vm.vcpus:
            fail(source, key, f"expected at most {vm.vcpus} CPUs (one per vCPU), got {reservation}")
    for key, limit in (("vm.limit", vm.limit), ("measured_vm.limit", measured.limit)):
        if limit is not None and limit > vm.vcpus:
            fail(source, key, limit_beyond_vcpus(vm.vcpus, limit))
    if own.keys() & {"limit", "reservation"} and measured.limit is not None \
            and measured.limit < measured.reservation:
        fail(source, "measured_vm.limit" if "limit" in own else "measured_vm.reservation",
             f"expected the measured VM's limit ({measured.limit}) >= its reservation "
             f"({measured.reservation})")
    if vm.instances and measured.reservation + vm.reservation * (vm.instances - 1) > lcpus:
        if "reservation" in own:
            fail(source, "measured_vm.reservation", f"expected reservations within capacity: "
                 f"{measured.reservation} CPUs for the measured VM and {vm.instances - 1} x "
                 f"{vm.reservation} for the others exceed the host's {lcpus} logical CPUs")
        fail(source, "vm.reservation", f"expected reservations within capacity: {vm.instances} x "
             f"{vm.reservation} CPUs exceeds the host's {lcpus} logical CPUs")


def check_groups(scenario, lcpus, source):
    """Each [[group]] has a name of its own and its VMs fit the host, and all VMs'
    reservations fit its capacity."""
    names = [group.name for group in scenario.group]
    for index, name in enumerate(names):
        if name in names[:index]:
            fail(source, f"group[{index}].name", f"expected a group name used once, got {name!r}")
    vm = scenario.vm
    reserved = (scenario.vm_settings(0).reservation + vm.reservation * (vm.instances - 1)
                if vm.instances else 0.0)
    for index, group in enumerate(scenario.group):
        if group.vcpus > lcpus:
            fail(source, f"group[{index}].vcpus", f"expected at most {lcpus} vCPUs (the host's "
                 f"logical CPUs), got {group.vcpus}")
        if group.traffic is not None:
            check_traffic(group, f"group[{index}]", source)
        reserved += group.reservation * group.count
        if reserved > lcpus:
            fail(source, f"group[{index}].reservation", f"expected reservations within capacity: "
                 f"the VMs' reservations up to this group exceed the host's {lcpus} logical CPUs")
    if scenario.group and scenario.host.numa_home_nodes:
        fail(source, "host.numa_home_nodes", "expected no NUMA home nodes with [[group]] VMs "
             "(home nodes are dealt to [vm]'s identical VMs only)")


def check_phases(scenario, period, source):
    """Every fixed phase of [vm]'s and the media-server groups' workers falls within one tick:
    at least 0 (the schema's bound) and below the codec's packet interval ``period``."""
    lists = [("vm.phases", scenario.vm.phases)] + [
        (f"group[{index}].phases", group.phases) for index, group in enumerate(scenario.group)]
    for key, phases in lists:
        late = [phase for phase in phases or () if phase >= period]
        if late:
            fail(source, key, f"expected phases below the codec's packet interval ({period:g} s), "
                 f"got {late[0]:g}")


def check_traffic(group, where, source):
    """A group's traffic: a source of the registry, from an idle VM, with its parameters."""
    kind = group.traffic.kind
    if kind not in SOURCES:
        fail(source, f"{where}.traffic.kind", did_you_mean(str(kind), sorted(SOURCES))
             or f"expected one of {', '.join(sorted(SOURCES))}, got {kind!r}")
    if group.workload not in ("idle", "sip_server", "web_app"):
        fail(source, f"{where}.traffic", "expected traffic from an idle VM only (a media "
             "server's traffic is its frames)")
    made = make_source(kind, group.traffic.params, source, f"{where}.traffic.params",
                       np.random.default_rng(0))  # its own checks of the parameters
    if isinstance(made, Replay):  # its trace is there and holds packets it replays
        with_recorded_packets(made, source, f"{where}.traffic.params")


def check_one_discrete_kind(scenario, source):
    """Discrete traffic of one kind only (request/response chains or replayed packets): each
    kind hands its frames to the uplink late, in batches of its own, and two kinds' batches
    would not reach it in time order."""
    discrete = [(index, group.traffic.kind) for index, group in enumerate(scenario.group)
                if group.uplink_traffic is not None and group.traffic.kind in SOURCES
                and getattr(SOURCES[group.traffic.kind], "discrete", False)]
    for index, kind in discrete:
        first_index, first_kind = discrete[0]
        if kind != first_kind:
            fail(source, f"group[{index}].traffic.kind", f"expected no {kind} traffic beside "
                 f"{first_kind} (group[{first_index}]): the two cannot share one uplink")


def check_sweep_points(scenario, models, source, models_dir=DEFAULT_MODELS_DIR):
    """Every point of the sweep must pass the cross-checks, so no run fails halfway through.
    A point of one key is blamed at its ``sweep.values[i]``; one of a design of several keys at
    ``sweep.axis[i]`` of its first key whose value the point needs (naming every value it had)."""
    sweep = scenario.sweep
    for index, setting in enumerate(sweep.settings()):
        loads_models = any(names_a_model(key) for key, _ in setting)
        if not loads_models:  # a table a key names but the scenario lacks: the key's fault
            point, point_models = _at(scenario, models, setting, source, models_dir)
        try:
            if loads_models:  # a model the point names but cannot load: the point's fault
                point, point_models = _at(scenario, models, setting, source, models_dir)
            check_against_models(replace(point, sweep=None), point_models, source, models_dir)
        except InputError as error:
            where = named_where(error.where, scenario_table_names(scenario))
            values = ", ".join(f"{key} = {_shown(value)}" for key, value in setting)
            blamed = f"sweep.values[{index}]" if not sweep.axis else _blamed_axis(sweep, setting, error)
            fail(source, blamed, f"at {values}, {where}: {error.expected}")


def _at(scenario, models, setting, source, models_dir):
    """The scenario and models with every (key, value) of ``setting`` changed."""
    for key, value in setting:
        scenario, models = with_point(scenario, models, key, value, source, models_dir)
    return scenario, models


def _shown(value):
    """A swept value as TOML writes it (``false``, ``12``)."""
    return str(value).lower() if isinstance(value, bool) else value


def _blamed_axis(sweep, setting, error):
    """``sweep.axis[i]`` of the key the refusal names, else of the first axis."""
    keys = [key for key, _ in setting]
    named = next((i for i, key in enumerate(keys) if error.where and error.where.startswith(key)), 0)
    return f"sweep.axis[{named}]"


def _vms_per_node(instances, host):
    """VMs on the busiest home node when ``instances`` VMs are dealt round-robin."""
    return -(-instances // host.sockets)


def _node_reservations(scenario, host):
    """CPUs reserved on each home node, the VMs dealt round-robin over the sockets."""
    reserved = [0.0] * host.sockets
    for index in range(scenario.vm.instances):
        reserved[index % host.sockets] += scenario.vm_settings(index).reservation
    return reserved


def check_home_nodes(scenario, host, lcpus, source):
    """A VM must fit its home node, and the node's VMs' reservations its logical CPUs."""
    vm = scenario.vm
    per_node = lcpus // host.sockets
    if vm.affinity is not None:
        fail(source, "host.numa_home_nodes", "expected no vm.affinity with NUMA home nodes "
             "(a VM with CPU affinity is not placed by the NUMA scheduler)")
    if vm.vcpus > per_node:
        fail(source, "vm.vcpus", f"expected at most {per_node} vCPUs with NUMA home nodes (one "
             f"socket's logical CPUs; VMs wider than a node are not modelled), got {vm.vcpus}")
    if max(_node_reservations(scenario, host)) > per_node:
        measured = scenario.measured_vm.reservation
        key = "vm.reservation" if measured is None else "measured_vm.reservation"
        fail(source, key, f"expected the reservations of one NUMA home node's "
             f"{_vms_per_node(vm.instances, host)} VMs within its {per_node} logical CPUs, "
             f"got {vm.reservation} CPUs each"
             + ("" if measured is None else f" and {measured} for the measured VM"))
