"""A probe's period against its run: at least one period must fit, or the trace holds one sample
(or none) and a validation of it means nothing."""

from vsim.core.errors import InputError


def check_period(command, period, duration, what):
    """``InputError`` (naming ``--period`` of ``command``) for a ``period`` longer than the run's
    ``duration``; ``what`` says what each period makes (``every stream sends``)."""
    if period > duration:
        raise InputError(command, "--period", f"expected at most --duration ({duration:g} s), so that "
                                              f"{what} within the run, got {period:g} s")
