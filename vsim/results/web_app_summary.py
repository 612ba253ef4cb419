"""The run summary's web application section: the users' operations and each tier's CPU.

Kept in a module of its own so the summary's other sections do not depend on
it. Per web application (``vsim.guest.web_app.WebApp``) it reads the
operations that finished in the window: how many and how many a second (the
throughput X of the interactive response-time law, R = N/X - Z), their
response time (first request sent to last response received, as Olio
reports it) as the mean and the 50th, 90th, 95th and 99th percentiles in ms,
the requests a second they made, the responses that lost a frame and waited
for a retransmission, and the web and database VMs' CPU.
"""

from typing import Sequence

import numpy as np

from vsim.core.units import to_ms
from vsim.results.run_summary_types import VmCpu, WebApp, WebTier

WEB_APP_DEFINITION = ("operations that finished in the window; response_time: an operation's "
                      "first request sent to its last response received (Olio's); "
                      "requests_per_s: those operations' HTTP requests a second; "
                      "retransmissions: responses over the whole run that lost a frame and waited "
                      "for TCP's retransmission timeout; cpu: % of one vCPU, summed; "
                      "cpu_util_pct: % of all the VM's vCPUs")

PERCENTILES = (50, 90, 95, 99)


def response_ms(times: Sequence[float]) -> tuple:
    """Mean and ``PERCENTILES`` of ``times`` (s), in ms; Nones without any."""
    if not len(times):
        return (None,) * (1 + len(PERCENTILES))
    values = np.asarray(times, dtype=float)
    return (float(to_ms(values.mean())),
            *(float(to_ms(p)) for p in np.percentile(values, PERCENTILES)))


def web_app(app, web_cpu: VmCpu, db_cpu: VmCpu, first: float, last: float) -> WebApp:
    """The section of ``app`` for operations finished in [first, last); ``web_cpu`` and
    ``db_cpu`` are its VMs' CPU over that window (``vsim.results.run_summary.vm_cpu``)."""
    times = app.finished_between(first, last)
    window = last - first
    mean, p50, p90, p95, p99 = response_ms(times)
    vcpus = len(app.web_vm.worlds), len(app.db_vm.worlds)
    return WebApp(
        group=app.group, users=app.users.users, think_time_s=app.users.think_time,
        operations=int(times.size), operations_per_s=times.size / window,
        requests_per_s=times.size * app.model.requests_per_operation / window,
        response_time_mean_ms=mean, response_time_p50_ms=p50, response_time_p90_ms=p90,
        response_time_p95_ms=p95, response_time_p99_ms=p99,
        retransmissions=app.retransmissions,
        web=WebTier(group=app.group, cpu=web_cpu, cpu_util_pct=web_cpu.used_pct / vcpus[0]),
        database=WebTier(group=app.group, cpu=db_cpu, cpu_util_pct=db_cpu.used_pct / vcpus[1]),
        definition=WEB_APP_DEFINITION)
