"""Metric samples of a vsim trace: the one definition used for measured and simulated traces.

``vsim validate`` compares distributions, so both sides must be reduced to
samples by the same code; a measured capture is first turned into a
``packets`` trace (``vsim.traces.capture_packets``), a simulation exports
``packets`` and ``timer`` traces (``vsim.results.simulation_trace``), and
this module derives every metric from the trace alone.

Metrics per trace kind (``METRICS``), times in ms:

* ``packets`` (every stream, whatever its class; rows of lost packets have no
  arrival time):

  - ``jitter_ms``: RFC 3550 interarrival jitter the receiver holds after each
    received packet, per stream in arrival order, with S the packet's media
    time (``vsim.metrics.jitter``, the function the simulation's own summary
    uses);
  - ``transit_ms``: each received packet's transit time (arrival - media time)
    minus the smallest of its stream, so a constant offset between the clocks
    of sender and receiver drops out;
  - ``interarrival_ms``: the gap between consecutive arrivals of a stream;
  - ``loss_fraction``: per stream, the share of the sequence numbers from its
    first to its last that never arrived.

* ``timer``: ``lateness_ms``, how late each wakeup came.
* ``sipp_rtt`` (SIPp's ``-trace_rtt`` file, measured or written by a simulated
  client, as ``vsim.traces.sipp_rtt.rtt_trace`` makes it a trace):
  ``response_time_ms``, each call's response time as SIPp measured it (the
  built-in ``uac`` scenario's: first INVITE sent to its 200 received), timed
  by when it was measured.
* ``cpu_ticks``: ``tick_start_lateness_ms`` (start - scheduled),
  ``tick_duration_ms`` (end - start) and ``overrun_fraction``, per worker the
  share of its ticks that ended after the next tick was due (the period is
  the trace's ``# period_s:`` or else the median gap between its ticks).

A packet's media time is what a receiver knows of when it was due: its RTP
timestamp over the trace's ``# clock_rate_hz:`` (the advance since the
stream's first packet, anchored at that packet's send time), as RFC 3550
computes jitter; a trace without a clock rate, or a stream without RTP
timestamps (0 for non-RTP traffic), uses the send time. So a probe's trace,
which records when each packet actually left the sender (after the sender's
own lateness), and its capture, which knows only the RTP timestamps, give the
same jitter, and both measure what a simulation's trace measures (its send
times are the ticks' nominal boundaries).

A trace whose header says ``# warmup_s: W`` keeps only the samples of
packets sent (or ticks scheduled) at or after W; earlier packets still feed
each stream's running jitter, as they would in a receiver. Simulated traces
say so, measured ones normally do not; a trace without it keeps every sample
(a send time may be negative: the clocks of sender and receiver differ). A
warm-up that would drop every row is an ``InputError``, as is a ``#
period_s:`` that is not > 0.

Each metric's samples come in time order (a stable sort, so samples of the
same time keep the trace's order and the result is deterministic): a run of
consecutive samples is a stretch of time across all streams, threads or
workers, which is what the batch means of ``vsim.validate.distributions``
need. Untimed samples (one per stream or worker) keep the order of their
streams or workers.
"""

from dataclasses import dataclass

import numpy as np

from vsim.core.errors import InputError, excerpt
from vsim.metrics.jitter import rfc3550_jitter
from vsim.traces.wraparound import RTP_TIMESTAMP_MODULO, unwrap

_MS = 1e3


@dataclass(frozen=True)
class Metric:
    """One metric: the trace kind it comes from, its unit, what a sample is, whether samples have times."""

    kind: str
    unit: str
    doc: str
    timed: bool = True


