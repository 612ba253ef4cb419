"""How much work a command would take, estimated before it starts, and whether it can finish.

A command that asks for more than could ever finish (``--replications 1000000000000``,
``--set vm.background_interval=1e-12``) would otherwise start, grow in memory and run
until killed. So every command that simulates counts the events its runs would take
(``command_events``) and refuses, in one line and before any run starts, more than
``MAX_EVENTS``, blaming the key furthest beyond its usual value among those that make the
work large (``vsim.build.blame``), with where each of those values came from. The
results the runs leave in memory until the command ends are checked against the memory
available too; the peak of one run is ``vsim.build.memory``'s.

The estimate is an upper bound on the event engine's events (the closed form of
``vsim.engines.closed_form`` does less), counted with ``Environment.step`` over a few
seconds of fig3.toml's host (Python scheduler, 2026-12):

``EVENTS_PER_TICK``
    each worker vCPU's 20 ms tick: its timer, its CPU work and what it hands the vNIC;
    4.3 events a tick at one VM, 6.1 at 12 VMs contending, taken as 8.
``EVENTS_PER_FRAME``
    each stream's frames, which ride on their vCPU's tick but cost the uplink and the
    closed form per frame: a vCPU's ticks cost as much as 33 streams' frames
    (``vsim.sweep.executor.STREAMS_PER_VCPU_COST``), 0.18 events' worth a frame, taken as 0.25.
``EVENTS_PER_BURST``
    each guest background burst: 1.2 measured (1000 bursts a second against none), taken as 2.
``EVENTS_PER_TASK_SECOND``
    each always-runnable task (a host background task, a CPU-bound VM's vCPU): 100 000
    host tasks took 15 s of wall time per simulated second, some 45 events' worth a task
    each second at the engine's speed, taken as 50.
``EVENTS_PER_FLOOD_VM_SECOND``, ``EVENTS_PER_TCP_VM_SECOND``
    a VM sending bulk traffic, from its wall time against a vCPU's
    (``vsim.sweep.executor.FLOOD_VM_COST``, ``TCP_VM_COST``), rounded up.
``EVENTS_PER_REPLICATION``
    loading the scenario and building its host, 13 ms at 12 VMs: some 4000 events' worth,
    taken as 10 000.
``EVENTS_PER_CALL``
    each SIP call a SIP server answers: 50 000 calls (250 calls/s for 200 s) took 2 s of wall
    time, some 12 events' worth a call at the engine's speed, taken as 30 (retransmissions and
    collections come on top under overload).
``EVENTS_PER_ACK``
    each delayed ACK's burst of a TCP receiver's segments at the wire's goodput: its arrival,
    Dom0's and the guest's work and the ACK's return, some 7 events and their CPU
    placements, taken as 12; a disk benchmark's request (the guest's, Dom0's and the disk's
    work) is counted alike.
"""

from vsim.build.blame import Factor, Term, blamed_factor, scaled_to_fit
from vsim.build.memory import available_bytes, gib, sip_call_rate
from vsim.config.schema_sections import RunSection, VmSection
from vsim.core.errors import InputError

MAX_EVENTS = 1e11  # events of a whole command: about four days of one core
EVENTS_PER_WALL_SECOND = 3e5  # the event engine's speed, Python scheduler, 12 VMs contending
EVENTS_PER_TICK = 8.0
EVENTS_PER_FRAME = 0.25
EVENTS_PER_BURST = 2.0
EVENTS_PER_TASK_SECOND = 50.0
EVENTS_PER_FLOOD_VM_SECOND = 5000.0
EVENTS_PER_TCP_VM_SECOND = 1000.0
EVENTS_PER_REPLICATION = 1e4
EVENTS_PER_CALL = 30.0
EVENTS_PER_ACK = 12.0
RESULT_BYTES = 64 * 1024  # a replication's summary and task, kept until the command ends

_RUN = RunSection()
_VM = VmSection()


