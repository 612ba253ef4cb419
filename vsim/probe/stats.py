"""Short summaries of measured samples (lateness, delay, jitter) for a probe's report and metadata."""

import numpy as np

from vsim.metrics.jitter import rfc3550_jitter


def summary_us(values_s):
    """'n=..., mean/p50/p99/max in µs' of samples in seconds, or 'n=0' when there are none."""
    values = np.asarray(values_s, dtype=float)
    values = values[np.isfinite(values)]
    if values.size == 0:
        return "n=0"
    p50, p99 = np.percentile(values, [50, 99])
    return (f"n={values.size} mean={1e6 * values.mean():.1f}us p50={1e6 * p50:.1f}us "
            f"p99={1e6 * p99:.1f}us max={1e6 * values.max():.1f}us")


def jitter_at_end(send_s, arrival_s, clock_hz=None, rtp_timestamps=None):
    """RFC 3550 interarrival jitter (s) after the last packet, over the packets that arrived, in order.

    The transit difference of consecutive packets uses the RTP timestamps
    (``clock_hz``) when given, else the send times; the recursion is
    ``vsim.metrics.jitter.rfc3550_jitter``'s. Fewer than two arrivals give 0.
    """
    arrival = np.asarray(arrival_s, dtype=float)
    sent = (np.asarray(rtp_timestamps, dtype=float) / clock_hz if rtp_timestamps is not None
            else np.asarray(send_s, dtype=float))
    arrived = np.isfinite(arrival)
    series = rfc3550_jitter(sent[arrived], arrival[arrived])
    return float(series[-1]) if series.size else 0.0