METRICS = {
    "jitter_ms": Metric("packets", "ms", "RFC 3550 jitter after each received packet, per stream"),
    "transit_ms": Metric("packets", "ms", "arrival - media time (the RTP timestamp on the send "
                                          "clock; the send time without one) minus its stream's minimum"),
    "interarrival_ms": Metric("packets", "ms", "gap between consecutive arrivals of a stream"),
    "loss_fraction": Metric("packets", "", "share of a stream's sequence numbers never received",
                            timed=False),
    "lateness_ms": Metric("timer", "ms", "how late a periodic thread woke"),
    "response_time_ms": Metric("sipp_rtt", "ms", "SIPp's response time of a call (-trace_rtt: the built-in "
                                                 "uac scenario's first INVITE sent to its 200)"),
    "tick_start_lateness_ms": Metric("cpu_ticks", "ms", "when a tick's work started, after it was due"),
    "tick_duration_ms": Metric("cpu_ticks", "ms", "how long a tick's work took"),
    "overrun_fraction": Metric("cpu_ticks", "", "per worker, share of ticks ending after the next was due",
                               timed=False),
}


@dataclass(frozen=True)
class Samples:
    """A metric's samples, with the time (s) of each, or None for untimed metrics."""

    values: np.ndarray
    times: np.ndarray | None

    def in_time_order(self):
        """The samples sorted by time (stable: ties keep their order); untimed samples unchanged."""
        if self.times is None:
            return self
        order = np.argsort(self.times, kind="stable")
        return Samples(self.values[order], self.times[order])


_ROW_TIMES = {"packets": "send_s", "timer": "scheduled_s", "cpu_ticks": "scheduled_s",
              "sipp_rtt": "date_s"}  # what a warm-up cuts


def metrics_of_kind(kind):
    """Names of the metrics a trace of ``kind`` gives, in ``METRICS`` order."""
    return [name for name, metric in METRICS.items() if metric.kind == kind]


def trace_samples(trace, source):
    """``{metric name: Samples}`` of a vsim ``Trace``, timed samples in time order; ``source`` names it
    in errors."""
    warmup = _warmup(trace, source)
    if trace.kind == "packets":
        clock_rate = _meta_number(trace, "clock_rate_hz", source, None, "a rate in Hz > 0", positive=True)
        samples = _packet_samples(trace.columns, warmup, clock_rate)
    elif trace.kind == "timer":
        samples = _timer_samples(trace.columns, warmup)
    elif trace.kind == "sipp_rtt":
        samples = _rtt_samples(trace.columns, warmup)
    else:
        period = _meta_number(trace, "period_s", source, None, "a period in seconds > 0", positive=True)
        samples = _tick_samples(trace.columns, warmup, period)
    return {name: metric_samples.in_time_order() for name, metric_samples in samples.items()}


def _warmup(trace, source):
    """The header's ``# warmup_s:`` (None without one); ``InputError`` when it drops every row, which
    would otherwise surface only as a metric without samples."""
    warmup = _meta_number(trace, "warmup_s", source, None, "a number of seconds >= 0")
    column = _ROW_TIMES[trace.kind]
    times = trace.columns[column]
    if warmup is not None and len(times) and not np.any(times >= warmup):
        raise InputError(source, "warmup_s", f"the trace's warmup_s ({warmup:g} s) drops all its rows; "
                                             f"expected a warm-up before its last {column} "
                                             f"({np.max(times):g} s)")
    return warmup


def _kept(times, warmup):
    """Which rows the warm-up keeps: those at or after it, or every row when there is none."""
    return np.ones(np.shape(times), dtype=bool) if warmup is None else times >= warmup


def _meta_number(trace, key, source, default, expected, positive=False):
    """The header's ``# key:`` as a finite number >= 0 (> 0 when ``positive``), or ``default``."""
    text = trace.meta.get(key)
    if text is None:
        return default
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not np.isfinite(value) or value < 0 or (positive and value == 0):
        raise InputError(source, key, f"expected '# {key}:' {expected}, got {excerpt(repr(text))}")
    return value


