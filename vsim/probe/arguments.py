"""The ``vsim probe`` subcommands' arguments (the handler is ``vsim.probe.command.run_probe``)."""

import argparse

from vsim.probe.cgroups import MAX_PERIOD_US, MIN_PERIOD_US, MIN_QUOTA_US
from vsim.probe.names import CGROUP_PREFIX, NETNS_PREFIX, TMP_PREFIX, VETH_PREFIX
from vsim.probe.qdisc import MAX_BUCKET_S, MAX_RATE_BPS, MAX_U32, SHAPES
from vsim.probe.limits import (FLOOD_SOURCE_PORT, MAX_FLOOD_PAYLOAD_BYTES, MAX_STREAMS, MAX_WORKERS,
                               VOICE_SOURCE_PORT_BASE)

MAX_DURATION_S = 600.0
MAX_TIMER_THREADS = 1024  # beyond this, thread start-up and one interpreter's lock set the lateness


def _at_most(parse_low, high, expected):
    """An argparse type: what ``parse_low`` accepts, and at most ``high`` (else ``expected``)."""
    def parse(text):
        value = parse_low(text)
        if value > high:
            raise argparse.ArgumentTypeError(f"{expected}, got {text!r}")
        return value

    return parse


def _duration(bounded):
    """A duration in s: > 0 and at most ``MAX_DURATION_S`` (a probe always ends)."""
    return _at_most(bounded(float, 0, False), MAX_DURATION_S, f"expected a duration <= {MAX_DURATION_S:g} s")