def event_terms(loaded):
    """The ``Term``s of ``loaded``'s events per simulated second, each with the values it
    is the product of."""
    scenario, models = loaded.scenario, loaded.models
    vm = scenario.vm
    ticks = 1.0 / models["codec"].values.packet_interval
    terms = []
    if vm.instances:
        instances = _factor(loaded, "vm.instances", vm.instances, _VM.instances)
        burst, interval = vm.background(models["workload"].values)
        terms += [Term("worker vCPU ticks", EVENTS_PER_TICK * ticks * vm.instances * vm.vcpus,
                       (instances, _factor(loaded, "vm.vcpus", vm.vcpus, _VM.vcpus))),
                  Term("frames", EVENTS_PER_FRAME * ticks * vm.instances * vm.streams_per_instance,
                       (instances, _factor(loaded, "vm.streams_per_instance", vm.streams_per_instance,
                                           _VM.streams_per_instance)))]
        if burst > 0:
            usual = models["workload"].values.background_interval
            terms.append(Term("guest background bursts", EVENTS_PER_BURST * vm.instances / interval,
                              (instances, _factor(loaded, "vm.background_interval", interval, usual,
                                                  inverse=True))))
    for group in scenario.group:
        terms += _group_terms(loaded, group, ticks)
    tasks = scenario.host.background_tasks
    if tasks:
        terms.append(Term("host background tasks", EVENTS_PER_TASK_SECOND * tasks,
                          (_factor(loaded, "host.background_tasks", tasks, 0),)))
    return terms


def _group_terms(loaded, group, ticks):
    """The terms of one [[group]]'s VMs, by what they run."""
    key = f"group.{group.name}"
    count = _factor(loaded, f"{key}.count", group.count, 1)
    vcpus = _factor(loaded, f"{key}.vcpus", group.vcpus, 1)
    terms = []
    if group.workload == "media_server":
        workload = loaded.models[f"group.{group.name}.workload"].values
        terms += [Term(f"{key}'s worker vCPU ticks", EVENTS_PER_TICK * ticks * group.count * group.vcpus,
                       (count, vcpus)),
                  Term(f"{key}'s frames", EVENTS_PER_FRAME * ticks * group.count * group.streams,
                       (count, _factor(loaded, f"{key}.streams", group.streams, _VM.streams_per_instance)))]
        if workload.background_burst > 0:
            terms.append(Term(f"{key}'s guest background bursts",
                              EVENTS_PER_BURST * group.count / workload.background_interval, (count,)))
    elif group.workload == "cpu_bound":
        terms.append(Term(f"{key}'s CPU-bound vCPUs", (EVENTS_PER_TASK_SECOND + EVENTS_PER_BURST / group.cpu_burst)
                          * group.count * group.vcpus, (count, vcpus)))
    if group.workload == "tcp_receiver":
        model = loaded.models[f"group.{group.name}.workload"].values
        bursts = model.line_goodput_bps() / (8.0 * model.mss * model.segments_per_ack)
        terms.append(Term(f"{key}'s TCP segments", EVENTS_PER_ACK * bursts * group.count, (count,)))
    if group.workload == "disk_benchmark":
        model = loaded.models[f"group.{group.name}.workload"].values
        per_s = model.disk_rate / model.request_bytes  # at most: sequential requests back to back
        terms.append(Term(f"{key}'s disk requests", EVENTS_PER_ACK * per_s * group.count, (count,)))
    if group.workload == "sip_server":
        rate = sip_call_rate(group)
        terms.append(Term(f"{key}'s SIP calls", EVENTS_PER_CALL * rate * group.count,
                          (count, _factor(loaded, f"{key}.traffic.params.rate", rate, 100.0))))
    elif group.traffic is not None:
        per_vm = EVENTS_PER_FLOOD_VM_SECOND if group.traffic.kind == "udp_flood" else EVENTS_PER_TCP_VM_SECOND
        terms.append(Term(f"{key}'s traffic", per_vm * group.count, (count,)))
    return terms


def _factor(loaded, key, value, usual, inverse=False):
    return Factor(key, value, usual, loaded.origin(key), inverse, "s" if inverse else "")