def _groups(keys):
    """Row indices of each distinct key, keys in sorted order (so the result is deterministic)."""
    codes, inverse = np.unique(np.asarray(keys, dtype=object).astype(str), return_inverse=True)
    order = np.argsort(inverse, kind="stable")
    bounds = np.searchsorted(inverse[order], np.arange(codes.size + 1))
    return [order[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


def _media_times(send, rtp_timestamps, clock_rate):
    """A stream's media times (s), rows in trace order: its RTP timestamps over ``clock_rate``
    (unwrapped, anchored at the first row's send time), or its send times when the trace gives no
    clock rate or the stream carries no timestamps (non-RTP traffic has 0)."""
    if clock_rate is None or not np.any(rtp_timestamps):
        return send
    advance = unwrap(rtp_timestamps, RTP_TIMESTAMP_MODULO)
    return send[0] + (advance - advance[0]) / clock_rate


def _packet_samples(columns, warmup, clock_rate):
    send, arrival, seq = columns["send_s"], columns["arrival_s"], columns["seq"]
    parts = {"jitter_ms": [], "transit_ms": [], "interarrival_ms": []}
    times = {name: [] for name in parts}
    losses = []
    for rows in _groups(columns["stream"]):
        media = _media_times(send[rows], columns["rtp_timestamp"][rows], clock_rate)
        received = np.flatnonzero(~np.isnan(arrival[rows]))
        received = received[np.argsort(arrival[rows][received], kind="stable")]
        s, m, r = send[rows][received], media[received], arrival[rows][received]
        kept = _kept(s, warmup)
        transit = r - m
        per_metric = {
            "jitter_ms": rfc3550_jitter(m, r),
            "transit_ms": transit - transit.min() if transit.size else transit,
            "interarrival_ms": np.diff(r, prepend=np.nan),
        }
        for name, values in per_metric.items():
            keep = kept & ~np.isnan(values)
            parts[name].append(values[keep] * _MS)
            times[name].append(r[keep])
        in_window = rows[_kept(send[rows], warmup)]
        if in_window.size:
            expected = int(seq[in_window].max() - seq[in_window].min() + 1)
            got = np.unique(seq[in_window][~np.isnan(arrival[in_window])]).size
            losses.append((expected - got) / expected)
    samples = {name: Samples(_concat(parts[name]), _concat(times[name])) for name in parts}
    samples["loss_fraction"] = Samples(np.asarray(losses, dtype=float), None)
    return samples


def _timer_samples(columns, warmup):
    kept = _kept(columns["scheduled_s"], warmup)
    return {"lateness_ms": Samples(columns["lateness_s"][kept] * _MS, columns["scheduled_s"][kept])}


def _rtt_samples(columns, warmup):
    kept = _kept(columns["date_s"], warmup)
    return {"response_time_ms": Samples(columns["response_time_ms"][kept], columns["date_s"][kept])}


def _tick_samples(columns, warmup, period):
    scheduled, start, end = columns["scheduled_s"], columns["start_s"], columns["end_s"]
    kept = _kept(scheduled, warmup)
    overruns = []
    for rows in _groups([f"{vm}\0{worker}" for vm, worker in zip(columns["vm"], columns["worker"])]):
        rows = rows[np.argsort(columns["tick"][rows], kind="stable")]
        worker_period = period
        if worker_period is None and rows.size >= 2:
            worker_period = float(np.median(np.diff(scheduled[rows])))
        rows = rows[kept[rows]]
        if worker_period is not None and rows.size:
            overruns.append(float(np.mean(end[rows] > scheduled[rows] + worker_period)))
    return {
        "tick_start_lateness_ms": Samples((start - scheduled)[kept] * _MS, scheduled[kept]),
        "tick_duration_ms": Samples((end - start)[kept] * _MS, scheduled[kept]),
        "overrun_fraction": Samples(np.asarray(overruns, dtype=float), None),
    }


def _concat(arrays):
    return np.concatenate(arrays) if arrays else np.zeros(0)
