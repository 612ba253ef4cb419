"""A simulation's measured packets, guest timer wakeups or worker ticks as a vsim trace (``vsim run --trace``).

The ``packets`` trace holds what the first VM's receiver (the measuring
client, when the scenario has a measuring conference) recorded: one row per
packet of each of its streams, in stream then send order. A stream is named
like an RTP SSRC (``0x00000000`` for stream 0); the class is ``voice``; the
sequence number counts the stream's packets from 0; the RTP timestamp is the
send time (the tick's nominal boundary) in 8000 Hz units, the G.729 clock;
the size is the Ethernet frame the simulation counts (78 B for G.729). Lost
packets keep their row with no arrival time.

The ``timer`` trace holds every worker thread's wakeups (threads numbered
VM by VM, vCPU by vCPU): when each 20 ms tick was due and how late the guest
timer fired for it, the lateness the model draws for the timer interrupt's
delivery and the guest's wakeup path. Waiting for a logical CPU after the
wakeup is not part of it (the model has that as the vCPU's ready time), so
it compares with a periodic probe thread on a host that is not contended.
The simulation must keep the wakeups (``Simulation.record_wakeups`` before
``run``).

The ``cpu_ticks`` trace holds every worker's finished ticks, VM by VM:
when each was due, when its work first got a logical CPU (timer lateness
plus the wait for a CPU, or the end of the work queued before it) and when
it was done; ticks still unfinished at the end of the run are left out, as
the CPU probe leaves out ticks it has not finished. The simulation must keep
the ticks (``Simulation.record_ticks`` before ``run``).

The ``sipp_rtt`` trace is SIPp's own ``-trace_rtt`` file of the first SIP
server's client: one row per call started after the warm-up and answered,
when its 200 arrived (ms since the run began, as SIPp counts from its start)
and its response time (first INVITE sent to the 200), so the real SIPp's files
and a simulated one are read by the same reader (``vsim.traces.sipp_rtt``).

The header records the scenario, seed, run length and warm-up (``#
warmup_s:``), so that ``vsim.traces.trace_metrics`` drops the warm-up as
the simulation's own summary does.
"""

import numpy as np

from vsim.net.frames import frame_bytes
from vsim.outputs.atomic import write_text
from vsim.traces.sipp_rtt import format_sipp_rtt, parse_sipp_rtt, rtt_trace
from vsim.traces.vsim_trace import Trace, write_trace
from vsim.results.finished_run import FinishedRun

CLOCK_RATE_HZ = 8000
TRAFFIC_CLASS = "voice"


def packets_trace(sim: FinishedRun, meta):
    """The ``packets`` trace of ``sim``'s first receiver after ``sim.run``; ``meta`` goes into its header."""
    if sim.client is None:
        raise ValueError("expected a media-server VM: a packets trace is its receiver's")
    stream, send, arrival = sim.client.arrays()
    starts = np.searchsorted(stream, stream, side="left")
    columns = {
        "stream": [f"0x{int(s):08X}" for s in stream],
        "class": [TRAFFIC_CLASS] * stream.size,
        "seq": np.arange(stream.size, dtype=np.int64) - starts,
        "rtp_timestamp": np.rint(send * CLOCK_RATE_HZ).astype(np.int64),
        "send_s": send,
        "arrival_s": arrival,
        "size_bytes": np.full(stream.size, int(frame_bytes(sim.ip_bytes)), dtype=np.int64),
    }
    monitored = "measuring conference" if sim.measuring else "last load conference"
    header = {"source": "vsim simulation", "receiver": f"{sim.vms[0].name} {monitored}",
              "clock_rate_hz": CLOCK_RATE_HZ}
    return Trace("packets", {key: str(value) for key, value in {**header, **meta}.items()}, columns)


