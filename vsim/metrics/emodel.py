"""ITU-T G.107 E-model: transmission rating R and MOS of a narrowband voice path.

The E-model adds impairments on one scale, the rating factor R:

    R = Ro - Is - Id - Ie,eff + A

``Ro`` (basic signal-to-noise ratio) and ``Is`` (simultaneous impairments:
loudness, sidetone, quantisation) are taken at G.107's default values of
every loudness, noise and sidetone parameter, 94.77 and 1.41; the advantage
factor ``A`` is 0 (conventional wirebound). Two impairments depend on the
network and are computed here:

* ``Id``, the delay impairment, is G.107's sum of talker echo (``Idte``),
  listener echo (``Idle``) and absolute delay (``Idd``), at the default
  echo parameters (TELR 65 dB, WEPL 110 dB, RLR 2 dB, so that Roe = Ro) with
  the mean one-way delay T and the absolute delay Ta both the mouth-to-ear
  delay and the listener-echo loop Tr twice it. At zero delay only the
  listener echo is left (0.15), which gives G.107's best narrowband rating
  R = 93.2. Cole and Rosenbluth's straight-line fit of this sum,
  0.024 d + 0.11 (d - 177.3) H(d - 177.3), stays within a few R points of it
  up to 400 ms.
* ``Ie,eff``, the effective equipment impairment of a codec under packet
  loss: Ie + (95 - Ie) Ppl / (Ppl / BurstR + Bpl), with the codec's
  impairment ``Ie`` and packet-loss robustness ``Bpl`` (ITU-T G.113
  Appendix I), the loss ``Ppl`` in percent and ``BurstR`` the burst ratio.

R maps to a mean opinion score by G.107 Annex B. Times are in
milliseconds, as G.107 states them.
"""

import math

import numpy as np

BASIC_SNR = 94.77  # Ro at G.107's default values
SIMULTANEOUS_IMPAIRMENT = 1.41  # Is at G.107's default values
TALKER_ECHO_LOUDNESS = 65.0  # TELR, dB
WEIGHTED_ECHO_PATH_LOSS = 110.0  # WEPL, dB
ABSOLUTE_DELAY_KNEE = 100.0  # mT, ms: no absolute-delay impairment below it


def talker_echo_impairment(t_ms):
    """G.107 ``Idte``: the talker's echo, for mean one-way delay ``t_ms`` of the echo path.

    G.107's formula dips to -0.1 for T between 0 and about 4.5 ms (its -1
    term); no voice path here is that short, the codec alone adding 25 ms.
    """
    terv = (TALKER_ECHO_LOUDNESS - 40 * math.log10((1 + t_ms / 10) / (1 + t_ms / 150))
            + 6 * math.exp(-0.3 * t_ms ** 2))
    roe_minus_re = BASIC_SNR - (80 + 2.5 * (terv - 14))
    return ((roe_minus_re / 2 + math.sqrt(roe_minus_re ** 2 / 4 + 100) - 1)
            * (1 - math.exp(-t_ms)))


def listener_echo_impairment(tr_ms):
    """G.107 ``Idle``: the listener's echo, for round-trip delay ``tr_ms`` of its loop."""
    rle = 10.5 * (WEIGHTED_ECHO_PATH_LOSS + 7) * (tr_ms + 1) ** -0.25
    half = (BASIC_SNR - rle) / 2
    return half + math.sqrt(half ** 2 + 169)


def absolute_delay_impairment(ta_ms):
    """G.107 ``Idd``: conversational difficulty of a long absolute delay ``ta_ms``
    (zero up to 100 ms)."""
    if ta_ms <= ABSOLUTE_DELAY_KNEE:
        return 0.0
    x = math.log10(ta_ms / ABSOLUTE_DELAY_KNEE) / math.log10(2)
    return 25 * ((1 + x ** 6) ** (1 / 6) - 3 * (1 + (x / 3) ** 6) ** (1 / 6) + 2)


def delay_impairment(delay_ms):
    """G.107 ``Id`` for a mouth-to-ear delay ``delay_ms``: T = Ta = the delay, Tr = twice it."""
    if not delay_ms >= 0:
        raise ValueError(f"delay must be >= 0 ms, got {delay_ms}")
    return (talker_echo_impairment(delay_ms) + listener_echo_impairment(2 * delay_ms)
            + absolute_delay_impairment(delay_ms))


def effective_equipment_impairment(ie, bpl, loss_percent, burst_ratio=1.0):
    """G.107 ``Ie,eff`` of a codec (``ie``, ``bpl``) at ``loss_percent`` packet loss.

    ``burst_ratio`` is 1 for random loss and above 1 for bursty loss, which
    impairs more; G.107 defines no value below 1, so a more regular pattern
    than random counts as random.
    """
    if not 0 <= loss_percent <= 100:
        raise ValueError(f"loss must lie in [0, 100] %, got {loss_percent}")
    if not bpl > 0:
        raise ValueError(f"Bpl must be > 0, got {bpl}")
    burst = max(1.0, burst_ratio)
    return ie + (95 - ie) * loss_percent / (loss_percent / burst + bpl)


def rating(delay_ms, loss_fraction, ie, bpl, burst_ratio=1.0, advantage=0.0):
    """The rating factor R for mouth-to-ear ``delay_ms``, a ``loss_fraction`` (0..1)
    of the packets lost or discarded, and the codec's ``ie`` and ``bpl``."""
    return (BASIC_SNR - SIMULTANEOUS_IMPAIRMENT - delay_impairment(delay_ms)
            - effective_equipment_impairment(ie, bpl, 100 * loss_fraction, burst_ratio) + advantage)


def mos(r):
    """Mean opinion score (conversational quality, estimated) of a rating ``r``, G.107 Annex B.

    The cubic of Annex B dips to 0.99 for R below 6.5; the score is held at
    the scale's floor of 1 there, so it always lies in [1, 4.5].
    """
    if r <= 0:
        return 1.0
    if r >= 100:
        return 4.5
    return max(1.0, 1 + 0.035 * r + r * (r - 60) * (100 - r) * 7e-6)


def burst_ratio(lost_per_stream):
    """G.107's burst ratio of the loss patterns of one or more streams.

    ``lost_per_stream`` holds, per stream, whether each packet in sequence
    order was lost (or discarded). BurstR is the mean length of the observed
    runs of lost packets divided by the mean run length random loss at the
    same rate would give, 1 / (1 - p): 1 for random loss, above 1 when
    losses cluster. With no loss (or nothing but loss) it is 1.
    """
    runs, lost, packets = 0, 0, 0
    for flags in lost_per_stream:
        flags = np.asarray(flags, dtype=bool)
        runs += int(np.count_nonzero(flags[1:] & ~flags[:-1])) + int(flags[:1].sum())
        lost += int(np.count_nonzero(flags))
        packets += flags.size
    if lost == 0 or lost == packets:
        return 1.0
    return lost / runs * (1 - lost / packets)
