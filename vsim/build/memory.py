"""How much memory a run needs, estimated before it starts, and whether that fits.

A run that does not fit is killed by the kernel without a word, possibly
after minutes of work, so the command line refuses it up front. The estimate
is an upper bound on the peak resident set of one replication, from four
terms whose coefficients were measured with ``benchmarks/bench_memory.py``
(peak RSS, ``VmHWM``, of a fresh process per run, fig3.toml's host,
Python 3.11, numpy 2, compiled scheduler):

``BASE_MIB``
    the interpreter with numpy, scipy, simpy and vsim loaded: 101-102 MiB
    measured before any scenario is built, rounded up.
``PER_VCPU_MIB``
    each worker vCPU's blocks of pre-drawn random numbers (4096 timer
    latenesses and 1024 frame costs held as Python floats) and each VM's
    objects: 0.20 MiB per vCPU measured at 100 VMs of 1, 2, 4 and 8 vCPUs
    and at 400 VMs of 4 vCPUs, rounded up.
``PER_MONITORED_PACKET_BYTES``
    every VM records the packets of its monitored conference (send and
    arrival times, stream), turned into arrays and jitter samples at the end:
    about 40 B per packet measured from 10 s to 60 s at 12 VMs, taken as 128 B
    (Python lists of floats and the arrays made from them).
``PER_PACKET_UNCONTENDED_BYTES``
    the closed-form engine (``vsim.engines.closed_form``) holds arrays over
    every packet of every stream: 18.5 B per packet measured over 300 s of
    one 120-stream VM, taken as 32 B. It applies only where every world has a
    core of its own, so the term counts only for such small hosts.

The duration enters through the packets recorded; the streams per VM only
through the closed form's arrays (the event engine's memory does not grow
with them: 30 and 120 streams at 100 VMs measured the same).
"""

from pathlib import Path

from vsim.core.errors import InputError

MIB = 1024 * 1024
BASE_MIB = 110.0
PER_VCPU_MIB = 0.25
PER_MONITORED_PACKET_BYTES = 128.0
PER_PACKET_UNCONTENDED_BYTES = 32.0
MEMINFO = Path("/proc/meminfo")


def estimate_bytes(loaded, duration):
    """An upper bound on the peak memory of one replication of ``loaded`` lasting ``duration`` s.

    The VMs of ``[[group]]`` tables count like ``[vm]``'s, each with its vCPUs and at
    most one monitored conference."""
    return sum(_estimate_terms(loaded, duration))


def _estimate_terms(loaded, duration):
    """(bytes that do not grow with the run's length, bytes that do) of ``estimate_bytes``."""
    vm = loaded.scenario.vm
    codec = loaded.models["codec"].values
    workload = loaded.models["workload"].values
    host = loaded.models["host"].values
    cores = host.topology(loaded.scenario.host.hyperthreading).cores
    packets_per_s = 1.0 / codec.packet_interval
    groups = loaded.scenario.group
    vms = vm.instances + sum(group.count for group in groups)
    vcpus = vm.instances * vm.vcpus + sum(group.count * group.vcpus for group in groups)
    monitored = vms * workload.participants * packets_per_s * duration  # at most one conference a VM
    fixed = BASE_MIB * MIB + PER_VCPU_MIB * MIB * vcpus
    growing = PER_MONITORED_PACKET_BYTES * monitored
    if vm.instances * (vm.vcpus + 1) <= cores:  # where the closed form may run
        growing += PER_PACKET_UNCONTENDED_BYTES * vm.instances * vm.streams_per_instance * packets_per_s \
            * duration
    return fixed, growing


def available_bytes(meminfo=MEMINFO):
    """The kernel's estimate of memory available to new work (``MemAvailable``), or None
    where ``/proc/meminfo`` does not say."""
    try:
        lines = Path(meminfo).read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        name, _, value = line.partition(":")
        if name == "MemAvailable":
            number, _, unit = value.strip().partition(" ")
            return int(number) * (1024 if unit == "kB" else 1)
    return None


def check_memory(runs, jobs, available=None, duration_key="run.duration"):
    """Refuse, before simulating, runs that cannot fit in the available memory.

    ``runs`` are (source, loaded, duration), or with a fourth item (index, key,
    value) for a sweep's point, blamed at that ``sweep.values[index]`` when the
    key to change is the swept one; ``jobs`` of them run at once, so
    the largest needs at most the available memory divided by ``jobs``.
    ``available`` defaults to ``MemAvailable``; without it nothing is checked.
    The refusal blames what to change: ``--jobs`` when one run would fit,
    else ``duration_key`` (where the run's length was set) when most of the
    memory grows with the run's length and a shorter run would fit, else the
    key of the most vCPUs.
    """
    available = available_bytes() if available is None else available
    if available is None or not runs:
        return
    source, loaded, duration, *point = max(runs, key=lambda run: estimate_bytes(run[1], run[2]))
    fixed, growing = _estimate_terms(loaded, duration)
    need = fixed + growing
    if need * jobs <= available:
        return
    each = f"{_gib(need)} each, x {jobs} jobs = {_gib(need * jobs)}" if jobs > 1 else _gib(need)
    key, vms, vcpus = _largest_count(loaded.scenario)
    needs = (f"a run of {vms} VM{'s' * (vms != 1)} with {vcpus} vCPUs in all for {duration:g} s needs "
             f"about {each} of memory (estimated), but only {_gib(available)} is available (MemAvailable)")
    if need <= available:
        raise InputError("--jobs", None, f"{needs}; expected at most {int(available // need)} jobs")
    room = available / jobs - fixed  # for what grows with the run's length
    if growing > fixed and room > 0:
        raise InputError(source, duration_key, f"{needs}; expected a run of at most "
                         f"{duration * room / growing:.3g} s, or fewer VMs")
    expected = f"{needs}; expected fewer VMs or vCPUs, or a shorter run"
    if point and point[0][1] == key:
        index, _, value = point[0]
        raise InputError(source, f"sweep.values[{index}]", f"at {key} = {value}, {expected}")
    raise InputError(source, key, expected)


def _largest_count(scenario):
    """(the key whose VMs hold the most vCPUs, every VM, every vCPU): the key to blame."""
    vm = scenario.vm
    counts = [("vm.instances", vm.instances * vm.vcpus)]
    counts += [(f"group.{group.name}.count", group.count * group.vcpus) for group in scenario.group]
    key = max(counts, key=lambda entry: entry[1])[0]
    vms = vm.instances + sum(group.count for group in scenario.group)
    return key, vms, sum(vcpus for _, vcpus in counts)


def _gib(count):
    return f"{count / 1024 ** 3:.1f} GiB" if count >= 1024 ** 3 else f"{count / MIB:.0f} MiB"
