"""The ``voice_quality`` part of a run's summary: jitter buffer, loss and E-model rating.

Every receiver (the measuring client, and the recorder of each VM's last
conference) plays its streams through the scenario's jitter buffer
(``vsim.metrics.jitter_buffer``, ``[client] jitter_buffer``), which runs from
the start of the run as a real receiver's would; the packets sent after the
warm-up are counted. Per stream of the measuring conference, and pooled over
the monitored conferences of each VM group ("vm" for [vm]'s VMs, then each
[[group]] of media servers), the section gives the packets lost in the
network, the packets the buffer discarded as late, their sum as the
effective loss (late packets are lost to the listener, RFC 3611's discard
rate) with its burst ratio, the mean one-way network delay, the mean time a
played packet waits in the buffer, the mouth-to-ear delay (the codec's
packet interval and look-ahead, then network and buffer) and the E-model's
R and MOS (``vsim.metrics.emodel``) from them, beside the RFC 3550 jitter.
A codec without E-model values gets no R or MOS. R is reported from the
floor of its scale, 0, where MOS is 1 (G.107 Annex B): a rating below it
(long delays with heavy loss give -200) says no more than 0 does, and a
receiver that played nothing has R 0 and MOS 1, with no mouth-to-ear delay.

An adaptive buffer's averages start from the first packet and settle over
their time constant, packet interval / (1 - smoothing) (10 s for Ramjee et
al.'s smoothing and 20 ms packets); a warm-up shorter than three time
constants leaves part of that start-up in the counted late packets, and the
section's ``note`` says so.
"""

from typing import NamedTuple

import numpy as np

from vsim.core.units import mean_ms, to_ms
from vsim.metrics import emodel
from vsim.metrics.jitter import stream_jitter_samples
from vsim.metrics.jitter_buffer import FixedBuffer, playout
from vsim.results.finished_run import FinishedRun
from vsim.results.run_summary_types import (Codec, JitterBuffer, MeasuringQuality, Quality,
                                            StreamQuality, VoiceQuality)

DEFINITION = ("each receiver's streams through its jitter buffer from the start of the run, "
              "packets sent after warm-up: effective loss = lost in the network + discarded as "
              "late; mouth-to-ear delay = packet interval + look-ahead + network delay + buffer "
              "delay (means over the played packets); R and MOS by the ITU-T G.107 E-model")


class StreamRecord(NamedTuple):
    """One stream's packets sent after warm-up, as its receiver's jitter buffer treated them."""

    stream: int
    lost: np.ndarray
    late: np.ndarray
    network_delay: np.ndarray
    playout_delay: np.ndarray
    buffer_delay: np.ndarray
    jitter: np.ndarray


def buffer_description(buffer, packet_interval):
    """The jitter buffer's kind and parameters, for the summary; an adaptive buffer's with the
    time constant of its averages at ``packet_interval``."""
    if isinstance(buffer, FixedBuffer):
        return JitterBuffer(kind="fixed", nominal_ms=to_ms(buffer.nominal))
    return JitterBuffer(kind="adaptive", algorithm="Ramjee et al. 1994, Algorithm 1",
                        smoothing=buffer.smoothing, variation_factor=buffer.variation_factor,
                        talkspurt_ms=to_ms(buffer.talkspurt),
                        time_constant_s=settling_time(buffer, packet_interval))


def settling_time(buffer, packet_interval):
    """The time constant of an adaptive buffer's averages, s: ``packet_interval / (1 - smoothing)``."""
    return packet_interval / (1 - buffer.smoothing)


def start_up_note(buffer, packet_interval, warmup):
    """A note when ``warmup`` is shorter than three time constants of an adaptive buffer, else None."""
    if isinstance(buffer, FixedBuffer):
        return None
    settling = settling_time(buffer, packet_interval)
    if warmup >= 3 * settling:
        return None
    return (f"the adaptive buffer's averages settle over {3 * settling:.3g} s (three time constants); "
            f"the warm-up of {warmup:g} s leaves part of its start-up in the late packets: "
            f"lengthen the run")