def timer_trace(sim: FinishedRun, meta):
    """The ``timer`` trace of ``sim``'s worker wakeups after ``sim.run``; ``meta`` goes into its header."""
    workers = [worker for server in sim.servers for worker in server.workers]
    wakes = []
    for worker in workers:
        if worker.wakes is None:
            raise ValueError("the simulation did not keep its wakeups: call record_wakeups() before run()")
        wakes.append(worker.wakes)
    period = sim.servers[0].rtp_interval
    thread, tick, scheduled, lateness = [], [], [], []
    for index, (worker, pairs) in enumerate(zip(workers, wakes)):
        ticks = np.array([t for t, _ in pairs], dtype=np.int64)
        due = worker.phase + ticks * period
        thread.append(np.full(ticks.size, index, dtype=np.int64))
        tick.append(ticks)
        scheduled.append(due)
        lateness.append(np.array([when for _, when in pairs], dtype=np.float64) - due)
    columns = {"thread": np.concatenate(thread), "tick": np.concatenate(tick),
               "scheduled_s": np.concatenate(scheduled), "lateness_s": np.concatenate(lateness)}
    header = {"source": "vsim simulation", "threads": "every VM's worker vCPUs, VM by VM",
              "period_s": period}
    return Trace("timer", {key: str(value) for key, value in {**header, **meta}.items()}, columns)


def cpu_ticks_trace(sim: FinishedRun, meta):
    """The ``cpu_ticks`` trace of ``sim``'s worker ticks after ``sim.run``; ``meta`` goes into its header."""
    workers = [(server.workers[0].world.group.name, index, worker)
               for server in sim.servers for index, worker in enumerate(server.workers)]
    if any(worker.ticks is None for _, _, worker in workers):
        raise ValueError("the simulation did not keep its ticks: call record_ticks() before run()")
    period = sim.servers[0].rtp_interval
    vm, number, tick, scheduled, start, end = [], [], [], [], [], []
    for name, index, worker in workers:
        rows = np.array(worker.ticks, dtype=float).reshape(-1, 3)
        ticks = rows[:, 0].astype(np.int64)
        vm.extend([name] * ticks.size)
        number.append(np.full(ticks.size, index, dtype=np.int64))
        tick.append(ticks)
        scheduled.append(worker.phase + ticks * period)
        start.append(rows[:, 1])
        end.append(rows[:, 2])
    columns = {"vm": vm, "worker": np.concatenate(number), "tick": np.concatenate(tick),
               "scheduled_s": np.concatenate(scheduled), "start_s": np.concatenate(start),
               "end_s": np.concatenate(end)}
    header = {"source": "vsim simulation", "workers": "each VM's worker vCPUs, numbered within the VM",
              "period_s": period}
    return Trace("cpu_ticks", {key: str(value) for key, value in {**header, **meta}.items()}, columns)


def sipp_rtt_trace(sim: FinishedRun, meta):
    """The ``sipp_rtt`` trace of ``sim``'s first SIP server's client: its ``-trace_rtt`` text (calls
    started after the header's ``warmup_s``) read back by SIPp's reader, as a measured file is."""
    header = {key: str(value) for key, value in meta.items()}
    text = sipp_rtt_text(sim, float(meta["warmup_s"]))
    if text.count("\n") == 1:  # the header alone: no call answered
        return Trace("sipp_rtt", header, {"date_s": np.zeros(0), "response_time_ms": np.zeros(0)})
    return rtt_trace(parse_sipp_rtt(text, "the simulated -trace_rtt"), header)


TRACES = {"packets": packets_trace, "timer": timer_trace, "cpu_ticks": cpu_ticks_trace,
          "sipp_rtt": sipp_rtt_trace}


def simulation_trace(kind, sim: FinishedRun, meta):
    """``sim``'s trace of ``kind`` (one of ``TRACES``) after ``sim.run``."""
    return TRACES[kind](sim, meta)


def run_meta(scenario, config, seed, duration, warmup, engine):
    """Header lines of a simulated trace: what was run, so it can be run again."""
    return {"scenario": scenario.name, "config": config, "seed": seed, "duration_s": duration,
            "warmup_s": warmup, "engine": engine}


def sipp_rtt_text(sim: FinishedRun, warmup):
    """The first SIP server's client's response times after ``warmup`` as SIPp's -trace_rtt text."""
    answered = [(call.answered, call.answered - call.invited) for call in sim.sip[0].calls.calls
                if call.invited >= warmup and call.answered is not None]
    return format_sipp_rtt([1e3 * at for at, _ in answered], [1e3 * after for _, after in answered])


def write_simulation_trace(path, sim, meta, kind="packets"):
    """Write ``sim``'s trace of ``kind`` to ``path`` atomically; ``InputError`` when it cannot be written."""
    if kind == "sipp_rtt":
        write_text(path, sipp_rtt_text(sim, meta["warmup_s"]))
        return
    trace = simulation_trace(kind, sim, meta)
    write_trace(path, trace.kind, trace.columns, trace.meta)
