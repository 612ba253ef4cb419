"""The run summary's SIP section: SIPp's call counters and the server's view over a window.

Kept in a module of its own so the summary's other sections do not depend on
it. It reads the client's calls (``vsim.net.sources.sipp_uac.UacCalls``) and
the server (``vsim.guest.sip_server.SipServer``): calls attempted,
successful and failed per second (of the calls started in the window),
retransmissions, the response time (first INVITE sent to the 200 received,
SIPp's ResponseTime1) and the INVITE → ACK time (first INVITE sent to the
ACK reaching the server), each as p50 and p95 in ms, the messages the
server's full queue dropped, its collector's pauses and its vCPUs' CPU.
"""

from typing import Any, Dict, Sequence

import numpy as np

from vsim.core.units import to_ms


def percentiles_ms(seconds: Sequence[float]) -> Dict[str, float]:
    """p50 and p95 of ``seconds``, in ms (NaN without samples)."""
    if not len(seconds):
        return {"p50_ms": float("nan"), "p95_ms": float("nan")}
    p50, p95 = np.percentile(np.asarray(seconds, dtype=float), [50, 95])
    return {"p50_ms": float(to_ms(p50)), "p95_ms": float(to_ms(p95))}


def sip_section(calls, server, first: float, last: float, cpu_used_pct: float) -> Dict[str, Any]:
    """The SIP section for calls started in [first, last); ``cpu_used_pct`` is the server VM's
    CPU over the window (``vsim.results.run_summary.worlds_cpu``'s ``used_pct``)."""
    window = last - first
    started = calls.started_between(first, last)
    failed = [c for c in started if c.failed]
    successful = [c for c in started if c.finished is not None and not c.failed]
    answered = [c.answered - c.invited for c in started if c.answered is not None]
    acked = [after for invited, after in server.acked_after if first <= invited < last]
    pauses = [end - begin for begin, end in server.pauses if first <= begin < last]
    return {
        "calls_attempted_per_s": len(started) / window,
        "calls_successful_per_s": len(successful) / window,
        "calls_failed_per_s": len(failed) / window,
        "retransmissions": calls.retransmissions,
        "response_time": percentiles_ms(answered),
        "invite_to_ack": percentiles_ms(acked),
        "queue_dropped": server.dropped,
        "gc_pauses": len(pauses),
        "gc_pause_max_ms": float(to_ms(max(pauses))) if pauses else 0.0,
        "server_cpu_used_pct": cpu_used_pct,
        "definition": "calls started in the window; response_time: first INVITE sent to its 200 "
                      "received (SIPp's ResponseTime1); invite_to_ack: first INVITE sent to the "
                      "ACK reaching the server; server_cpu_used_pct: % of one vCPU, summed",
    }
