"""Speed and agreement of the fluid + packet uplink model on a voip-vsphere5 Fig 6 load.

120 G.729 streams at 50 packets/s leave in bursts every 20 ms (one media
server tick; the burst's frames reach the uplink one transmit-stage time
apart) beside a UDP flood of 390 K packets/s of 264-byte packets, through a
drop-tail FIFO of 1024 frames whose transmit stage serves 363 K frames/s
(``vsim.net.txpath.cost.FIG6_PER_PACKET``).

- vsim: ``FifoScheduler`` with the flood as a fluid, ``--duration`` simulated
  seconds (300 by default, the study's run);
- reference: ``uplink_packet_reference.py``, every flood packet a Poisson
  arrival and one Python loop iteration, for ``--ref-duration`` seconds (it
  is too slow for 300).

Printed (JSON, then PASS/FAIL lines): wall time per simulated second of
each and their ratio, vsim's simulated-to-real-time factor, and voice loss
and mean delay of both over the reference's duration with their standard
errors over bursts (bursts 20 ms apart are independent: the queue's free
places forget within microseconds). The reference is the leanest per-packet
form there is in Python (a bare loop over a deque, about 4x real time at
this load), not an event-per-packet SimPy model, so the ratio is modest next
to the flood's packet count. Targets: ratio >= 10, vsim >= 30x real time,
loss and delay within 3 combined standard errors. Exit 0 pass, 1 miss.

Run: ``.venv/bin/python benchmarks/bench_uplink.py [--duration 300] [--ref-duration 5]``
"""

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from uplink_packet_reference import voice_with_flood  # noqa: E402

from vsim.core.rng import RandomStreams  # noqa: E402
from vsim.net.fluid.flows import Flows  # noqa: E402
from vsim.net.txpath.cost import FIG6_PER_PACKET, PathCost  # noqa: E402
from vsim.net.uplink import make_uplink_scheduler  # noqa: E402

STREAMS = 120
TICK = 0.02
FLOOD_PPS = 390_000.0
FLOOD_IP = 264
VOICE_IP = 60
LIMIT = 1024
RATE = 1e9


def voice_bursts(streams, duration, seed):
    """Burst start times (ticks with a random phase and up to 1 ms of timer lateness) and
    the (bursts x streams) frame times, one stage time apart."""
    rng = RandomStreams(seed).stream("voice_ticks")
    ticks = np.arange(TICK, duration, TICK)
    ticks = ticks + rng.uniform(0, TICK) % TICK + rng.uniform(0, 1e-3, ticks.size)
    ticks = ticks[ticks + streams * FIG6_PER_PACKET < duration]
    return ticks[:, None] + np.arange(streams)[None, :] * FIG6_PER_PACKET


def run_fluid(bursts, seed):
    uplink = make_uplink_scheduler("fifo", RATE, LIMIT, rng=RandomStreams(seed).stream("uplink"),
                                   cost=PathCost(per_packet=FIG6_PER_PACKET))
    uplink.set_flows(0.0, Flows.of([FLOOD_PPS, STREAMS / TICK], [FLOOD_IP, VOICE_IP], 0, [1, 0],
                                   discrete=[False, True]))
    out = np.empty(bursts.shape)
    for i, frames in enumerate(bursts):
        out[i] = uplink.transmit(frames, VOICE_IP, 0, 0)
    return out - bursts


def run_reference(bursts, duration, seed):
    delays, _, _ = voice_with_flood(RandomStreams(seed).stream("flood"), flood_pps=FLOOD_PPS,
                                    voice_times=bursts.ravel(), service=FIG6_PER_PACKET,
                                    limit=LIMIT, duration=duration)
    return delays.reshape(bursts.shape) - bursts


def per_burst_stats(delays):
    """Loss fraction and mean delay with standard errors over bursts."""
    lost = np.isnan(delays).mean(axis=1)
    n = lost.size
    burst_delay = np.array([np.nanmean(row) if not np.isnan(row).all() else np.nan
                            for row in delays])
    kept = burst_delay[~np.isnan(burst_delay)]
    return {"loss": float(lost.mean()), "loss_se": float(lost.std(ddof=1) / math.sqrt(n)),
            "delay_ms": float(np.nanmean(delays) * 1e3),
            "delay_se_ms": float(kept.std(ddof=1) / math.sqrt(kept.size) * 1e3),
            "bursts": int(n)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--duration", type=float, default=300.0)
    parser.add_argument("--ref-duration", type=float, default=5.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    long_bursts = voice_bursts(STREAMS, args.duration, args.seed)
    started = time.perf_counter()
    run_fluid(long_bursts, args.seed)
    fluid_wall = time.perf_counter() - started

    short_bursts = voice_bursts(STREAMS, args.ref_duration, args.seed + 1)
    started = time.perf_counter()
    reference = run_reference(short_bursts, args.ref_duration, args.seed + 1)
    ref_wall = time.perf_counter() - started
    fluid_short = run_fluid(short_bursts, args.seed + 2)

    ours, theirs = per_burst_stats(fluid_short), per_burst_stats(reference)
    ratio = (ref_wall / args.ref_duration) / (fluid_wall / args.duration)
    loss_z = abs(ours["loss"] - theirs["loss"]) / math.hypot(ours["loss_se"], theirs["loss_se"])
    delay_z = abs(ours["delay_ms"] - theirs["delay_ms"]) / math.hypot(ours["delay_se_ms"],
                                                                      theirs["delay_se_ms"])
    result = {
        "duration_s": args.duration, "ref_duration_s": args.ref_duration,
        "fluid_wall_s": round(fluid_wall, 3), "reference_wall_s": round(ref_wall, 3),
        "fluid_real_time_factor": round(args.duration / fluid_wall, 1),
        "reference_real_time_factor": round(args.ref_duration / ref_wall, 3),
        "speed_ratio": round(ratio, 1),
        "fluid": ours, "reference": theirs,
        "loss_z": round(loss_z, 2), "delay_z": round(delay_z, 2),
    }
    print(json.dumps(result, indent=2))
    checks = [("speed ratio >= 10", ratio >= 10),
              ("vsim >= 30x real time", args.duration / fluid_wall >= 30),
              ("voice loss within 3 standard errors", loss_z < 3),
              ("voice delay within 3 standard errors", delay_z < 3)]
    for name, ok in checks:
        print(("PASS " if ok else "FAIL ") + name)
    return 0 if all(ok for _, ok in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