def stream_records(receiver, buffer, warmup):
    """Every stream of ``receiver`` through ``buffer``, counted from ``warmup`` on; none when
    the receiver recorded no packet (a tick longer than the run never sends one)."""
    streams, send, recv = receiver.arrays()  # sorted by stream, then send time
    if not streams.size:
        return []
    bounds = np.flatnonzero(np.diff(streams)) + 1
    records = []
    for begin, end in zip(np.concatenate(([0], bounds)), np.append(bounds, streams.size)):
        s, r = send[begin:end], recv[begin:end]
        result = playout(s, r, buffer)
        window = s >= warmup
        got = ~result.lost
        played = result.played & window
        records.append(StreamRecord(
            stream=int(streams[begin]), lost=result.lost[window], late=result.late[window],
            network_delay=result.network_delay[got & window],
            playout_delay=result.playout_delay[played],
            buffer_delay=result.buffer_delay[played],
            jitter=stream_jitter_samples(s[got], r[got], np.zeros(int(got.sum())), warmup)))
    return records


def quality_entry(records, codec):
    """Loss, delays, jitter and E-model rating of the pooled ``records``."""
    sent = sum(r.lost.size for r in records)
    lost = sum(int(np.count_nonzero(r.lost)) for r in records)
    late = sum(int(np.count_nonzero(r.late)) for r in records)
    network = _pooled(records, "network_delay")
    waiting = _pooled(records, "buffer_delay")
    playout_delay = _pooled(records, "playout_delay")
    jitter = _pooled(records, "jitter")
    effective = (lost + late) / sent if sent else None
    burst = emodel.burst_ratio([r.lost | r.late for r in records])
    mouth_to_ear = r_factor = score = None
    if playout_delay.size and codec.has_e_model():
        mouth_to_ear = to_ms(codec.packet_interval + codec.lookahead + float(playout_delay.mean()))
        r_factor = max(0.0, emodel.rating(mouth_to_ear, effective, codec.equipment_impairment,
                                          codec.loss_robustness, burst))
        score = emodel.mos(r_factor)
    elif sent and codec.has_e_model():
        r_factor, score = 0.0, emodel.mos(0.0)  # nothing played: the listener hears nothing
    return Quality(
        packets=sent,
        network_loss_fraction=lost / sent if sent else None,
        late_fraction=late / sent if sent else None,
        effective_loss_fraction=effective,
        burst_ratio=burst,
        one_way_delay_mean_ms=mean_ms(network),
        buffer_delay_mean_ms=mean_ms(waiting),
        mouth_to_ear_ms=mouth_to_ear,
        r_factor=r_factor,
        mos=score,
        jitter_mean_ms=mean_ms(jitter),
    )


def voice_quality_summary(sim: FinishedRun, warmup):
    """The ``voice_quality`` section of ``sim``'s summary (see the module docstring)."""
    codec = sim.codec
    per_receiver = [stream_records(receiver, sim.jitter_buffer, warmup)
                    for receiver in sim.receivers]
    groups: dict[str, list] = {}
    for group, records in zip(sim.receiver_groups, per_receiver):
        groups.setdefault(group, []).extend(records)
    measuring = None
    if sim.measuring:
        records = per_receiver[0]
        measuring = MeasuringQuality(
            quality=quality_entry(records, codec),
            streams=tuple(StreamQuality(stream=r.stream, quality=quality_entry([r], codec)) for r in records))
    return VoiceQuality(
        jitter_buffer=buffer_description(sim.jitter_buffer, codec.packet_interval),
        codec=Codec(equipment_impairment=codec.equipment_impairment,
                    loss_robustness=codec.loss_robustness,
                    lookahead_ms=None if codec.lookahead is None else to_ms(codec.lookahead)),
        measuring_conference=measuring,
        groups={group: quality_entry(records, codec) for group, records in groups.items()},
        definition=DEFINITION,
        note=start_up_note(sim.jitter_buffer, codec.packet_interval, warmup),
    )


def _pooled(records, name):
    arrays = [getattr(r, name) for r in records]
    return np.concatenate(arrays) if arrays else np.zeros(0)