def run_events(loaded, duration):
    """The events of one replication of ``loaded`` lasting ``duration`` s, its setup included."""
    return EVENTS_PER_REPLICATION + duration * sum(term.rate for term in event_terms(loaded))


def command_events(runs, replications):
    """The events of ``replications`` replications (one count for all, or one per run) of
    each of ``runs`` ((source, loaded, duration, ...), as ``vsim.build.memory.check_memory``
    takes them)."""
    return sum(count * run_events(run[1], run[2]) for run, count in zip(runs, _per_run(runs, replications)))


def _per_run(runs, replications):
    return [replications] * len(runs) if isinstance(replications, int) else list(replications)


def check_work(runs, replications, duration_key="run.duration", replications_key="run.replications",
               available=None):
    """Refuse, before anything runs, ``replications`` (one count for all, or one per run) of
    each of ``runs`` when their events exceed ``MAX_EVENTS`` or their results the
    ``available`` memory (default: ``MemAvailable``; without it that part is not checked).
    ``duration_key`` and ``replications_key`` say where the run's length and the
    replications were set (a ``--duration`` or ``--replications`` flag, else the config's
    keys; None for ``vsim run``'s one replication)."""
    if not runs:
        return
    counts = _per_run(runs, replications)
    events = command_events(runs, counts)
    if events > MAX_EVENTS:
        _refuse_events(runs, counts, events, duration_key, replications_key)
    available = available_bytes() if available is None else available
    kept = sum(counts) * RESULT_BYTES
    if available is not None and kept > available and replications_key is not None:
        source, loaded = runs[0][0], runs[0][1]
        most = max(1, int(available // (len(runs) * RESULT_BYTES)))
        raise InputError(source, replications_key, f"{sum(counts):.3g} replications "
                         f"({_replications(loaded, max(counts), replications_key).text()} at each of "
                         f"{len(runs)} point{'s' * (len(runs) != 1)}) keep about {gib(kept)} of results "
                         f"until the command ends (estimated), but only {gib(available)} is available "
                         f"(MemAvailable); expected at most {most} replications")


def _refuse_events(runs, counts, events, duration_key, replications_key):
    """The one-line refusal of work beyond ``MAX_EVENTS``, at the key to change."""
    (source, loaded, duration, *_), replications = max(
        zip(runs, counts), key=lambda entry: entry[1] * run_events(entry[0][1], entry[0][2]))
    terms = event_terms(loaded)
    largest = max(terms, key=lambda term: term.rate, default=Term("setting up", 0.0, ()))
    length = Factor(duration_key, duration, _RUN.duration,
                    "the command line" if duration_key.startswith("--") else loaded.origin("run.duration"), unit="s")
    count = None if replications_key is None else _replications(loaded, replications, replications_key)
    blamed = blamed_factor(largest.factors + (length,) + ((count,) if count else ()))
    if blamed is count:
        share = events
    elif blamed is length:
        share = events - sum(counts) * EVENTS_PER_REPLICATION
    else:
        share = sum(n * run[2] * term.rate for run, n in zip(runs, counts) for term in event_terms(run[1])
                    if blamed.key in {factor.key for factor in term.factors})
    days = MAX_EVENTS / EVENTS_PER_WALL_SECOND / 86400
    over = length.text() + ("" if count is None else f" and {count.text()}")
    raise InputError(source, blamed.key, f"the runs would take about {events:.2g} events (estimated), "
                     f"more than the {MAX_EVENTS:.0e} a command may take (some {days:.0f} days of one "
                     f"core); most are {largest.what}, at {largest.rate:.3g} events per simulated second "
                     f"from {', '.join(factor.text() for factor in largest.factors) or 'no key'}, over "
                     f"{over}; expected {scaled_to_fit(blamed, events - share, share, MAX_EVENTS)}")


def _replications(loaded, replications, replications_key):
    origin = "the command line" if replications_key.startswith("--") else loaded.origin("run.replications")
    return Factor(replications_key, replications, _RUN.replications, origin)
