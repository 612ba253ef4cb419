"""What a vNIC tells the recorder of its monitored frames, as a compiled base class.

A vNIC's transmit path (``vsim.net.vnic_tx``) reports a monitored conference's frames as
they are posted, lost at its ring and leave the uplink. The recorder that keeps them
(``vsim.guest.measuring_client.MeasuringClient``) derives from ``FrameRecorder``, so the
compiled vNIC calls it natively; through a protocol each report would be a Python call
of an interpreted method, several an event of a monitored stream. Any other object with
the same four methods (a test's stand-in) is told through ``ForwardedRecorder``, which
passes each report on (``recorder_of``), as ``vsim.cpu.policies.calls`` does for policies.
"""

from typing import Any


class FrameRecorder:
    """The four reports of a monitored post, in the order a vNIC makes them."""

    def sent(self, tick: Any, send_time: float, count: int) -> None:
        """``count`` monitored streams of ``tick`` (RTP time ``send_time``) were posted."""
        raise NotImplementedError

    def lost(self, tick: Any, first_lost: int, count: int) -> None:
        """Streams ``first_lost``.. of the post of ``tick`` just sent never left the host."""
        raise NotImplementedError

    def departed(self, tick: Any, first_departure: float, spacing: float, accepted: int,
                 count: int) -> None:
        """The ``count`` streams of the oldest post of ``tick`` left a FIFO uplink evenly spaced,
        from ``first_departure``, ``spacing`` apart; those from ``accepted`` on were dropped."""
        raise NotImplementedError

    def departed_frames(self, tick: Any, departures: Any) -> None:
        """The streams of the oldest post of ``tick`` left the uplink at ``departures`` (NaN:
        dropped there)."""
        raise NotImplementedError


class ForwardedRecorder(FrameRecorder):
    """The reports to a recorder that does not derive from ``FrameRecorder``, passed on."""

    def __init__(self, recorder: Any) -> None:
        self.recorder = recorder

    def sent(self, tick: Any, send_time: float, count: int) -> None:
        self.recorder.sent(tick, send_time, count)

    def lost(self, tick: Any, first_lost: int, count: int) -> None:
        self.recorder.lost(tick, first_lost, count)

    def departed(self, tick: Any, first_departure: float, spacing: float, accepted: int,
                 count: int) -> None:
        self.recorder.departed(tick, first_departure, spacing, accepted, count)

    def departed_frames(self, tick: Any, departures: Any) -> None:
        self.recorder.departed_frames(tick, departures)


def recorder_of(recorder: Any) -> FrameRecorder:
    """``recorder`` itself if it is a ``FrameRecorder``, else its reports passed on."""
    return recorder if isinstance(recorder, FrameRecorder) else ForwardedRecorder(recorder)
