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

``PER_HOST_TASK_BYTES``
    each host background task (``host.background_tasks``): its world and group,
    1.0 KiB measured at 100 000 tasks, taken as 2 KiB.
``PER_STREAM_BYTES``
    each stream's place in its VM's list of conferences: 4 B a stream measured at
    40 million streams, taken as 8 B.
``PER_BURST_UNCONTENDED_BYTES``
    the closed form draws every guest background burst of the run in advance, a
    (time, vCPU) tuple each, taken as 128 B; like its packet arrays, only where it may run.
``PER_SIP_CALL_BYTES``
    each call of a SIP server's client: its start scheduled in advance, its client and server
    state and its setup time kept for the summary, 0.7 KiB measured (10 against 250 calls/s
    for 400 s), taken as 1 KiB.

The duration enters through the packets recorded and what the closed form draws
in advance; the streams per VM through the closed form's arrays and their places
in the conference lists (beyond those, the event engine's memory does not grow
with them: 30 and 120 streams at 100 VMs measured the same).

A run that does not fit is blamed, as ``vsim.build.blame`` says, on the value
furthest beyond its usual one among the factors of the largest part of the
estimate that some key changes (not the interpreter's own).
"""

from pathlib import Path

from vsim.build.blame import Factor, Term, blamed_factor, scaled_to_fit
from vsim.config.schema_sections import RunSection, VmSection
from vsim.core.errors import InputError

MIB = 1024 * 1024
BASE_MIB = 110.0
PER_VCPU_MIB = 0.25
PER_MONITORED_PACKET_BYTES = 128.0
PER_PACKET_UNCONTENDED_BYTES = 32.0
PER_HOST_TASK_BYTES = 2048.0
PER_STREAM_BYTES = 8.0
PER_BURST_UNCONTENDED_BYTES = 128.0
PER_SIP_CALL_BYTES = 1024.0
MEMINFO = Path("/proc/meminfo")


def sip_call_rate(group):
    """Calls per second a sip_server group's client offers each of its VMs at most (its
    sipp_uac source's rate, or with a ramp its rate_max, over its rate period, checked when
    the scenario was loaded)."""
    params = group.traffic.params
    rate = params.get("rate", 0)
    if params.get("rate_increase", 0) > 0:
        rate = max(rate, params.get("rate_max", rate))
    return rate / params.get("rate_period", 1.0)


def estimate_bytes(loaded, duration):
    """An upper bound on the peak memory of one replication of ``loaded`` lasting ``duration`` s.

    The VMs of ``[[group]]`` tables count like ``[vm]``'s, each with its vCPUs and at
    most one monitored conference."""
    return BASE_MIB * MIB + sum(term.rate for term in memory_terms(loaded, duration))


def memory_terms(loaded, duration, duration_key="run.duration"):
    """The ``Term``s of ``estimate_bytes`` beyond the interpreter's own (``rate`` in bytes),
    each with the values it is the product of; ``duration_key`` names the run's length."""
    scenario, models = loaded.scenario, loaded.models
    vm = scenario.vm
    host = models["host"].values
    packets_per_s = 1.0 / models["codec"].values.packet_interval
    participants = models["workload"].values.participants
    length = Factor(duration_key, duration, RunSection().duration, "the command line"
                    if duration_key.startswith("--") else loaded.origin("run.duration"), unit="s")
    instances = _factor(loaded, "vm.instances", vm.instances, VmSection().instances)
    streams = _factor(loaded, "vm.streams_per_instance", vm.streams_per_instance,
                      VmSection().streams_per_instance)
    terms = [Term("[vm]'s vCPUs", PER_VCPU_MIB * MIB * vm.instances * vm.vcpus,
                  (instances, _factor(loaded, "vm.vcpus", vm.vcpus, VmSection().vcpus))),
             Term("[vm]'s streams in their conference lists", PER_STREAM_BYTES * vm.instances
                  * vm.streams_per_instance, (instances, streams)),
             Term("[vm]'s monitored packets", PER_MONITORED_PACKET_BYTES * vm.instances * participants
                  * packets_per_s * duration, (instances, length))]
    for group in scenario.group:
        count = _factor(loaded, f"group.{group.name}.count", group.count, 1)
        terms += [Term(f"group.{group.name}'s vCPUs", PER_VCPU_MIB * MIB * group.count * group.vcpus,
                       (count, _factor(loaded, f"group.{group.name}.vcpus", group.vcpus, 1))),
                  Term(f"group.{group.name}'s monitored packets", PER_MONITORED_PACKET_BYTES * group.count
                       * participants * packets_per_s * duration, (count, length))]  # at most one conference a VM
        if group.workload == "sip_server":
            rate = sip_call_rate(group)
            terms.append(Term(f"group.{group.name}'s SIP calls", PER_SIP_CALL_BYTES * group.count * rate * duration,
                              (count, _factor(loaded, f"group.{group.name}.traffic.params.rate", rate, 100.0),
                               length)))
    tasks = scenario.host.background_tasks
    terms.append(Term("host background tasks", PER_HOST_TASK_BYTES * tasks,
                      (_factor(loaded, "host.background_tasks", tasks, 0),)))
    cores = host.topology(scenario.host.hyperthreading).cores
    if vm.instances * (vm.vcpus + 1) <= cores:  # where the closed form may run
        terms.append(Term("the closed form's packet arrays", PER_PACKET_UNCONTENDED_BYTES * vm.instances
                          * vm.streams_per_instance * packets_per_s * duration, (instances, streams, length)))
        workload = models["workload"].values
        burst, interval = vm.background(workload)
        if burst > 0:
            terms.append(Term("the closed form's guest bursts", PER_BURST_UNCONTENDED_BYTES * vm.instances
                              * duration / interval, (instances, length, _factor(
                                  loaded, "vm.background_interval", interval, workload.background_interval,
                                  inverse=True))))
    return terms