def add_probe_arguments(probe, bounded):
    """Add ``timer``, ``net``, ``cpu``, ``steal`` and ``cleanup`` under ``probe``; ``bounded`` builds number types."""
    probes = probe.add_subparsers(dest="probe", required=True, metavar="PROBE")
    period = bounded(float, 0.001, True)
    count = bounded(int, 1, True)

    timer = probes.add_parser("timer", help="wake-up lateness of periodic threads (absolute-deadline sleeps)")
    timer.add_argument("--period", type=period, default=0.02, metavar="S", help="period, s (default 0.02)")
    timer.add_argument("--threads", type=_at_most(count, MAX_TIMER_THREADS, f"expected at most {MAX_TIMER_THREADS} "
                                                 "threads (beyond that the probe measures itself, not the kernel)"),
                       default=1, metavar="N", help=f"periodic threads (default 1, at most {MAX_TIMER_THREADS})")
    timer.add_argument("--duration", type=_duration(bounded), default=30.0, metavar="S",
                       help="seconds to measure (default 30)")
    timer.add_argument("--load", choices=("none", "cpu"), default="none",
                       help="cpu: one busy-loop process per CPU meanwhile (default none)")
    timer.add_argument("--via", choices=("python", "cyclictest"), default="python",
                       help="measure with Python threads (default) or with rt-tests' cyclictest, "
                            "which must be installed (apt-get install rt-tests)")
    timer.add_argument("--out", required=True, metavar="TRACE", help="the timer trace to write")

    net = probes.add_parser("net", help="voice streams and a UDP flood through a tc bottleneck (root)")
    net.add_argument("--qdisc", choices=SHAPES, default="pfifo", help="bottleneck shape (default pfifo)")
    net.add_argument("--rate", type=_at_most(bounded(float, 8000, True), MAX_RATE_BPS,
                                             f"expected a rate <= {MAX_RATE_BPS:g} bit/s (more than a veth "
                                             "carries: a faster bottleneck shapes nothing)"),
                     default=4e6, metavar="BIT/S", help=f"bottleneck rate, bit/s (default 4e6, at most "
                                                        f"{MAX_RATE_BPS:g})")
    net.add_argument("--limit", type=_at_most(count, MAX_U32, f"expected a limit <= {MAX_U32} (tc's largest)"),
                     metavar="N", help="queue limit: packets for pfifo and htb, bytes for bfifo and tbf, at "
                                       "least the largest frame sent (default 100 packets or 64000 bytes)")
    net.add_argument("--burst", type=_at_most(bounded(int, 1600, True), MAX_U32,
                                              f"expected a burst <= {MAX_U32} bytes (tc's largest)"),
                     default=5000, metavar="BYTES",
                     help="token bucket burst, bytes (default 5000; at most what the kernel's bucket holds, "
                          f"{MAX_BUCKET_S:.0f} s of sending at the bucket's rate)")
    for name in ("voice", "flood"):
        net.add_argument(f"--{name}-rate", type=bounded(float, 8000, True), metavar="BIT/S",
                         help=f"htb only: the {name} class's rate (default half of --rate)")
        net.add_argument(f"--{name}-ceil", type=bounded(float, 8000, True), metavar="BIT/S",
                         help=f"htb only: the {name} class's ceil (default --rate)")
    net.add_argument("--streams", type=_at_most(count, MAX_STREAMS,
                                                f"expected at most {MAX_STREAMS} streams (each sends from a "
                                                f"UDP port of its own, {VOICE_SOURCE_PORT_BASE}-"
                                                f"{FLOOD_SOURCE_PORT - 1})"),
                     default=10, metavar="N", help=f"voice streams (default 10, at most {MAX_STREAMS})")
    net.add_argument("--period", type=period, default=0.02, metavar="S",
                     help="voice packet period (0.02, at most --duration)")
    net.add_argument("--pattern", choices=("tick", "spread"), default="tick",
                     help="tick: all streams back to back each period (default); spread: evenly apart")
    net.add_argument("--flood-fraction", type=bounded(float, 0, True), default=0.5, metavar="F",
                     help="flood rate as a fraction of --rate, on the wire (default 0.5; 0: none)")
    net.add_argument("--flood-size", type=_at_most(bounded(int, 16, True), MAX_FLOOD_PAYLOAD_BYTES,
                                                   f"expected at most {MAX_FLOOD_PAYLOAD_BYTES} bytes (a "
                                                   "datagram that crosses the veth unfragmented)"),
                     default=1000, metavar="BYTES",
                     help=f"flood datagram payload, bytes (16-{MAX_FLOOD_PAYLOAD_BYTES}, default 1000)")
    net.add_argument("--flood-wakeup", type=bounded(float, 0, True), default=0.0, metavar="S",
                     help="the flood sender wakes every S seconds and writes every datagram then due, back to "
                          "back (iperf3's --pacing-timer, 1000 us by default, works so); 0 (default): it "
                          "sleeps to each datagram's own deadline"),
    net.add_argument("--duration", type=_duration(bounded), default=30.0, metavar="S",
                     help="seconds of traffic (default 30)")
    net.add_argument("--out", required=True, metavar="TRACE",
                     help="the packets trace to write (the per-stream summary goes beside it, suffix "
                          ".summary.txt)")
    net.add_argument("--pcap", metavar="PCAP", help="the capture to keep (default: TRACE with suffix .pcap)")

    cpu = probes.add_parser("cpu", help="periodic CPU work of cgroup 'VMs' with weights and quotas (root)")
    cpu.add_argument("--vms", type=count, default=2, metavar="N", help="cgroups, one per VM (default 2)")
    cpu.add_argument("--workers", type=count, default=1, metavar="K",
                     help=f"worker processes per VM (1; at most {MAX_WORKERS} in all VMs)")
    cpu.add_argument("--work-ms", type=bounded(float, 0, False), default=5.0, metavar="W",
                     help="CPU work per worker per tick, ms (default 5)")
    cpu.add_argument("--period", type=period, default=0.02, metavar="S", help="tick period, s (0.02)")
    cpu.add_argument("--weight", default="100", metavar="W[,W...]",
                     help="cpu.weight (1-10000) of every VM, or one per VM (default 100)")
    cpu.add_argument("--quota", default="max", metavar="Q[,Q...]",
                     help=f"cpu.max quota in CPUs (e.g. 0.5; at least {MIN_QUOTA_US} us per --quota-period-us, "
                          f"0.01 at the default) or 'max', for every VM or one per VM (default max: no quota)")
    cpu.add_argument("--parent-weight", type=bounded(int, 1, True), default=100, metavar="W",
                     help="cpu.weight of the VMs' parent group against the machine's other work (100)")
    cpu.add_argument("--quota-period-us",
                     type=_at_most(bounded(int, MIN_PERIOD_US, True), MAX_PERIOD_US,
                                   f"expected at most {MAX_PERIOD_US} us (the kernel's longest period)"),
                     default=100000, metavar="US",
                     help=f"cpu.max period, us ({MIN_PERIOD_US}-{MAX_PERIOD_US}, default 100000)")
    cpu.add_argument("--duration", type=_duration(bounded), default=30.0, metavar="S",
                     help="seconds of ticks (default 30)")
    cpu.add_argument("--out", required=True, metavar="TRACE", help="the cpu_ticks trace to write")

    steal = probes.add_parser("steal", help="each CPU's steal time (an outer hypervisor's) from /proc/stat")
    steal.add_argument("--interval", type=bounded(float, 0.01, True), default=0.05, metavar="S",
                       help="sample interval, s (>= 0.01 and at most --duration, default 0.05)")
    steal.add_argument("--duration", type=_duration(bounded), default=30.0, metavar="S",
                       help="seconds to record (default 30)")
    steal.add_argument("--out", required=True, metavar="TRACE", help="the steal trace to write")

    cleanup = probes.add_parser(
        "cleanup", help="remove namespaces, veths, cgroups and temporary directories left by dead probes "
                        "(root)",
        description=f"Remove what probes killed outright (SIGKILL) left behind: network namespaces "
                    f"named {NETNS_PREFIX}*, veths named {VETH_PREFIX}* (their qdiscs go with them), "
                    f"cgroups named {CGROUP_PREFIX}* and temporary directories named {TMP_PREFIX}* (a "
                    f"capture, worker results) in the temporary directory ($TMPDIR, else /tmp), each only "
                    f"when the probe process named in it has ended (--force: also when it still runs). "
                    f"Needs root and ip (iproute2).")
    cleanup.add_argument("--force", action="store_true",
                         help="also remove those of probes whose process is still running")
