"""The run summary's SIP section: SIPp's call counters and the server's view over a window.

Kept in a module of its own so the summary's other sections do not depend on
it. Per SIP server VM (``vsim.guest.sip_service.SipService``) it reads the
client's calls and the server: calls attempted, successful, failed and
unfinished per second (of the calls started in the window; unfinished: still
waiting on SIPp's timers when the run ended, which an overloaded server's
calls do for up to Timer B's 32 s), the failed share of those that ended, retransmissions, the response time (first INVITE sent to the 200
received, SIPp's ResponseTime1) and the setup time (first INVITE sent to the
server's handling of its ACK, the time the sip-jvm-gc study's requirement bounds),
each as p50 and p95 in ms, the messages the server's full queue dropped, its
collector's pauses, and its vCPUs' CPU.
"""

from typing import Optional, Sequence

import numpy as np

from vsim.core.units import to_ms
from vsim.results.run_summary_types import SipVm, VmCpu

SIP_DEFINITION = ("calls started in the window; unfinished: neither successful nor failed when "
                  "the run ended; failed_fraction: failed calls over those that "
                  "ended (succeeded or failed); response_time: first INVITE sent to its 200 "
                  "received (SIPp's ResponseTime1); setup: first INVITE sent to the server's "
                  "handling of its ACK; retransmissions: the INVITEs and BYEs of those calls sent again; "
                  "queue_dropped: messages the full receive queue dropped over the whole run; "
                  "cpu: % of one vCPU, summed; cpu_util_pct: % of all its vCPUs; "
                  "gc_paused_pct: % of the window the server's threads were stopped")


def percentiles_ms(seconds: Sequence[float]) -> tuple[Optional[float], Optional[float]]:
    """p50 and p95 of ``seconds``, in ms (None without samples)."""
    if not len(seconds):
        return None, None
    p50, p95 = np.percentile(np.asarray(seconds, dtype=float), [50, 95])
    return float(to_ms(p50)), float(to_ms(p95))


def sip_vm(service, group: str, cpu: VmCpu, vcpus: int, first: float, last: float) -> SipVm:
    """The SIP section of ``service`` for calls started in [first, last); ``cpu`` is its VM's
    CPU over that window (``vsim.results.run_summary.vm_cpu``) on ``vcpus`` vCPUs."""
    calls, server = service.calls, service.server
    window = last - first
    started = calls.started_between(first, last)
    failed = sum(1 for call in started if call.failed)
    successful = sum(1 for call in started if call.finished is not None and not call.failed)
    response = percentiles_ms([c.answered - c.invited for c in started if c.answered is not None])
    setup = percentiles_ms([after for invited, after in server.acked_after if first <= invited < last])
    pauses = [(max(begin, first), min(end, last)) for begin, end in server.pauses
              if begin < last and end > first]
    lengths = [end - begin for begin, end in server.pauses if first <= begin < last]
    return SipVm(
        group=group, cpu=cpu, cpu_util_pct=cpu.used_pct / vcpus,
        calls_attempted_per_s=len(started) / window,
        calls_successful_per_s=successful / window,
        calls_failed_per_s=failed / window,
        calls_unfinished_per_s=(len(started) - successful - failed) / window,
        failed_fraction=failed / (failed + successful) if failed + successful else None,
        retransmissions=sum(call.retransmits for call in started),
        response_time_p50_ms=response[0], response_time_p95_ms=response[1],
        setup_p50_ms=setup[0], setup_p95_ms=setup[1],
        queue_dropped=server.dropped,
        gc_pauses=len(lengths),
        gc_pause_max_ms=float(to_ms(max(lengths))) if lengths else 0.0,
        gc_paused_pct=100 * sum(end - begin for begin, end in pauses) / window,
        definition=SIP_DEFINITION)