def _factor(loaded, key, value, usual, inverse=False):
    return Factor(key, value, usual, loaded.origin(key), inverse, "s" if inverse else "")


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

    ``runs`` are (source, loaded, duration), or with a fourth item for a sweep's point: a
    (where, key, value) per key it varies, blamed at that ``where`` (``sweep.values[2]``,
    ``sweep.axis[1]``) when the key to change is that one; ``jobs`` of them run at once, so
    the largest needs at most the available memory divided by ``jobs``.
    ``available`` defaults to ``MemAvailable``; without it nothing is checked.
    The refusal blames what to change: ``--jobs`` when one run would fit, else the value
    furthest beyond its usual one among the factors of the largest part of the estimate
    (``vsim.build.blame``): ``duration_key`` (where the run's length was set) for a run
    too long, the key of the most VMs, the streams, the host's background tasks.
    """
    available = available_bytes() if available is None else available
    if available is None or not runs:
        return
    source, loaded, duration, *point = max(runs, key=lambda run: estimate_bytes(run[1], run[2]))
    terms = memory_terms(loaded, duration, duration_key)
    need = estimate_bytes(loaded, duration)
    if need * jobs <= available:
        return
    each = f"{gib(need)} each, x {jobs} jobs = {gib(need * jobs)}" if jobs > 1 else gib(need)
    vms, vcpus = _vm_counts(loaded.scenario)
    needs = (f"a run of {vms} VM{'s' * (vms != 1)} with {vcpus} vCPUs in all for {duration:g} s needs "
             f"about {each} of memory (estimated), but only {gib(available)} is available (MemAvailable)")
    if need <= available:
        raise InputError("--jobs", None, f"{needs}; expected at most {int(available // need)} jobs")
    largest = max(terms, key=lambda term: term.rate)
    blamed = blamed_factor(largest.factors)
    share = sum(term.rate for term in terms if blamed.key in {factor.key for factor in term.factors})
    room = available / jobs - (need - share)  # for what grows with the blamed value
    if blamed.key == duration_key and room > 0:
        raise InputError(source, duration_key, f"{needs}; expected a run of at most "
                         f"{duration * room / share:.3g} s, or fewer VMs")
    expected = (f"{needs}; most of it is {largest.what}, from "
                f"{', '.join(factor.text() for factor in largest.factors)}; expected "
                f"{scaled_to_fit(blamed, need - share, share, available / jobs)}")
    for where, key, value in (point[0] if point else ()):
        if key == blamed.key:
            raise InputError(source, where, f"at {key} = {value}, {expected}")
    raise InputError(source, blamed.key, expected)


def _vm_counts(scenario):
    """(every VM, every vCPU) of ``scenario``, [[group]]s included."""
    vm = scenario.vm
    vms = vm.instances + sum(group.count for group in scenario.group)
    return vms, vm.instances * vm.vcpus + sum(group.count * group.vcpus for group in scenario.group)


def gib(count):
    """``count`` bytes in MiB, or in GiB from 1 GiB on, as a refusal shows them."""
    return f"{count / 1024 ** 3:.1f} GiB" if count >= 1024 ** 3 else f"{count / MIB:.0f} MiB"
