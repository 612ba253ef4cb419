"""A log-normal fitted to a measured timer trace's lateness: the guest timer model's two parameters.

The workload model draws each wakeup's lateness from a log-normal
(``vsim.guest.timer``) with a median and a shape sigma. Fitted by maximum
likelihood to a trace's positive lateness samples, the median is the
exponential of the mean of their logarithms and sigma their standard
deviation. ``python -m vsim.validate.lognormal_fit TRACE`` prints both for a
vsim ``timer`` trace (``vsim probe timer``), the numbers that go into a
workload model with the trace named as their source.
"""

import argparse

import numpy as np

from vsim.core.errors import InputError
from vsim.traces.vsim_trace import read_trace


def fit_lognormal(samples):
    """(median, sigma) of the maximum-likelihood log-normal of the positive ``samples``."""
    values = np.asarray(samples, dtype=float)
    logs = np.log(values[values > 0])
    if logs.size < 2:
        raise ValueError("expected at least two positive samples")
    return float(np.exp(logs.mean())), float(logs.std())


def fit_timer_trace(path):
    """(median s, sigma, samples used) of the lateness of the ``timer`` trace at ``path``."""
    trace = read_trace(path)
    if trace.kind != "timer":
        raise InputError(path, "kind", f"expected a timer trace, found {trace.kind}")
    lateness = trace.columns["lateness_s"]
    try:
        median, sigma = fit_lognormal(lateness)
    except ValueError as exc:
        raise InputError(path, "lateness_s", str(exc)) from None
    return median, sigma, int(np.count_nonzero(lateness > 0))


def main(argv=None):
    """``python -m vsim.validate.lognormal_fit TRACE``: print the fitted median and sigma."""
    parser = argparse.ArgumentParser(prog="python -m vsim.validate.lognormal_fit",
                                     description="log-normal timer lateness of a measured timer trace")
    parser.add_argument("trace")
    args = parser.parse_args(argv)
    median, sigma, used = fit_timer_trace(args.trace)
    print(f"timer_median = {median:.3e}  # s\ntimer_sigma = {sigma:.3f}\n# from {used} wakeups of {args.trace}")


if __name__ == "__main__":
    main()
